"""Issue 29 item 7 speed targets: a 2-layer, 200-unit LSTM and GRU on the input PyTorch's
word_language_model example feeds them (bptt 35 steps, batch 20, emsize = nhid = 200), one thread
each, beside PyTorch 2.13 when importable: forward (no graph, as inference) and forward+backward
(input requiring grad, as the embedding's output does in training). Goal: at least as fast as PyTorch."""
from __future__ import annotations

import ember

from .runner import Case, best_of, ember_and_torch, torch

SEQ, BATCH, SIZE, LAYERS = 35, 20, 200, 2


def _one_thread(lib, fn):
    """fn's measurement with lib on one thread (the previous count restored after)."""
    t = ember if lib == "ember" else torch

    def run():
        before = t.get_num_threads()
        t.set_num_threads(1)
        try:
            return fn()
        finally:
            t.set_num_threads(before)
    return run


def _rnn(kind, backward):
    def factory(lib):
        t = ember if lib == "ember" else torch
        t.manual_seed(0)
        model = getattr(t.nn, kind)(SIZE, SIZE, LAYERS)
        x = t.randn(SEQ, BATCH, SIZE, requires_grad=backward)

        def step():
            if backward:
                out, _ = model(x)
                out.backward(t.ones_like(out))
            else:
                with t.no_grad():
                    model(x)
        return _one_thread(lib, lambda: best_of(step, 5) * 1e3)
    return factory


def _at_least_torch(e, peers):
    return "torch" not in peers or e <= peers["torch"]


def cases():
    goal = "<= PyTorch, 1 thread"
    return [Case(f"{kind.lower()} 2x200 {what}", "ms", False, ember_and_torch(_rnn(kind, what == "fwd+bwd")), goal,
                 _at_least_torch)
            for kind in ("LSTM", "GRU") for what in ("fwd", "fwd+bwd")]
