"""Script versions of ember.nn.functional's activations, dropouts, padding and pixel shuffles that the core's
nn modules call (see _builtins_nn.py for why): the same formulas over the same ops as the eager functions
(ember/nn/_functional_activation.py, _functional_dropout.py, _functional_conv.py's pad,
_functional_pixel_shuffle.py), drawing random numbers in the same order."""
from __future__ import annotations

from typing import Any, List, Optional

import ember
import ember.nn.functional as F
from ember import Tensor

from ._ops import aten

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def glu(input, dim: int = -1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.dim() if dim < 0 else dim
    if input.size(d) % 2 != 0:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.size(d)}")
    half = input.size(d) // 2
    return input.narrow(d, 0, half) * input.narrow(d, half, half).sigmoid()


def relu6(input, inplace: bool = False):
    return F.hardtanh(input, 0.0, 6.0, inplace)


def selu(input, inplace: bool = False):
    if inplace:
        return input.copy_(F.elu(input, _SELU_ALPHA) * _SELU_SCALE)
    return F.elu(input, _SELU_ALPHA) * _SELU_SCALE


def softmin(input, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Optional[int] = None):
    if dim is None:  # PyTorch's implicit choice (the eager function also warns)
        d = 0 if input.dim() == 0 or input.dim() == 1 or input.dim() == 3 else 1
    else:
        d = dim
    return (-input).softmax(d)


def prelu(input, weight):
    w = weight
    if weight.numel() != 1:
        channels = input.size(1) if input.dim() >= 2 else input.size(0)
        if weight.dim() != 1 or weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
        if input.dim() >= 2:
            shape = [channels]
            for _ in range(input.dim() - 2):
                shape.append(1)
            w = weight.reshape(shape)
    return ember.where(input > 0, input, w * input)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return F.leaky_relu(input, (lower + upper) / 2, inplace)
    slope = ember.rand_like(input) * (upper - lower) + lower  # uniform_'s draws (the same generator stream)
    out = ember.where(input >= 0, input, input * slope)
    if inplace:
        return input.copy_(out)
    return out


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _masked(input: Tensor, shape: List[int], p: float, inplace: bool) -> Tensor:
    mask = ember.bernoulli(ember.ones(shape, dtype=input.dtype), 1.0 - p)  # bernoulli_'s draws
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    if inplace:
        return input.mul_(mask).mul_(1.0 / (1.0 - p))
    return input * mask * (1.0 / (1.0 - p))


def _feature_shape(input: Tensor, batched: bool, spatial: int) -> List[int]:
    shape = [input.size(0), input.size(1)] if batched else [input.size(0)]
    for _ in range(spatial):
        shape.append(1)
    return shape


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched_dim: int, name: str) -> Tensor:
    _check_p(p)
    if input.dim() != batched_dim and input.dim() != batched_dim + 1:
        raise RuntimeError(f"{name}: expected {batched_dim}-D (unbatched) or {batched_dim + 1}-D (batched) input, "
                           f"got {input.dim()}-D input of shape {input.shape}")
    if not training or p == 0.0:
        return input
    return _masked(input, _feature_shape(input, input.dim() == batched_dim + 1, batched_dim - 1), p, inplace)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    return _feature_dropout(input, p, training, inplace, 2, "dropout1d")


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    if input.dim() != 4 and input.dim() != 3:
        raise RuntimeError(f"dropout2d: expected a 3-D or 4-D input in scripted code, got {input.dim()}-D")
    if input.dim() == 3:  # PyTorch's channel-wise 1-D behaviour (the eager function warns)
        _check_p(p)
        if not training or p == 0.0:
            return input
        return _masked(input, _feature_shape(input, True, 1), p, inplace)
    return _feature_dropout(input, p, training, inplace, 3, "dropout2d")


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout3d")


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, shape: List[int]) -> Tensor:
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = ember.bernoulli(ember.ones(shape, dtype=input.dtype), 1.0 - p)
    out = (input * keep + alpha_p * (1 - keep)) * a + b
    if inplace:
        return input.copy_(out)
    return out


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    return _alpha_dropout(input, p, training, inplace, input.shape)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _alpha_dropout(input, p, training, inplace, _feature_shape(input, True, input.dim() - 2))


