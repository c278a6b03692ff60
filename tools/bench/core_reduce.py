"""Issue 3 speed targets for reductions: the sum of 16M float32, and sums over dim 1 / dim 0 of a
4096x4096 float32 matrix (PyTorch measured 1.84 / 1.77 / 3.9 ms on this machine); issue 20's max
of 16M float32 (13.6 ms in ember, 1.43 in PyTorch when filed)."""
from __future__ import annotations

import numpy as np

import ember

from .runner import Case, best_of, impls, torch


def _data(shape, lib):
    a = np.random.default_rng(0).random(shape, dtype=np.float32)
    if lib == "ember":
        return ember.from_numpy(a)
    if lib == "torch":
        return torch.from_numpy(a)
    return a


def _reduce(name, shape, dim):
    def factory(lib):
        x = _data(shape, lib)
        g = getattr(x, name)
        if lib == "numpy":
            f = (lambda: g()) if dim is None else (lambda: g(axis=dim))
        else:
            f = (lambda: g()) if dim is None else (lambda: g(dim))
        return lambda: best_of(f, reps=10) * 1e3
    return factory


def _sum(shape, dim):
    return _reduce("sum", shape, dim)



def cases() -> list[Case]:
    n16 = 16 * 1024 * 1024
    return [
        Case("sum, 16M float32", "ms", False, impls(_sum((n16,), None)),
             "<= 1.9 ms", lambda e, p: e <= 1.9),
        Case("sum(dim=1), 4096x4096 float32", "ms", False, impls(_sum((4096, 4096), 1)),
             "<= 1.77 ms (PyTorch's)", lambda e, p: e <= p.get("torch", 1.77)),
        Case("sum(dim=0), 4096x4096 float32", "ms", False, impls(_sum((4096, 4096), 0)),
             "<= 3.9 ms (PyTorch's)", lambda e, p: e <= p.get("torch", 3.9)),
        Case("max, 16M float32", "ms", False, impls(_reduce("max", (n16,), None)),
             "<= PyTorch's", lambda e, p: e <= p.get("torch", 1.43)),
    ]
