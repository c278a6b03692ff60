"""More of Python's math module in scripted code (what signal-processing code calls: log1p, log10, log2, expm1,
pow, the inverse and hyperbolic trigonometric functions, hypot, fabs, copysign, isnan/isinf/isfinite, gcd),
evaluated in float64 through the op table as _builtins_math's are (ember's float64 kernels, which may differ
from the C library's libm in the last bit)."""
from __future__ import annotations

import math

import ember


def _f64(x: float):
    return ember.scalar_tensor(x, dtype=ember.float64)


def log1p(x: float) -> float:
    if x <= -1.0:
        raise ValueError("math domain error")
    return float(ember.log1p(_f64(x)))


def log10(x: float) -> float:
    if x <= 0:
        raise ValueError("math domain error")
    return float(ember.log10(_f64(x)))


def log2(x: float) -> float:
    if x <= 0:
        raise ValueError("math domain error")
    return float(ember.log2(_f64(x)))


def expm1(x: float) -> float:
    return float(ember.expm1(_f64(x)))


def pow_(x: float, y: float) -> float:
    return float(ember.pow(_f64(x), _f64(y)))


def asin(x: float) -> float:
    if x < -1.0 or x > 1.0:
        raise ValueError("math domain error")
    return float(ember.asin(_f64(x)))


def acos(x: float) -> float:
    if x < -1.0 or x > 1.0:
        raise ValueError("math domain error")
    return float(ember.acos(_f64(x)))


def atan2(y: float, x: float) -> float:
    return float(ember.atan2(_f64(y), _f64(x)))


def sinh(x: float) -> float:
    return float(ember.sinh(_f64(x)))


def cosh(x: float) -> float:
    return float(ember.cosh(_f64(x)))


def tanh(x: float) -> float:
    return float(ember.tanh(_f64(x)))


def hypot(x: float, y: float) -> float:
    return float(ember.hypot(_f64(x), _f64(y)))


def fabs(x: float) -> float:
    return -x if x < 0 else x + 0.0


def copysign(x: float, y: float) -> float:
    return float(ember.copysign(_f64(x), _f64(y)))


def isnan(x: float) -> bool:
    return x != x


def isinf(x: float) -> bool:
    return x == math.inf or x == -math.inf


def isfinite(x: float) -> bool:
    return not (isnan(x) or isinf(x))


def gcd(a: int, b: int) -> int:
    a = -a if a < 0 else a
    b = -b if b < 0 else b
    while b != 0:
        a, b = b, a % b
    return a


def math_extra_impls() -> dict:
    return {math.log1p: log1p, math.log10: log10, math.log2: log2, math.expm1: expm1, math.pow: pow_,
            math.asin: asin, math.acos: acos, math.atan2: atan2, math.sinh: sinh, math.cosh: cosh, math.tanh: tanh,
            math.hypot: hypot, math.fabs: fabs, math.copysign: copysign, math.isnan: isnan, math.isinf: isinf,
            math.isfinite: isfinite, math.gcd: gcd}
