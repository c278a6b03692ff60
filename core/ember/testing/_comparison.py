"""assert_close: PyTorch's torch.testing.assert_close for ember tensors, NumPy arrays, Python numbers,
None, and sequences or mappings of them (compared item by item), with its default tolerances and
its messages."""
from __future__ import annotations

import cmath
import collections.abc
import math

import ember

__all__ = ["assert_close"]

# {dtype: (rtol, atol)}; other dtypes compare exactly.
_DTYPE_PRECISIONS = {
    ember.float16: (1e-3, 1e-5), ember.bfloat16: (1.6e-2, 1e-5), ember.float32: (1.3e-6, 1e-5),
    ember.float64: (1e-7, 1e-7), ember.complex64: (1.3e-6, 1e-5), ember.complex128: (1e-7, 1e-7),
}


class _Mismatch(Exception):
    """A failed comparison: the exception type to raise, its message and where in the inputs it is."""

    def __init__(self, kind, msg, where=()):
        super().__init__(msg)
        self.kind, self.msg, self.where = kind, msg, where

    def to_error(self, msg):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.where:
            text += "\n\nThe failure occurred for item " + "".join(str([w]) for w in self.where)
        return self.kind(msg(text) if callable(msg) else text)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises AssertionError unless `actual` and `expected` are close: for each element,
    |actual - expected| <= atol + rtol * |expected| (NaNs equal only with equal_nan=True). Without
    rtol and atol, the tolerances of the inputs' dtype apply (0 for integers and bools). Shapes, and
    unless switched off dtypes and devices (and strides with check_stride=True), must match."""
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                check_stride=check_stride)
    try:
        _compare(actual, expected, (), opts)
    except _Mismatch as m:
        raise m.to_error(msg) from None


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes)) and not _is_tensor_like(x)


def _is_tensor_like(x):
    return isinstance(x, ember.Tensor) or type(x).__module__ == "numpy" and type(x).__name__ == "ndarray"


def _is_number(x):
    return isinstance(x, (int, float, complex)) or type(x).__module__ == "numpy" and hasattr(x, "dtype") \
        and getattr(x, "shape", None) == ()


def _compare(actual, expected, where, opts):
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        missing = sorted(set(expected) - set(actual), key=repr)
        extra = sorted(set(actual) - set(expected), key=repr)
        if missing or extra:
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {missing}\n"
                            f"Additional keys in the actual mapping: {extra}", where)
        for key in expected:
            _compare(actual[key], expected[key], where + (key,), opts)
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                            where)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, where + (i,), opts)
        return
    try:
        if actual is None or expected is None:
            if actual is not expected:
                raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}")
        elif _is_tensor_like(actual) and _is_tensor_like(expected):
            _compare_tensors(actual, expected, opts)
        elif _is_number(actual) and _is_number(expected):
            _compare_numbers(actual, expected, opts)
        else:
            raise _Mismatch(TypeError, "No comparison pair was able to handle inputs of type "
                            f"{type(actual)} and {type(expected)}.")
    except _Mismatch as m:
        m.where = where
        raise


def _compare_numbers(actual, expected, opts):
    actual, expected = _python_number(actual), _python_number(expected)
    if opts["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    kind = complex if complex in (type(actual), type(expected)) else \
        float if float in (type(actual), type(expected)) else int
    rtol, atol = _tolerances(opts, [ember.complex128 if kind is complex else ember.float64 if kind is float
                                    else ember.int64])
    if _numbers_close(actual, expected, rtol, atol, opts["equal_nan"]):
        return
    _raise_scalar_mismatch(actual, expected, rtol, atol)


def _python_number(x):
    if isinstance(x, (bool, int, float, complex)):
        return x
    return x.item()  # a NumPy scalar


def _numbers_close(a, e, rtol, atol, equal_nan):
    if a == e:
        return True
    nan_a = cmath.isnan(a) if isinstance(a, complex) else isinstance(a, float) and math.isnan(a)
    nan_e = cmath.isnan(e) if isinstance(e, complex) else isinstance(e, float) and math.isnan(e)
    if nan_a or nan_e:
        return equal_nan and nan_a and nan_e
    if any(isinstance(v, float) and math.isinf(v) for v in (a, e)):
        return False
    return abs(a - e) <= atol + rtol * abs(e)


def _raise_scalar_mismatch(actual, expected, rtol, atol):
    diff = abs(actual - expected)
    if isinstance(diff, bool):
        diff = int(diff)
    denom = abs(expected)
    rel = diff / denom if denom else (math.inf if diff else math.nan)
    raise _Mismatch(AssertionError, f"Scalars are not {_adjective(rtol, atol)}!\n\n"
                    f"Expected {expected} but got {actual}.\n"
                    f"Absolute difference: {diff}{_allowed(atol, rtol, atol)}\n"
                    f"Relative difference: {rel}{_allowed(rtol, rtol, atol)}")


def _adjective(rtol, atol):
    return "equal" if rtol == 0 and atol == 0 else "close"


def _allowed(tol, rtol, atol):
    return "" if rtol == 0 and atol == 0 else f" (up to {tol} allowed)"


def _tolerances(opts, dtypes):
    if opts["rtol"] is not None:
        return opts["rtol"], opts["atol"]
    pairs = [_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _as_tensor(x):
    return x if isinstance(x, ember.Tensor) else ember.as_tensor(x)  # a NumPy array


def _compare_tensors(actual, expected, opts):
    if isinstance(actual, ember.Tensor) != isinstance(expected, ember.Tensor) or (
            not opts["allow_subclasses"] and type(actual) is not type(expected)):
        raise _Mismatch(TypeError, "No comparison pair was able to handle inputs of type "
                        f"{type(actual)} and {type(expected)}.")
    actual, expected = _as_tensor(actual).detach(), _as_tensor(expected).detach()
    _check_attribute("shape", actual.shape, expected.shape)
    if opts["check_device"]:
        _check_attribute("device", actual.device, expected.device)
    if opts["check_dtype"]:
        _check_attribute("dtype", actual.dtype, expected.dtype)
    if opts["check_stride"]:
        _check_attribute("stride()", actual.stride(), expected.stride())
    rtol, atol = _tolerances(opts, [actual.dtype, expected.dtype])
    if actual.dtype != expected.dtype:
        common = ember.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    if actual.numel() == 0:
        return
    if actual.dim() == 0:  # compared and reported as Python numbers, as PyTorch does
        a, e = actual.item(), expected.item()
        if not _numbers_close(a, e, rtol, atol, opts["equal_nan"]):
            _raise_scalar_mismatch(a, e, rtol, atol)
        return
    if actual.dtype == ember.bool:
        actual, expected = actual.to(ember.int64), expected.to(ember.int64)
    matches = _matches(actual, expected, rtol, atol, opts["equal_nan"])
    if not bool(matches.all()):
        _raise_tensor_mismatch(actual, expected, matches, rtol, atol)


def _check_attribute(name, a, e):
    if a != e:
        raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.")


def _matches(actual, expected, rtol, atol, equal_nan):
    if actual.dtype.is_floating_point or actual.dtype.is_complex:
        return ember.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if rtol == 0 and atol == 0:
        return actual == expected
    a, e = actual.to(ember.float64), expected.to(ember.float64)
    return (a - e).abs() <= atol + rtol * e.abs()


def _raise_tensor_mismatch(actual, expected, matches, rtol, atol):
    total = actual.numel()
    matches = matches.flatten()
    mismatched = total - int(matches.sum())
    a, e = actual.flatten(), expected.flatten()
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        a, e = a.to(ember.int64), e.to(ember.int64)
    abs_diff = (a - e).abs()
    abs_diff = ember.where(matches, ember.zeros_like(abs_diff), abs_diff)
    rel_diff = abs_diff / e.abs()
    rel_diff = ember.where(matches, ember.zeros_like(rel_diff), rel_diff)
    max_abs, abs_at = _greatest(abs_diff)
    max_rel, rel_at = _greatest(rel_diff)
    shape = tuple(actual.shape)
    raise _Mismatch(AssertionError, f"Tensor-likes are not {_adjective(rtol, atol)}!\n\n"
                    f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})\n"
                    f"Greatest absolute difference: {max_abs} at index {_unravel(abs_at, shape)}"
                    f"{_allowed(atol, rtol, atol)}\n"
                    f"Greatest relative difference: {max_rel} at index {_unravel(rel_at, shape)}"
                    f"{_allowed(rtol, rtol, atol)}")


def _greatest(flat):
    """The largest value and its position, NaN counting as the largest (its first occurrence)."""
    if flat.dtype.is_floating_point:
        nan = ember.isnan(flat)
        if bool(nan.any()):
            i = int(ember.argmax(nan.to(ember.int32)))
            return flat[i].item(), i
    i = int(ember.argmax(flat))
    return flat[i].item(), i


def _unravel(flat_index, shape):
    index = []
    for size in reversed(shape):
        index.append(flat_index % size)
        flat_index //= size
    return tuple(reversed(index))
