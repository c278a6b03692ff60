"""Script versions of ember's window functions (hann, hamming, blackman, bartlett, kaiser): the eager ones are Python
(ember/_ops_math_extra.py); these compute the same float64 sums and cast, so scripted windows equal eager ones.
A dtype of None is float32 (scripted code has no default-dtype setting); requires_grad=True is refused, since a
graph cannot make a leaf that requires grad."""
from __future__ import annotations

import math
from typing import List, Optional

import ember
from ember import Tensor


def _checked_dtype(name: str, window_length: int, dtype: Optional[int], requires_grad: bool) -> int:
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if requires_grad:
        raise RuntimeError(f"{name}: requires_grad=True is not supported in scripted code")
    kind = ember.float32 if dtype is None else dtype
    if not (kind == ember.float16 or kind == ember.bfloat16 or kind == ember.float32 or kind == ember.float64):
        raise RuntimeError(f"{name} expects floating point dtypes")
    return kind


def _cosine_window(name: str, window_length: int, periodic: bool, coeffs: List[float], dtype: Optional[int],
                   requires_grad: bool) -> Tensor:
    kind = _checked_dtype(name, window_length, dtype, requires_grad)
    if window_length <= 1:
        return ember.ones([window_length], dtype=kind)
    denom = window_length if periodic else window_length - 1
    n = ember.arange(window_length, dtype=ember.float64)
    w = ember.zeros([window_length], dtype=ember.float64)
    for k in range(len(coeffs)):
        sign = 1.0 if k % 2 == 0 else -1.0
        w = w + sign * coeffs[k] * (n * (2 * math.pi * k / denom)).cos()
    return w.to(kind)


def hann_window(window_length: int, periodic: bool = True, dtype: Optional[int] = None, layout: Optional[int] = None,
                device: Optional[str] = None, requires_grad: bool = False) -> Tensor:
    return _cosine_window("hann_window", window_length, periodic, [0.5, 0.5], dtype, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46,
                   dtype: Optional[int] = None, layout: Optional[int] = None, device: Optional[str] = None,
                   requires_grad: bool = False) -> Tensor:
    return _cosine_window("hamming_window", window_length, periodic, [alpha, beta], dtype, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, dtype: Optional[int] = None,
                    layout: Optional[int] = None, device: Optional[str] = None, requires_grad: bool = False) -> Tensor:
    return _cosine_window("blackman_window", window_length, periodic, [0.42, 0.5, 0.08], dtype, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, dtype: Optional[int] = None,
                    layout: Optional[int] = None, device: Optional[str] = None, requires_grad: bool = False) -> Tensor:
    kind = _checked_dtype("bartlett_window", window_length, dtype, requires_grad)
    if window_length <= 1:
        return ember.ones([window_length], dtype=kind)
    denom = window_length if periodic else window_length - 1
    n = ember.arange(window_length, dtype=ember.float64)
    return (1 - (n * (2 / denom) - 1).abs()).to(kind)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, dtype: Optional[int] = None,
                  layout: Optional[int] = None, device: Optional[str] = None, requires_grad: bool = False) -> Tensor:
    kind = _checked_dtype("kaiser_window", window_length, dtype, requires_grad)
    if window_length <= 1:
        return ember.ones([window_length], dtype=kind)
    denom = window_length if periodic else window_length - 1
    n = ember.arange(window_length, dtype=ember.float64)
    r = (1 - (n * (2 / denom) - 1) ** 2).clamp(min=0).sqrt()
    return ((r * beta).i0() / ember.scalar_tensor(beta, dtype=ember.float64).i0()).to(kind)


def window_impls() -> dict:
    return {ember.hann_window: hann_window, ember.hamming_window: hamming_window,
            ember.blackman_window: blackman_window, ember.bartlett_window: bartlett_window,
            ember.kaiser_window: kaiser_window}
