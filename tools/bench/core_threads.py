"""Issue 29 item 6: ember's parallel loops with PyTorch imported first. PyTorch ships its own OpenMP
runtime (libgomp.so.1); an ember on OpenMP had its GOMP_* calls bound to that one and ran 2-6x
slower. Each measurement is a fresh interpreter (which library loads first is fixed per process):
"ember" imports ember alone, "torch1st" imports torch and then ember; both at ember's default
thread count. Only when torch is importable (a side-by-side environment, see the README)."""
from __future__ import annotations

import json
import subprocess
import sys

from .runner import Case, torch

CHILD = """
import json, sys, time
if {torch_first}:
    import torch
import ember
x = ember.rand(1_000_000); out = ember.empty(1_000_000)
y = ember.rand(100_000); out2 = ember.empty(100_000)
big = ember.rand(16_000_000)
cases = {{"exp": (lambda: ember.exp(x, out=out), 300), "add": (lambda: ember.add(y, y, out=out2), 3000),
         "sum": (lambda: big.sum(), 60)}}
f, reps = cases["{case}"]
f()
times = []
for _ in range(reps):
    t0 = time.perf_counter(); f(); times.append(time.perf_counter() - t0)
times.sort()
print(json.dumps(times[len(times) // 2] * 1e6))
"""


def _child(case, torch_first):
    def measure():
        code = CHILD.format(torch_first=torch_first, case=case)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
        return json.loads(r.stdout.strip().splitlines()[-1])
    return measure


def cases():
    if torch is None:
        return []
    rows = [("exp", "exp of 1M float32, out="), ("add", "add of 100K float32, out="), ("sum", "sum of 16M float32")]
    return [Case(f"threads: {title}", "us/call", False,
                 {"ember": _child(case, False), "torch1st": _child(case, True)},
                 target="torch imported first costs nothing (ratio ~1)",
                 meets=lambda e, peers: peers.get("torch1st", e) <= 1.25 * e)
            for case, title in rows]
