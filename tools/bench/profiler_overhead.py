"""Issue 27's overhead targets: an op call recorded by the profiler costs at most 2 us more than an
unrecorded one (the `a + b` 1-element case), and with no profile active the cost is unchanged (the
core_elementwise case of the same name, compared across builds)."""
from __future__ import annotations

import ember

from .runner import Case, ember_and_torch, per_call, torch


def _recorded_add(lib, shapes=False):
    mod = ember if lib == "ember" else torch
    a, b = mod.ones(1), mod.ones(1)

    def measure():
        with mod.profiler.profile(record_shapes=shapes):
            recorded = per_call(lambda: a + b, min_time=0.1)
        plain = per_call(lambda: a + b, min_time=0.1)
        return (recorded - plain) * 1e6
    return measure


def cases() -> list[Case]:
    return [
        Case("profiler on: extra cost of a recorded a + b", "us/op", False, ember_and_torch(_recorded_add),
             "<= 2 us", lambda e, p: e <= 2.0),
        Case("profiler on, record_shapes: extra cost of a + b", "us/op", False,
             ember_and_torch(lambda lib: _recorded_add(lib, shapes=True)), "<= 2 us", lambda e, p: e <= 2.0),
    ]
