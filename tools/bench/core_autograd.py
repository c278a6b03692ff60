"""Issue 4 speed targets for autograd: (a * b).sum().backward() on 1-element tensors (PyTorch 2.13
took 37 us here, a jitted JAX grad 9 us), and the autograd overhead per recorded op on a 20-op
elementwise chain over 1000 elements: forward+backward with recording, less the same forward and
backward math run by hand without recording, over 20. NumPy has no autograd: ember and PyTorch only."""
from __future__ import annotations

import numpy as np

import ember

from .runner import Case, per_call, torch

N_PAIRS = 10  # each pair is a mul and a sin: 20 recorded ops


def _libs(factory):
    libs = {"ember": factory(ember)}
    if torch is not None:
        libs["torch"] = factory(torch)
    return libs


def _tiny_backward(lib):
    a = lib.ones(1, requires_grad=True)
    b = lib.ones(1, requires_grad=True)

    def step():
        (a * b).sum().backward()
    return lambda: per_call(step) * 1e6


def _chain_overhead(lib):
    rng = np.random.default_rng(0)
    x0 = lib.tensor(rng.random(1000, dtype=np.float32))
    c = lib.tensor(rng.random(1000, dtype=np.float32) + 0.5)

    def forward(x):
        for _ in range(N_PAIRS):
            x = (x * c).sin()
        return x.sum()

    def recorded():
        x = x0.detach().requires_grad_(True)
        forward(x).backward()

    def by_hand():  # the same forward, keeping what the backward needs, then that backward
        with lib.no_grad():
            pre, x = [], x0
            for _ in range(N_PAIRS):
                p = x * c
                pre.append(p)
                x = p.sin()
            x.sum()
            g = lib.ones(1000)
            for p in reversed(pre):
                g = g * p.cos() * c
    return lambda: (per_call(recorded) - per_call(by_hand)) / (2 * N_PAIRS) * 1e6


def cases() -> list[Case]:
    return [
        Case("(a * b).sum().backward(), 1-element", "us/call", False, _libs(_tiny_backward),
             "<= 9 us", lambda e, p: e <= 9.0),
        Case("autograd overhead per recorded op, 20-op chain of 1000 elements", "us/op", False,
             _libs(_chain_overhead), "<= 1 us", lambda e, p: e <= 1.0),
    ]
