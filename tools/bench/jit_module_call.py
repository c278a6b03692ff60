"""The cost of calling a compiled module (issue 22): an eager model holding two scripted blocks (each a
Linear(16, 16) and a tanh) called on batch 1 -- the attribute lookups of registered submodules, the compiled
module's call and its graph -- against the same model all eager, for ember and (when importable) PyTorch,
in one run. One definition serves both libraries."""
from __future__ import annotations

from .jit_script import _no_grad
from .runner import Case, per_call, torch


def _model(lib, scripted: bool):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(16, 16)

        def forward(self, x):
            return self.lin(x).tanh()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.jit.script(Block()) if scripted else Block()
            self.b = lib.jit.script(Block()) if scripted else Block()

        def forward(self, x):
            return self.b(self.a(x))

    return Model()


def _measure(lib_name: str, scripted: bool):
    def measure() -> float:
        if lib_name == "ember":
            import ember
            import ember.jit
            lib = ember
        else:
            lib = torch
        lib.manual_seed(0)
        m, x = _model(lib, scripted), lib.randn(1, 16)
        with _no_grad(lib_name):
            m(x)
            return per_call(lambda: m(x)) * 1e6
    return measure


def cases():
    impls = {"ember": _measure("ember", True), "ember eager": _measure("ember", False)}
    if torch is not None:
        impls["torch script"] = _measure("torch", True)
    return [Case("jit: eager model calling two scripted Linear+tanh blocks, batch 1 (ember = scripted)", "us/call",
                 False, impls, target="no slower than the same model all eager")]
