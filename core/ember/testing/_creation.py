"""make_tensor: PyTorch's torch.testing.make_tensor, random test inputs of a shape and dtype drawn
from [low, high) (defaults -9 and 9, 10 exclusive for integers), clamped to the dtype's range."""
from __future__ import annotations

import math

import ember

__all__ = ["make_tensor"]

_DEFAULT_LOW, _DEFAULT_HIGH = -9, 9


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` (ints, or one list/tuple/Size) filled with uniform random values: bools
    True or False; integers from [low, high); floats and both parts of complex numbers from
    [low, high). `noncontiguous=True` gives a strided view with the same values' distribution;
    `exclude_zero=True` replaces zeros by 1 (integers) or the dtype's smallest normal number;
    `memory_format` lays the result out in that format (not with noncontiguous)."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if not isinstance(dtype, ember.dtype):
        raise TypeError(f"make_tensor(): dtype must be an ember.dtype, got {type(dtype).__name__}")
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    if noncontiguous and math.prod(shape) > 1:
        wide = list(shape[:-1]) + [shape[-1] * 2]
        result = _values(wide, dtype, device, low, high)[..., ::2]
    else:
        result = _values(list(shape), dtype, device, low, high)
    if memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result = _exclude_zero(result, dtype)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _values(shape, dtype, device, low, high):
    if dtype == ember.bool:
        return ember.randint(0, 2, shape, device=device).to(ember.bool)
    if dtype.is_floating_point or dtype.is_complex:
        info = ember.finfo(dtype)
        low, high = _bounds(low, high, info.min, info.max, _DEFAULT_HIGH, floating=True)
        if dtype.is_complex:
            real = ember.float32 if dtype == ember.complex64 else ember.float64
            parts = [_uniform(shape, real, device, low, high) for _ in range(2)]
            return ember.complex(parts[0], parts[1])
        return _uniform(shape, dtype, device, low, high)
    info = ember.iinfo(dtype)
    low, high = _bounds(low, high, info.min, info.max, _DEFAULT_HIGH + 1, floating=False)
    return ember.randint(int(low), int(high), shape, dtype=ember.int64, device=device).to(dtype)


def _bounds(low, high, lowest, highest, default_high, floating):
    """PyTorch's rules: NaN refused, defaults filled in, clamped to the dtype's range, low < high
    (or low == high for floats: a constant tensor)."""
    low = _DEFAULT_LOW if low is None else low
    high = default_high if high is None else high
    if (isinstance(low, float) and math.isnan(low)) or (isinstance(high, float) and math.isnan(high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low > high or (low == high and not floating) or low == math.inf or high == -math.inf:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    low, high = max(low, lowest), min(high, highest)
    if not floating:  # the exclusive upper bound of an integer range may sit one past the largest value
        high = min(high, highest + 1)
    return low, high


def _uniform(shape, dtype, device, low, high):
    # Drawn in float64 and rounded, so a narrow float's range is covered the same way as a wide one's.
    u = ember.rand(shape, dtype=ember.float64, device=device)
    return (u * (high - low) + low).to(dtype)


def _exclude_zero(t, dtype):
    if dtype == ember.bool:
        return ember.ones_like(t)
    if dtype.is_floating_point or dtype.is_complex:
        tiny = ember.finfo(dtype).tiny
        fill = complex(tiny, tiny) if dtype.is_complex else tiny
    else:
        fill = 1
    return ember.where(t == 0, ember.full_like(t, fill), t)
