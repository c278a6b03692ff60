"""Issue 3 speed target for indexing: x[idx] with 1M random int64 indices into a 16M float32 vector
(no slower than NumPy), plus x[mask] and x[idx] = v on the same data."""
from __future__ import annotations

import numpy as np

import ember

from .runner import Case, best_of, impls, torch


N = 16 * 1024 * 1024
K = 1024 * 1024


def _data(lib):
    rng = np.random.default_rng(0)
    x = rng.random(N, dtype=np.float32)
    idx = rng.integers(0, N, K, dtype=np.int64)
    mask = rng.random(N) < 0.5
    vals = rng.random(K, dtype=np.float32)
    if lib == "ember":
        return ember.from_numpy(x), ember.from_numpy(idx), ember.from_numpy(mask), ember.from_numpy(vals)
    if lib == "torch":
        return torch.from_numpy(x), torch.from_numpy(idx), torch.from_numpy(mask), torch.from_numpy(vals)
    return x, idx, mask, vals


def _gather(lib):
    x, idx, _, _ = _data(lib)
    return lambda: best_of(lambda: x[idx]) * 1e3


def _mask(lib):
    x, _, mask, _ = _data(lib)
    return lambda: best_of(lambda: x[mask]) * 1e3


def _put(lib):
    x, idx, _, vals = _data(lib)

    def step():
        x[idx] = vals
    return lambda: best_of(step) * 1e3



def cases() -> list[Case]:
    return [
        Case("x[idx], 1M int64 into 16M float32", "ms", False, impls(_gather),
             "<= NumPy", lambda e, p: e <= p["numpy"]),
        Case("x[mask], 16M float32, half true", "ms", False, impls(_mask),
             "<= NumPy", lambda e, p: e <= p["numpy"]),
        Case("x[idx] = v, 1M int64 into 16M float32", "ms", False, impls(_put),
             "<= NumPy", lambda e, p: e <= p["numpy"]),
    ]
