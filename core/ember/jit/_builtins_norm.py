"""Script versions of ember.nn.functional's normalizations and embedding (see _builtins_nn.py for why):
layer_norm, group_norm, batch_norm, instance_norm and embedding, over the same ops as the eager ones."""
from __future__ import annotations

from typing import Any, List, Optional

import ember
from ember import Tensor

from ._ops import aten


def _affine(y: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], shape: List[int]) -> Tensor:
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _channel_shape(input: Tensor) -> List[int]:
    shape = [1, input.size(1)]
    for _ in range(input.dim() - 2):
        shape.append(1)
    return shape


def layer_norm(input, normalized_shape: Any, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5):
    if isinstance(normalized_shape, int):
        ns = [normalized_shape]
    else:
        ns: List[int] = []
        for v in normalized_shape:
            ns.append(v)
    n = len(ns)
    if n > input.dim() or input.shape[input.dim() - n:] != ns:
        sizes = ", ".join([str(v) for v in ns])
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape [*, {sizes}], but got input of "
                           f"size{input.shape}")
    dims = [d for d in range(input.dim() - n, input.dim())]
    mean = input.mean(dims, keepdim=True)
    var = (input - mean).square().mean(dims, keepdim=True)
    y = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def group_norm(input, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    n, c = input.size(0), input.size(1)
    if c % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {input.shape} and num_groups={num_groups}")
    x = input.reshape([n, num_groups, -1])
    mean = x.mean([2], keepdim=True)
    var = (x - mean).square().mean([2], keepdim=True)
    y = ((x - mean) * (var + eps).rsqrt()).reshape(input.shape)
    return _affine(y, weight, bias, _channel_shape(input))


def batch_norm(input, running_mean: Optional[Tensor], running_var: Optional[Tensor], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5):
    """The eager function's native_batch_norm path (float inputs): the batch's statistics in training (the
    running ones updated in place by the op), the running ones otherwise."""
    if input.dim() < 2:
        raise ValueError(f"expected 2D or more input (N, C, ...), got {input.dim()}D input")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("batch_norm: running_mean and running_var must be given when training=False")
    out, _, _ = aten.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    return out


def instance_norm(input, running_mean: Optional[Tensor] = None, running_var: Optional[Tensor] = None,
                  weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5):
    if input.dim() < 3:
        raise ValueError(f"instance_norm: expected input with at least 3 dims (N, C, *spatial), got {input.dim()}D")
    shape = _channel_shape(input)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        y = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
        return _affine(y, weight, bias, shape)
    dims = [d for d in range(2, input.dim())]
    mean = input.mean(dims, keepdim=True)
    var = (input - mean).square().mean(dims, keepdim=True)
    if running_mean is not None or running_var is not None:
        count = input.numel() // (input.size(0) * input.size(1))
        c = input.size(1)
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.detach().mean([0]).reshape([c]) * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var.detach().mean([0]).reshape([c]) *
                                                (momentum * count / max(count - 1, 1)))
    y = (input - mean) * (var + eps).rsqrt()
    return _affine(y, weight, bias, shape)


def embedding(input, weight, padding_idx: Optional[int] = None, max_norm: Optional[float] = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False):
    """weight's rows at input; max_norm first renormalizes the looked-up rows of weight in place, as eager."""
    if weight.dim() != 2:
        raise RuntimeError(f"'weight' must be 2-D, got shape {weight.shape}")
    num = weight.size(0)
    if input.numel() > 0 and (int(input.min()) < 0 or int(input.max()) >= num):
        raise IndexError(f"index out of range in self: embedding indices must be in [0, {num}), got values in "
                         f"[{int(input.min())}, {int(input.max())}]")
    if max_norm is not None:
        w = weight.detach()  # written in place without recording a gradient, as eager's no_grad block
        rows = aten._unique2(input.reshape([-1]), True, False, False)[0]
        picked = w.index_select(0, rows)
        norms = picked.norm(norm_type, [1], True)
        scale = ember.where(norms > max_norm, max_norm / (norms + 1e-7), ember.ones_like(norms))
        w.index_copy_(0, rows, picked * scale)
    out = weight.index_select(0, input.reshape([-1]))
    return out.reshape(input.shape + [weight.size(1)])

