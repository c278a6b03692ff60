"""Issue 22's second script speed target: a scripted loop of 100 iterations of an LSTM cell on batch 1,
against the same loop run eagerly, for ember and (when importable) PyTorch's TorchScript, in one run.
Written with Tensor methods only, so one definition serves both libraries."""
from __future__ import annotations

from .jit_script import _no_grad
from .runner import Case, per_call, torch

INPUT, HIDDEN = 64, 64


def lstm_cell_loop(x, h, c, w_ih, w_hh, b):
    for _ in range(100):
        gates = x.mm(w_ih) + h.mm(w_hh) + b
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
    return h, c


def _inputs(lib):
    import numpy as np
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((1, INPUT)), np.zeros((1, HIDDEN)), np.zeros((1, HIDDEN)),
              0.1 * rng.standard_normal((INPUT, 4 * HIDDEN)), 0.1 * rng.standard_normal((HIDDEN, 4 * HIDDEN)),
              np.zeros(4 * HIDDEN)]
    return [lib.tensor(a.astype(np.float32)) for a in arrays]


def _measure(lib_name: str, scripted: bool):
    def measure() -> float:
        if lib_name == "ember":
            import ember
            import ember.jit
            lib, script = ember, ember.jit.script
        else:
            lib, script = torch, torch.jit.script
        args = _inputs(lib)
        fn = script(lstm_cell_loop) if scripted else lstm_cell_loop
        with _no_grad(lib_name):
            fn(*args)
            return per_call(lambda: fn(*args)) * 1e6
    return measure


def cases():
    impls = {"ember": _measure("ember", True), "ember eager": _measure("ember", False)}
    if torch is not None:
        impls["torch script"] = _measure("torch", True)
        impls["torch eager"] = _measure("torch", False)
    return [Case("jit: 100 LSTM-cell steps, batch 1 (ember = scripted)", "us/call", False, impls,
                 target="scripted faster than eager ember and than PyTorch's scripted version",
                 meets=lambda e, peers: e < peers["ember eager"] and e < peers.get("torch script", float("inf")))]
