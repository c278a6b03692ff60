"""Script versions of Python's math functions and round() on numbers: floor/ceil/round are exact integer
arithmetic on the float; the transcendental ones evaluate in float64 through the op table (ember's
float64 kernels, which may differ from the C library's libm in the last bit)."""
from __future__ import annotations

import math
from typing import List, Optional

import ember


def _f64(x: float):
    return ember.scalar_tensor(x, dtype=ember.float64)


def floor(x: float) -> int:
    t = int(x)  # truncates toward zero
    return t - 1 if x < 0 and float(t) != x else t


def ceil(x: float) -> int:
    t = int(x)
    return t + 1 if x > 0 and float(t) != x else t


def round_(x: float, ndigits: Optional[int] = None):
    if ndigits is not None:
        return float(ember.round(_f64(x), decimals=ndigits))
    f = floor(x)
    diff = x - float(f)
    if diff > 0.5 or (diff == 0.5 and f % 2 != 0):  # halves go to the even neighbour, as Python's round
        return f + 1
    return f


def log(x: float) -> float:
    if x <= 0:
        raise ValueError("math domain error")
    return float(ember.log(_f64(x)))


def exp(x: float) -> float:
    return float(ember.exp(_f64(x)))


def sqrt(x: float) -> float:
    if x < 0:
        raise ValueError("math domain error")
    return float(ember.sqrt(_f64(x)))


def sin(x: float) -> float:
    return float(ember.sin(_f64(x)))


def cos(x: float) -> float:
    return float(ember.cos(_f64(x)))


def tan(x: float) -> float:
    return float(ember.tan(_f64(x)))


def atan(x: float) -> float:
    return float(ember.atan(_f64(x)))


def radians(x: float) -> float:
    return x * (math.pi / 180.0)


def degrees(x: float) -> float:
    return x * (180.0 / math.pi)


def _original(fn):
    """fn itself, or what ember.fx's tracer wrapped: ember.jit may first be imported while a symbolic trace has
    math's functions patched (a traced forward asking ember.jit.is_scripting()), and the table must hold the real
    ones that later calls name."""
    return fn.__wrapped__ if getattr(fn, "_fx_leaf_wrapper", False) else fn


def math_impls() -> dict:
    table = {math.floor: floor, math.ceil: ceil, math.log: log, math.exp: exp, math.sqrt: sqrt, math.sin: sin,
             math.cos: cos, math.tan: tan, math.atan: atan, math.radians: radians, math.degrees: degrees}
    return {_original(fn): impl for fn, impl in table.items()}


def sum_ints(xs: List[int]) -> int:
    total = 0
    for x in xs:
        total += x
    return total


def sum_bools(xs: List[bool]) -> int:
    total = 0
    for x in xs:
        if x:
            total += 1
    return total


def sum_floats(xs: List[float]) -> float:
    total = 0.0
    for x in xs:
        total += x
    return total


BUILTIN_IMPLS = {"round": round_}
