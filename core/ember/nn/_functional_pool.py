"""The pooling functions of ember.nn.functional (re-exported there): PyTorch's argument forms over
the max_pool / avg_pool / adaptive_*_pool ops (core/ops/nn.yaml)."""
from __future__ import annotations

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import tensor_args

__all__ = [f"{kind}_pool{n}d" for kind in ("max", "avg", "adaptive_avg", "adaptive_max") for n in (1, 2, 3)]


def _list(v, n, name):
    if v is None:
        return None
    if not isinstance(v, (int, list, tuple)):
        raise TypeError(f"{name} must be an int or a tuple of {n} ints, not {type(v).__name__}")
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(f"{name} must be a single int or a tuple of {n} ints, got {v}")
    return v


def _batched(input, nd, name):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}: Expected {nd + 1}D or {nd + 2}D input (unbatched or batched), but got input of "
                           f"size: {list(input.shape)}")
    return (input.unsqueeze(0), True) if input.dim() == nd + 1 else (input, False)


def _unbatch(t, unbatched):
    return t.squeeze(0) if unbatched else t


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd):
    x, unbatched = _batched(input, nd, f"max_pool{nd}d")
    k = _list(kernel_size, nd, "kernel_size")
    s = _list(stride, nd, "stride") if stride not in (None, [], ()) else k
    pad, dil = _list(padding, nd, "padding"), _list(dilation, nd, "dilation")
    values, indices = _C._nn.max_pool(x, k, s, pad, dil, ceil_mode)
    values, indices = _unbatch(values, unbatched), _unbatch(indices, unbatched)
    return (values, indices) if return_indices else values


@tensor_args("input")
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


@tensor_args("input")
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


@tensor_args("input")
@autocast_policy("fp32")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd):
    x, unbatched = _batched(input, nd, f"avg_pool{nd}d")
    k = _list(kernel_size, nd, "kernel_size")
    s = _list(stride, nd, "stride") if stride not in (None, [], ()) else k
    out = _C._nn.avg_pool(x, k, s, _list(padding, nd, "padding"), ceil_mode, count_include_pad, divisor_override)
    return _unbatch(out, unbatched)


@tensor_args("input")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


@tensor_args("input")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


@tensor_args("input")
@autocast_policy("fp32")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


def _output_size(x, output_size, nd):
    """output_size with None entries taken from the input's spatial size."""
    if not isinstance(output_size, (int, list, tuple, type(None))):
        raise TypeError(f"adaptive pool: output_size must be an int or a tuple of {nd} ints (or None), not "
                        f"{type(output_size).__name__}")
    size = [output_size] * nd if isinstance(output_size, int) or output_size is None else list(output_size)
    if len(size) == 1 and nd > 1:
        size = size * nd
    if len(size) != nd:
        raise RuntimeError(f"adaptive pool: output_size must have {nd} values, got {output_size}")
    return [x.shape[2 + i] if s is None else s for i, s in enumerate(size)]


def _adaptive_avg(input, output_size, nd):
    x, unbatched = _batched(input, nd, f"adaptive_avg_pool{nd}d")
    return _unbatch(_C._nn.adaptive_avg_pool(x, _output_size(x, output_size, nd)), unbatched)


def _adaptive_max(input, output_size, return_indices, nd):
    x, unbatched = _batched(input, nd, f"adaptive_max_pool{nd}d")
    values, indices = _C._nn.adaptive_max_pool(x, _output_size(x, output_size, nd))
    values, indices = _unbatch(values, unbatched), _unbatch(indices, unbatched)
    return (values, indices) if return_indices else values


@tensor_args("input")
def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg(input, output_size, 1)


@tensor_args("input")
def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg(input, output_size, 2)


@tensor_args("input")
@autocast_policy("fp32")
def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg(input, output_size, 3)


@tensor_args("input")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, return_indices, 1)


@tensor_args("input")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, return_indices, 2)


@tensor_args("input")
@autocast_policy("fp32")
def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, return_indices, 3)
