"""Issue 20: bfloat16 convolution on AVX512_BF16: conv2d 3x3 64->64 on 8x64x56x56, forward and
forward+backward, beside PyTorch 2.13 when importable (and ember's float32 figure for the same
convolution in nn_conv.py)."""
from __future__ import annotations

import ember

from .runner import Case, best_of, ember_and_torch, torch


def _conv(backward):
    def factory(lib):
        t = ember if lib == "ember" else torch
        t.manual_seed(0)
        x = t.randn(8, 64, 56, 56).to(t.bfloat16).requires_grad_(backward)
        w = (t.randn(64, 64, 3, 3) * 0.05).to(t.bfloat16).requires_grad_(backward)
        b = t.zeros(64, dtype=t.bfloat16, requires_grad=backward)

        def step():
            y = t.nn.functional.conv2d(x, w, b, padding=1)
            if backward:
                y.backward(t.ones_like(y))
        return lambda: best_of(step, 3) * 1e3
    return factory


def cases() -> list[Case]:
    return [
        Case("conv2d bf16 3x3 64->64 8x64x56x56 fwd", "ms", False, ember_and_torch(_conv(False))),
        Case("conv2d bf16 3x3 64->64 fwd+bwd", "ms", False, ember_and_torch(_conv(True))),
    ]
