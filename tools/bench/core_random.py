"""Issue 3 random numbers: rand / randn of 16M float32 and uniform_ / normal_ into an existing 16M
float32 tensor, against NumPy's default_rng (PCG64; float32 output) and PyTorch when importable."""
from __future__ import annotations

import numpy as np

import ember

from .runner import Case, best_of, impls, torch


N = 16 * 1024 * 1024


def _ms(fn):
    return lambda: best_of(fn) * 1e3


def _rand(lib):
    if lib == "numpy":
        rng = np.random.default_rng(0)
        return _ms(lambda: rng.random(N, dtype=np.float32))
    mod = ember if lib == "ember" else torch
    return _ms(lambda: mod.rand(N))


def _randn(lib):
    if lib == "numpy":
        rng = np.random.default_rng(0)
        return _ms(lambda: rng.standard_normal(N, dtype=np.float32))
    mod = ember if lib == "ember" else torch
    return _ms(lambda: mod.randn(N))


def _into(lib, fill_np, fill_tensor):
    """Times filling one preallocated 16M float32 array (allocated at the first measurement)."""
    held = {}

    def measure():
        if "x" not in held:
            held["x"] = (
                np.empty(N, dtype=np.float32) if lib == "numpy" else (ember if lib == "ember" else torch).empty(N)
            )
        x = held["x"]
        if lib == "numpy":
            rng = np.random.default_rng(0)
            return best_of(lambda: fill_np(rng, x)) * 1e3
        return best_of(lambda: fill_tensor(x)) * 1e3
    return measure


def _uniform_(lib):
    return _into(lib, lambda rng, x: rng.random(out=x, dtype=np.float32), lambda t: t.uniform_(-1, 1))


def _normal_(lib):
    return _into(lib, lambda rng, x: rng.standard_normal(out=x, dtype=np.float32), lambda t: t.normal_())



def cases() -> list[Case]:
    return [
        Case("rand(16M) float32", "ms", False, impls(_rand), "<= NumPy", lambda e, p: e <= p["numpy"]),
        Case("uniform_ 16M float32", "ms", False, impls(_uniform_), "<= NumPy", lambda e, p: e <= p["numpy"]),
        Case("randn(16M) float32", "ms", False, impls(_randn), "<= 1.5x NumPy", lambda e, p: e <= 1.5 * p["numpy"]),
        Case("normal_ 16M float32", "ms", False, impls(_normal_), "<= 1.5x NumPy", lambda e, p: e <= 1.5 * p["numpy"]),
    ]
