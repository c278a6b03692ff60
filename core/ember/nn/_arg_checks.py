"""Argument checks shared by ember.nn.functional, so that bad input is named before the body
divides by it or calls a Tensor method on it: Tensor arguments (PyTorch's binding message),
positive sizes, dims in range, int64 sizes."""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import sys

from .. import _C

_INT64_MAX = (1 << 63) - 1


def tensor_args(*required, optional=(), numbers=(), bools=()):
    """Checks, before the function runs, that the named parameters hold Tensors (`optional`
    ones may also be None), raising PyTorch's TypeError "f(): argument 'x' (position i) must be
    Tensor, not int"; `numbers` name scalar parameters (a Python number or a Tensor), `bools`
    flags that PyTorch's bindings take as bool only ("must be bool, not int"). Decorate
    Python-level functionals whose first use of an argument would otherwise fail with an
    AttributeError or a comparison's TypeError deep inside."""
    kinds = {**{n: "_TENSOR" for n in required}, **{n: "_TENSOR_OR_NONE" for n in optional},
             **{n: "_NUMBER" for n in numbers}, **{n: "_BOOL" for n in bools}}

    def wrap(fn):
        return _checking_wrapper(fn, kinds)
    return wrap


def _checking_wrapper(fn, kinds):
    """A wrapper with fn's own signature whose body is one isinstance test per checked
    parameter, then the call (generated once: the checks cost about 0.1 us a call, where a
    generic *args/**kwargs wrapper cost 0.6 us on a 0.2 us relu)."""
    params = list(inspect.signature(fn).parameters.values())
    names = [p.name for p in params]
    missing = set(kinds) - set(names)
    if missing:
        raise TypeError(f"tensor_args: {fn.__name__} has no parameter {sorted(missing)}")
    ns = {"_fn": fn, "_refuse": _refuse, "_TENSOR": _TENSOR, "_TENSOR_OR_NONE": _TENSOR_OR_NONE, "_NUMBER": _NUMBER,
          "_NUMBER_PY": numbers.Number, "_BOOL": _BOOL}
    head, call, keyword_only = [], [], False
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise TypeError(f"tensor_args: {fn.__name__}'s parameter {p.name} has a kind it does not support")
        if p.kind == p.KEYWORD_ONLY and not keyword_only:
            head.append("*")
            keyword_only = True
        if p.default is p.empty:
            head.append(p.name)
        else:
            ns[f"_default{i}"] = p.default
            head.append(f"{p.name}=_default{i}")
        call.append(f"{p.name}={p.name}" if keyword_only else p.name)
    # a number parameter takes a Tensor only when it is 0-dim, as PyTorch's bindings ("must be Number, not Tensor")
    extra = {"_NUMBER": " or (type({0}) is not bool and not isinstance({0}, _NUMBER_PY) and {0}.dim() != 0)"}
    body = [f"    if not isinstance({name}, {kind}){extra.get(kind, '').format(name)}:\n"
            f"        _refuse({fn.__name__!r}, {name!r}, {names.index(name)}, {name}, {kind})"
            for name, kind in kinds.items()]
    src = f"def {fn.__name__}({', '.join(head)}):\n" + "\n".join(body) + f"\n    return _fn({', '.join(call)})\n"
    exec(compile(src, f"<tensor_args {fn.__name__}>", "exec"), ns)  # our own generated source
    return functools.update_wrapper(ns[fn.__name__], fn)


_TENSOR = _C.TensorBase
_TENSOR_OR_NONE = (_C.TensorBase, type(None))
_NUMBER = (numbers.Number, _C.TensorBase)


class _NumpyBoolKind(type):
    """isinstance(v, _NumpyBool): NumPy's bool (a bool to PyTorch's bindings too). NumPy is only looked
    at once something imported it (no NumPy bool can exist before): importing ember must not import
    NumPy."""

    def __instancecheck__(cls, value):
        np = sys.modules.get("numpy")
        return np is not None and isinstance(value, np.bool_)


class _NumpyBool(metaclass=_NumpyBoolKind):
    pass


# bool first: isinstance matches a plain bool in C without calling the hook above (per-call cost).
_BOOL = (bool, _NumpyBool)


def _refuse(fname, name, pos, value, kind):
    what = "Tensor" if kind is _TENSOR else "Tensor or None" if kind is _TENSOR_OR_NONE else "bool" if kind is _BOOL \
        else "Number"
    raise TypeError(f"{fname}(): argument '{name}' (position {pos + 1}) must be {what}, not {type(value).__name__}")


