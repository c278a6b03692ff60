"""Issue 3 speed target for sorting: sort of 1M float32 no slower than NumPy's np.sort (which uses
AVX-512 sorting networks here); also argsort, a stable sort, int32 keys, many short rows and topk.
ember.sort returns values and indices; np.sort returns values only (the figure is still compared)."""
from __future__ import annotations

import numpy as np

import ember

from .runner import Case, best_of, impls, torch


N = 1024 * 1024


def _data(lib, dtype=np.float32, shape=(N,)):
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
    else:
        x = rng.integers(-2**31, 2**31 - 1, shape, dtype=np.int64).astype(dtype)
    if lib == "ember":
        return ember.from_numpy(x)
    if lib == "torch":
        return torch.from_numpy(x)
    return x


def _timed(make_call, dtype=np.float32, shape=(N,)):
    def factory(lib):
        x = _data(lib, dtype, shape)
        call = make_call(lib, x)
        return lambda: best_of(call) * 1e3
    return factory


def _sort(lib, x):
    return (lambda: np.sort(x)) if lib == "numpy" else (lambda: x.sort())


def _argsort(lib, x):
    return (lambda: np.argsort(x)) if lib == "numpy" else (lambda: x.argsort())


def _stable(lib, x):
    if lib == "numpy":
        return lambda: np.argsort(x, kind="stable")
    return lambda: x.argsort(stable=True)


def _rows(lib, x):
    return (lambda: np.sort(x, axis=1)) if lib == "numpy" else (lambda: x.sort(dim=1))


def _topk(lib, x):
    if lib == "numpy":
        return lambda: np.sort(np.partition(x, N - 100)[N - 100:])[::-1]
    return lambda: x.topk(100)



def cases() -> list[Case]:
    return [
        Case("sort 1M float32", "ms", False, impls(_timed(_sort)),
             "<= NumPy's np.sort", lambda e, p: e <= p["numpy"]),
        Case("argsort 1M float32", "ms", False, impls(_timed(_argsort)),
             "<= NumPy", lambda e, p: e <= p["numpy"]),
        Case("stable argsort 1M float32", "ms", False, impls(_timed(_stable)), "<= NumPy",
             lambda e, p: e <= p["numpy"]),
        Case("sort 1M int32", "ms", False, impls(_timed(_sort, np.int32)), "<= NumPy",
             lambda e, p: e <= p["numpy"]),
        Case("sort 1M float64", "ms", False, impls(_timed(_sort, np.float64)), "(no goal)", None),
        Case("sort 4096 rows of 256 float32 (dim 1)", "ms", False, impls(_timed(_rows, shape=(4096, 256))),
             "<= NumPy", lambda e, p: e <= p["numpy"]),
        Case("topk 100 of 1M float32", "ms", False, impls(_timed(_topk)), "(no goal)", None),
    ]
