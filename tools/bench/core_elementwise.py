"""Issue 2 speed targets: op call overhead, big elementwise throughput, exp, broadcasting, import;
issue 20's a + b of two cache-resident 1M float32 tensors (0.18 ns/element in ember, 0.10 in PyTorch
when filed)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

import ember

from .runner import Case, best_of, impls, per_call, torch


BIG = 64 * 1024 * 1024


def _pair(n, lib):
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    if lib == "ember":
        return ember.from_numpy(a), ember.from_numpy(b)
    if lib == "torch":
        return torch.from_numpy(a), torch.from_numpy(b)
    return a, b


def _add_small(lib):
    a, b = _pair(1, lib)
    return lambda: per_call(lambda: a + b) * 1e6


def _add_small_out(lib):
    # the out= path: the destination's overlap checks against each input run on every call
    a, b = _pair(1, lib)
    out = a * 0
    if lib == "numpy":
        return lambda: per_call(lambda: np.add(a, b, out=out)) * 1e6
    mod = ember if lib == "ember" else torch
    return lambda: per_call(lambda: mod.add(a, b, out=out)) * 1e6


def _add_big_new(lib):
    a, b = _pair(BIG, lib)

    def measure():
        holder = [a + b]

        def step():
            holder[0] = None  # free the previous result first, as a training loop would
            holder[0] = a + b
        return 3 * BIG * 4 / best_of(step) / 1e9
    return measure


def _add_big_out(lib):
    a, b = _pair(BIG, lib)
    if lib == "numpy":
        out = np.empty_like(a)
        return lambda: 3 * BIG * 4 / best_of(lambda: np.add(a, b, out=out)) / 1e9
    mod = ember if lib == "ember" else torch
    out = mod.empty(BIG, dtype=mod.float32)
    return lambda: 3 * BIG * 4 / best_of(lambda: mod.add(a, b, out=out)) / 1e9


def _add_1m(lib):
    n = 1 << 20
    a, b = _pair(n, lib)
    return lambda: best_of(lambda: a + b, reps=50) / n * 1e9


def _exp_big_out(lib):
    a, _ = _pair(BIG, lib)
    if lib == "numpy":
        out = np.empty_like(a)
        return lambda: best_of(lambda: np.exp(a, out=out)) / BIG * 1e9
    mod = ember if lib == "ember" else torch
    out = mod.empty(BIG, dtype=mod.float32)
    return lambda: best_of(lambda: mod.exp(a, out=out)) / BIG * 1e9


def _broadcast(lib):
    rng = np.random.default_rng(0)
    col = rng.random((4096, 1), dtype=np.float32)
    row = rng.random((1, 4096), dtype=np.float32)
    if lib == "ember":
        col, row = ember.from_numpy(col), ember.from_numpy(row)
    elif lib == "torch":
        col, row = torch.from_numpy(col), torch.from_numpy(row)
    return lambda: best_of(lambda: col + row) * 1e3


def _import_time(module):
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"

    def measure():
        times = []
        for _ in range(5):
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            times.append(float(out.stdout))
        return sorted(times)[2]
    return measure



def cases() -> list[Case]:
    imports = {"ember": _import_time("ember"), "numpy": _import_time("numpy")}
    if torch is not None:
        imports["torch"] = _import_time("torch")
    return [
        Case("a + b, 1-element float32", "us/call", False, impls(_add_small),
             "<= 0.7 us", lambda e, p: e <= 0.7),
        Case("add(a, b, out=), 1-element float32", "us/call", False, impls(_add_small_out),
             "<= 0.7 us", lambda e, p: e <= 0.7),
        Case("a + b, 64M float32, new result", "GB/s", True, impls(_add_big_new),
             ">= 2x NumPy", lambda e, p: e >= 2 * p["numpy"]),
        Case("add(a, b, out=), 64M float32", "GB/s", True, impls(_add_big_out),
             ">= 29 GB/s (PyTorch's)", lambda e, p: e >= p.get("torch", 29.0)),
        Case("a + b, 1M float32 (in cache)", "ns/elem", False, impls(_add_1m),
             "<= PyTorch's", lambda e, p: e <= p.get("torch", 0.10)),
        Case("exp(a, out=), 64M float32", "ns/elem", False, impls(_exp_big_out),
             "<= 0.4 ns", lambda e, p: e <= 0.4),
        Case("(4096,1) + (1,4096) float32", "ms", False, impls(_broadcast),
             "<= NumPy", lambda e, p: e <= p["numpy"]),
        Case("import time", "s", False, imports, "< 0.25 s", lambda e, p: e < 0.25),
    ]
