"""Autocast for ops written in Python (nn.functional's linear, conv*, prelu, the losses...): the
`autocast_policy` decorator declares the op's cast policy where the op is defined, as the op
database's `autocast:` key does for C++ ops, with PyTorch's CPU lists deciding which policy."""
from __future__ import annotations

import functools
import inspect

from .. import _C

_enabled = _C._autocast_cpu_enabled
_set_enabled = _C._set_autocast_cpu_enabled
_cast = _C._autocast_cast


def _cast_arg(value, to):
    if isinstance(value, _C.TensorBase):
        return _cast(value, to)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, _C.TensorBase) for v in value):
        return type(value)(_cast(v, to) for v in value)
    return value


def autocast_policy(policy: str):
    """Marks a Python-written op with PyTorch's CPU cast policy: "lower_precision_fp" (its floating
    tensor arguments run in the autocast dtype) or "fp32". Inside an autocast region the arguments are
    cast (float64 and non-floating tensors are left alone, weights come from the region's cache) and
    the op runs with autocast off, as PyTorch's autocast kernels run theirs; outside, one C call."""
    if policy not in ("lower_precision_fp", "fp32"):
        raise ValueError(f"autocast_policy: unknown policy {policy!r}")

    def decorate(fn):
        run = _policy_wrapper(fn, policy)
        run.__autocast_policy__ = policy
        return run

    return decorate


def _run_cast(fn, policy, args, kwargs):
    to = _C._autocast_cpu_dtype() if policy == "lower_precision_fp" else _C.float32
    args = tuple(_cast_arg(a, to) for a in args)
    kwargs = {k: _cast_arg(v, to) for k, v in kwargs.items()}
    _set_enabled(False)
    try:
        return fn(*args, **kwargs)
    finally:
        _set_enabled(True)


def _policy_wrapper(fn, policy):
    """A wrapper with fn's own signature (generated once, as nn's tensor_args does): outside a region
    its body is one C call and the call, with no *args/**kwargs packing on the hot path."""
    params = list(inspect.signature(fn).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY) for p in params):
        raise TypeError(f"autocast_policy: {fn.__name__} has a parameter kind it does not support")
    ns = {"_fn": fn, "_enabled": _enabled, "_run_cast": _run_cast, "_policy": policy}
    head, call, keyword_only = [], [], False
    for i, p in enumerate(params):
        if p.kind == p.KEYWORD_ONLY and not keyword_only:
            head.append("*")
            keyword_only = True
        if p.default is p.empty:
            head.append(p.name)
        else:
            ns[f"_default{i}"] = p.default
            head.append(f"{p.name}=_default{i}")
        call.append(p.name)
    positional = ", ".join(n for n, p in zip(call, params) if p.kind != p.KEYWORD_ONLY)
    keywords = ", ".join(f"{n!r}: {n}" for n, p in zip(call, params) if p.kind == p.KEYWORD_ONLY)
    forward = ", ".join(f"{n}={n}" if p.kind == p.KEYWORD_ONLY else n for n, p in zip(call, params))
    src = (f"def {fn.__name__}({', '.join(head)}):\n    if not _enabled():\n        return _fn({forward})\n"
           f"    return _run_cast(_fn, _policy, ({positional}{',' if positional else ''}), {{{keywords}}})\n")
    exec(compile(src, f"<autocast_policy {fn.__name__}>", "exec"), ns)  # our own generated source
    return functools.update_wrapper(ns[fn.__name__], fn)


def fp32_under_autocast(t):
    """t in float32 inside an autocast region (for an op whose policy depends on its arguments, as
    reflection padding's on the number of padded dims), else t unchanged."""
    return _cast(t, _C.float32) if _enabled() else t
