"""Issue 3 speed targets for matrix products: float32 square matmul GFLOP/s at n = 128 / 512 /
1024 / 2048 against NumPy's (both OpenBLAS) and PyTorch's when importable. Each measurement runs
in a fresh interpreter: ember and NumPy carry separate OpenBLAS copies whose idle worker threads
spin for a while after each call, so timing one right after the other in one process measures
the two thread pools fighting over the cores rather than either library. Issue 20: bfloat16 2048^3
(AVX512_BF16) against PyTorch's."""
from __future__ import annotations

import subprocess
import sys

from .runner import Case, ember_and_torch, impls


_CODE = """
import sys, time
import numpy as np
lib, n, bf16 = sys.argv[1], int(sys.argv[2]), len(sys.argv) > 3
rng = np.random.default_rng(0)
a = rng.random((n, n), dtype=np.float32)
b = rng.random((n, n), dtype=np.float32)
if lib == "ember":
    import ember
    a, b = ember.from_numpy(a), ember.from_numpy(b)
    if bf16:
        a, b = a.to(ember.bfloat16), b.to(ember.bfloat16)
elif lib == "torch":
    import torch
    a, b = torch.from_numpy(a), torch.from_numpy(b)
    if bf16:
        a, b = a.bfloat16(), b.bfloat16()
reps = max(1, int(2e8 / n ** 3))  # ~0.1 s of calls per timing at n = 128 (call overhead included)
a @ b
best = float("inf")
for _ in range(5):
    t = time.perf_counter()
    for _ in range(reps):
        a @ b
    best = min(best, (time.perf_counter() - t) / reps)
print(2.0 * n ** 3 / best / 1e9)
"""


def _matmul(n, bf16=False):
    def factory(lib):
        def measure():
            args = [sys.executable, "-c", _CODE, lib, str(n)] + (["bf16"] if bf16 else [])
            out = subprocess.run(args, capture_output=True, text=True, check=True)
            return float(out.stdout)
        return measure
    return factory



def cases() -> list[Case]:
    out = [Case("matmul float32 n=128", "GFLOP/s", True, impls(_matmul(128)), ">= 120", lambda e, p: e >= 120)]
    for n in (512, 1024, 2048):
        out.append(Case(f"matmul float32 n={n}", "GFLOP/s", True, impls(_matmul(n)),
                        ">= 95% of NumPy", lambda e, p: e >= 0.95 * p["numpy"]))
    out.append(Case("matmul bf16 2048^3", "GFLOP/s", True, ember_and_torch(_matmul(2048, bf16=True)), ">= 400",
                    lambda e, p: e >= 400))
    return out