def _pad_side(x: Tensor, dim: int, left: int, right: int, mode: str, value: float) -> Tensor:
    n = x.size(dim)
    pieces: List[Tensor] = []
    if left > 0:
        if mode == "constant":
            shape = x.shape
            shape[dim] = left
            pieces.append(ember.full(shape, value, dtype=x.dtype))
        elif mode == "reflect":
            pieces.append(x.narrow(dim, 1, left).flip([dim]))
        elif mode == "replicate":
            pieces.append(x.index_select(dim, ember.zeros([left], dtype=ember.int64)))
        else:
            pieces.append(x.narrow(dim, n - left, left))
    pieces.append(x)
    if right > 0:
        if mode == "constant":
            shape = x.shape
            shape[dim] = right
            pieces.append(ember.full(shape, value, dtype=x.dtype))
        elif mode == "reflect":
            pieces.append(x.narrow(dim, n - 1 - right, right).flip([dim]))
        elif mode == "replicate":
            pieces.append(x.index_select(dim, ember.full([right], n - 1, dtype=ember.int64)))
        else:
            pieces.append(x.narrow(dim, 0, right))
    return ember.cat(pieces, dim)


def pad(input, pad: Any, mode: str = "constant", value: Optional[float] = None):
    """Pads the last len(pad) // 2 dims, (last_left, last_right, second_last_left, ...); negative amounts
    crop. Modes constant, reflect, replicate, circular."""
    amounts: List[int] = []
    for v in pad:  # a tuple (unrolled) or a list of ints
        amounts.append(v)
    pad = amounts
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    fill = 0.0
    if mode != "constant":
        if value is not None and value != 0.0:
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        if mode != "reflect" and mode != "replicate" and mode != "circular":
            raise NotImplementedError(f"Unrecognised padding mode {mode}")
        if k > 3 or input.dim() < k + 1:
            raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now "
                                      f"(got {k} padded dims of a {input.dim()}-D input)")
    elif value is not None:
        fill = value
    out = input
    for i in range(k):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left == 0 and right == 0:
            continue
        out = _pad_side(out, dim, max(left, 0), max(right, 0), mode, fill)
        if left < 0 or right < 0:
            start = -left if left < 0 else 0
            stop = out.size(dim) + right if right < 0 else out.size(dim)
            if stop - start < 0:
                raise RuntimeError(f"The input size {input.size(dim)}, plus negative padding {left} and {right} "
                                   f"resulted in a negative output size, which is invalid. Check dimension {dim} of "
                                   f"your input.")
            out = out.narrow(dim, start, stop - start)
    return out


def pixel_shuffle(input, upscale_factor: int):
    r = upscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.dim() < 3 or input.size(-3) % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3) is not divisible by {r * r}")
    n = input.dim() - 3
    lead = input.shape[:n]
    c, h, w = input.size(-3), input.size(-2), input.size(-1)
    x = input.reshape(lead + [c // (r * r), r, r, h, w])
    x = x.permute([i for i in range(n)] + [n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape(lead + [c // (r * r), h * r, w * r])


def pixel_unshuffle(input, downscale_factor: int):
    r = downscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    if input.dim() < 3 or input.size(-1) % r != 0 or input.size(-2) % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor {r}, got "
                           f"{input.shape}")
    n = input.dim() - 3
    lead = input.shape[:n]
    c, h, w = input.size(-3), input.size(-2), input.size(-1)
    x = input.reshape(lead + [c, h // r, r, w // r, r])
    x = x.permute([i for i in range(n)] + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(lead + [c * r * r, h // r, w // r])


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Optional[Tensor] = None):
    # input / max(|input|_p, eps) along dim, by the same ops as eager F.normalize
    n = aten.norm_p(input, p, [dim], True).clamp_min(eps)
    res = input / n.expand_as(input)
    if out is not None:
        return out.copy_(res)
    return res


NAMES = ["normalize", "glu", "relu6", "selu", "softmin", "prelu", "rrelu", "dropout1d", "dropout2d", "dropout3d",
         "alpha_dropout", "feature_alpha_dropout", "pad", "pixel_shuffle", "pixel_unshuffle"]