def check_int(fname, name, value):
    """value as a Python int (bools and integral floats refused as PyTorch's int arguments do; a
    Tensor only when it holds one integer)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if hasattr(value, "__index__") and not isinstance(value, bool):
            try:
                return value.__index__()
            except (TypeError, ValueError, RuntimeError):  # a Tensor of several values or of floats
                pass
        raise TypeError(f"{fname}(): argument '{name}' must be int, not {type(value).__name__}")
    return value


def as_float(fname, name, value):
    """A Python int given for one of PyTorch's float (double) arguments, as the float PyTorch's
    binding makes of it: ops take an int as an int64 Scalar, which 2**70 overflows."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise RuntimeError(f"{fname}(): argument '{name}' ({value}) is too large to convert to float") from None
    return value


def reserve(fname, shape, dtype, what="the output"):
    """Asks for a tensor of `shape` once, before work whose size grows with it (Python lists,
    index maps), so that a size beyond the machine's memory fails at once with ember's
    OutOfMemoryError naming the function and the bytes; the block is freed again at once."""
    numel = check_numel(fname, shape)
    try:
        _C.empty(list(shape), dtype=dtype)
    except MemoryError as e:  # ember.OutOfMemoryError (a RuntimeError and a MemoryError)
        itemsize = _C.empty([], dtype=dtype).element_size()
        raise type(e)(f"{fname}: cannot allocate {what} of shape {list(shape)} ({numel * itemsize} bytes): {e}") \
            from None


def check_positive(fname, name, value, error=RuntimeError):
    """value must be an int > 0: it divides or counts something."""
    if check_int(fname, name, value) <= 0:
        raise error(f"{fname}(): {name} must be positive, but got {name}={value}")
    return value


def int_sequence(fname, name, value, n):
    """value as a list of n ints: an int repeats, a sequence must have n entries (or 1)."""
    if not isinstance(value, (int, list, tuple)) or isinstance(value, bool):
        raise TypeError(f"{fname}(): argument '{name}' must be int or tuple of ints, not {type(value).__name__}")
    if not isinstance(value, int):
        vals = list(value)
        if len(vals) == 1:
            vals = vals * n
        if len(vals) != n:
            raise RuntimeError(f"{fname}(): {name} must be an int or a sequence of {n} ints, but got {name}={value}")
    else:
        vals = [value] * n
    return [check_int(fname, name, v) for v in vals]


def wrap_dim(fname, dim, ndim):
    """dim in [-ndim, ndim) (a 0-D tensor counts as one dim) as a non-negative index."""
    dim = check_int(fname, "dim", dim)
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def size_from_float(fname, value):
    """floor(value) as an int64 size, refusing NaN, infinities and values past int64 as PyTorch."""
    if math.isnan(value) or math.isinf(value) or abs(value) >= 2.0 ** 63:
        raise RuntimeError(f"{fname}(): value cannot be converted to type int64_t without overflow (got {value})")
    return int(math.floor(value))


def check_numel(fname, shape):
    """A shape whose element count fits int64 (so the allocation can be attempted and refused)."""
    total = 1
    for s in shape:
        total *= s
    if total > _INT64_MAX:
        raise RuntimeError(f"{fname}(): the number of elements of the output of shape {list(shape)} overflows int64")
    return total


def check_same_dtype(fname, input, reduced_params_may_be_float=False, **params):
    """Each given parameter Tensor (None skipped) has the input's dtype, as PyTorch's kernels
    require (they do not promote); norms also take float32 parameters for a half/bfloat16 input."""
    for name, t in params.items():
        if t is None or t.dtype == input.dtype:
            continue
        if reduced_params_may_be_float and t.dtype == _C.float32 and input.dtype in (_C.float16, _C.bfloat16):
            continue
        raise RuntimeError(f"{fname}(): expected {name} to have the input's dtype {input.dtype}, but got {t.dtype}")


def check_output_shape(fname, input, **others):
    """Each given Tensor broadcasts to the input's shape without growing it (PyTorch writes the
    result into an input-shaped output)."""
    for name, t in others.items():
        if t is None:
            continue
        shape = _broadcast(list(input.shape), list(t.shape), fname, name)
        if shape != list(input.shape):
            raise RuntimeError(f"{fname}(): output with shape {list(input.shape)} doesn't match the broadcast shape "
                               f"{shape} (of the input and {name} {list(t.shape)})")


def _broadcast(a, b, fname, name):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise RuntimeError(f"{fname}(): the size of {name} {y} must match the input's {x} or be 1 (shapes do not "
                               "broadcast)")
        out.append(y if x == 1 else x)
    return out
