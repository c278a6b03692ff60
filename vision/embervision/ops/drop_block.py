"""DropBlock: drops contiguous square (cubic) regions of feature maps while training, rescaling the rest."""

import ember
from ember import nn
from ember.nn import functional as F


def _check(p, input, ndim):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}.")
    if input.dim() != ndim:
        raise ValueError(f"input should be {ndim} dimensional. Got {input.dim()} dimensions.")


def _apply(input, noise, inplace, eps):
    noise = 1 - noise
    normalize_scale = noise.numel() / (eps + noise.sum())
    if inplace:
        return input.mul_(noise).mul_(normalize_scale)
    return input * noise * normalize_scale


def drop_block2d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    _check(p, input, 4)
    if not training or p == 0.0:
        return input
    n, c, h, w = input.shape
    block_size = min(block_size, w, h)
    # Seed rate so that about p of the map ends up dropped once seeds grow into blocks.
    gamma = (p * h * w) / ((block_size**2) * ((h - block_size + 1) * (w - block_size + 1)))
    noise = ember.empty((n, c, h - block_size + 1, w - block_size + 1), dtype=input.dtype, device=input.device)
    noise.bernoulli_(gamma)
    noise = F.pad(noise, [block_size // 2] * 4, value=0)
    noise = F.max_pool2d(noise, stride=(1, 1), kernel_size=(block_size, block_size), padding=block_size // 2)
    noise = noise[:, :, :h, :w]  # an even block_size pools to one more row and column than the input
    return _apply(input, noise, inplace, eps)


def drop_block3d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    _check(p, input, 5)
    if not training or p == 0.0:
        return input
    n, c, d, h, w = input.shape
    block_size = min(block_size, d, h, w)
    gamma = (p * d * h * w) / ((block_size**3) * ((d - block_size + 1) * (h - block_size + 1) * (w - block_size + 1)))
    noise = ember.empty((n, c, d - block_size + 1, h - block_size + 1, w - block_size + 1), dtype=input.dtype,
                        device=input.device)
    noise.bernoulli_(gamma)
    noise = F.pad(noise, [block_size // 2] * 6, value=0)
    noise = F.max_pool3d(noise, stride=(1, 1, 1), kernel_size=(block_size,) * 3, padding=block_size // 2)
    noise = noise[:, :, :d, :h, :w]
    return _apply(input, noise, inplace, eps)


class DropBlock2d(nn.Module):
    def __init__(self, p, block_size, inplace=False, eps=1e-06):
        super().__init__()
        self.p, self.block_size, self.inplace, self.eps = p, block_size, inplace, eps

    def forward(self, input):
        return drop_block2d(input, self.p, self.block_size, self.inplace, self.eps, self.training)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p}, block_size={self.block_size}, inplace={self.inplace})"


class DropBlock3d(DropBlock2d):
    def forward(self, input):
        return drop_block3d(input, self.p, self.block_size, self.inplace, self.eps, self.training)
