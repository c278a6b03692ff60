"""Issue 20's autocast target: a ResNet-18 training step at batch 8 on 3x224x224 (forward, backward,
SGD) in float32 and under bf16 CPU autocast, beside PyTorch 2.13 when importable, and the bf16 step's
speed-up over the float32 one measured in the same run (goal: at least 1.3x, which needs bf16 matrix
and convolution kernels faster than the float32 ones)."""
from __future__ import annotations

from .nn_conv import resnet_step
from .runner import Case, best_of, ember_and_torch


def _bf16_step_ms(lib):
    step = resnet_step(lib, bf16=True)
    return lambda: best_of(step, 2) * 1e3


def _speedup(lib):
    """float32 step time / bf16 autocast step time, both timed here, alternating."""
    fp32, bf16 = resnet_step(lib), resnet_step(lib, bf16=True)
    return lambda: best_of(fp32, 2) / best_of(bf16, 2)


def cases():
    # the float32 step alone is nn_conv's "ResNet-18 train step, batch 8"
    return [
        Case("ResNet-18 train step b8, bf16 autocast", "ms", False, ember_and_torch(_bf16_step_ms)),
        Case("ResNet-18 b8 step: bf16 autocast speed-up over fp32", "x", True, ember_and_torch(_speedup),
             ">= 1.3x", lambda e, p: e >= 1.3),
    ]
