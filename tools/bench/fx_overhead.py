"""Issue 21's overhead target: a 20-layer MLP (Linear 64->64 + ReLU, batch 32, no grad) run eagerly and
as a traced-and-recompiled ember.fx GraphModule: the generated forward must cost no more than 5% over
the module's own (fx adds no per-call work beyond the generated Python)."""
from __future__ import annotations

import ember

from .runner import Case, per_call

LAYERS, WIDTH, BATCH = 20, 64, 32


def _models():
    import ember.fx as fx
    import ember.nn as nn
    ember.manual_seed(0)
    layers = []
    for _ in range(LAYERS):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    eager = nn.Sequential(*layers).eval()
    traced = fx.symbolic_trace(eager)
    traced.recompile()
    return eager, traced


def _timer(which):
    eager, traced = _models()
    model = traced if which == "fx" else eager
    x = ember.randn(BATCH, WIDTH)

    def measure():
        # the fastest of a few short loops: the machine is shared, and load only ever adds time
        with ember.no_grad():
            return min(per_call(lambda: model(x), min_time=0.05) for _ in range(4)) * 1e6
    return measure


def cases():
    # "ember" is the GraphModule; the "eager" column is the original module, measured turn about with it
    return [Case("fx mlp20 (GraphModule vs eager)", "us/call", False, {"ember": _timer("fx"), "eager": _timer("eager")},
                 "<= 1.05x eager", lambda e, peers: "eager" not in peers or e <= 1.05 * peers["eager"])]
