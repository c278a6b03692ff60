"""Issue 20: conv3d on channels_last_3d (NDHWC) runs natively (core/csrc/kernels/cpu/conv_ndhwc.cpp). A 3x3x3
32->32 convolution on 2x32x16x28x28, forward and backward, in channels_last_3d beside ember's own NCDHW (taking
turns in the same run) and PyTorch 2.13 when importable."""
from __future__ import annotations

import ember

from .runner import Case, best_of, ember_and_torch, torch


def _conv3d_step(lib, channels_last):
    t = ember if lib == "ember" else torch
    F = t.nn.functional
    t.manual_seed(0)
    x = t.randn(2, 32, 16, 28, 28)
    w = t.randn(32, 32, 3, 3, 3) * 0.05
    if channels_last:  # as model.to(memory_format=channels_last_3d) and a channels_last_3d batch
        x, w = x.to(memory_format=t.channels_last_3d), w.to(memory_format=t.channels_last_3d)
    x, w = x.requires_grad_(), w.requires_grad_()
    b = t.zeros(32, requires_grad=True)

    def step():
        y = F.conv3d(x, w, b, padding=1)
        y.backward(t.ones_like(y))
    return lambda: best_of(step, 3) * 1e3


def _ndhwc(lib):
    return _conv3d_step(lib, True)


def cases():
    ncdhw = ember_and_torch(lambda lib: _conv3d_step(lib, False))
    ndhwc = ember_and_torch(_ndhwc)
    ndhwc["ember NCDHW"] = _conv3d_step("ember", False)  # the same run's NCDHW figure, for the ratio
    return [
        Case("conv3d 3x3x3 32->32 2x32x16x28x28 fwd+bwd", "ms", False, ncdhw, "-", None),
        Case("conv3d fwd+bwd channels_last_3d", "ms", False, ndhwc, "<= ember's NCDHW",
             lambda e, p: e <= p["ember NCDHW"]),
    ]
