"""Issue 20's autocast target: a ResNet-18 training step at batch 8 on 3x224x224 (forward, backward,
SGD) in float32 and under bf16 CPU autocast, beside PyTorch 2.13 when importable, and the bf16 step's
speed-up over the float32 one measured in the same run (goal: at least 1.3x, which needs bf16 matrix
and convolution kernels faster than the float32 ones)."""
from __future__ import annotations

import contextlib

from .nn_conv import _lib, _resnet18
from .runner import Case, best_of, ember_and_torch


def _resnet_step(lib, bf16):
    t, nn, F = _lib(lib)
    t.manual_seed(0)
    model = _resnet18(t, nn, F)
    x = t.randn(8, 3, 224, 224)
    target = t.randint(0, 1000, (8,))
    params = list(model.parameters())

    def step():
        for p in params:
            p.grad = None
        region = t.autocast("cpu", dtype=t.bfloat16) if bf16 else contextlib.nullcontext()
        with region:
            loss = F.cross_entropy(model(x), target)
        loss.backward()
        with t.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
    return step


def _step_ms(bf16):
    def factory(lib):
        step = _resnet_step(lib, bf16)
        return lambda: best_of(step, 2) * 1e3
    return factory


def _speedup(lib):
    """float32 step time / bf16 autocast step time, both timed here, alternating."""
    fp32, bf16 = _resnet_step(lib, False), _resnet_step(lib, True)
    return lambda: best_of(fp32, 2) / best_of(bf16, 2)


def cases():
    return [
        Case("ResNet-18 train step b8, fp32", "ms", False, ember_and_torch(_step_ms(False))),
        Case("ResNet-18 train step b8, bf16 autocast", "ms", False, ember_and_torch(_step_ms(True))),
        Case("ResNet-18 b8 step: bf16 autocast speed-up over fp32", "x", True, ember_and_torch(_speedup),
             ">= 1.3x", lambda e, p: e >= 1.3),
    ]
