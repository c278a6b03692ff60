"""Issue 22's script speed target: a scripted function of 50 small ops on 1-element tensors, against the
same function run eagerly, for ember and (when importable) PyTorch's TorchScript, in one run. The
function is written with Tensor methods and operators only, so one definition serves both libraries."""
from __future__ import annotations

from .runner import Case, per_call, torch


def fifty_small_ops(x):
    # ten lines of five ops each: mul, add, sin, div, sub
    x = (x * 1.01 + 0.5).sin() - x / 3.0
    x = (x * 1.02 + 0.4).sin() - x / 3.1
    x = (x * 1.03 + 0.3).sin() - x / 3.2
    x = (x * 1.04 + 0.2).sin() - x / 3.3
    x = (x * 1.05 + 0.1).sin() - x / 3.4
    x = (x * 0.99 - 0.1).sin() - x / 3.5
    x = (x * 0.98 - 0.2).sin() - x / 3.6
    x = (x * 0.97 - 0.3).sin() - x / 3.7
    x = (x * 0.96 - 0.4).sin() - x / 3.8
    x = (x * 0.95 - 0.5).sin() - x / 3.9
    return x


def _measure(lib: str, scripted: bool):
    def measure() -> float:
        if lib == "ember":
            import ember
            import ember.jit
            x, fn = ember.tensor([0.25]), fifty_small_ops
            if scripted:
                fn = ember.jit.script(fifty_small_ops)
        else:
            x, fn = torch.tensor([0.25]), fifty_small_ops
            if scripted:
                fn = torch.jit.script(fifty_small_ops)
        with _no_grad(lib):
            fn(x)
            return per_call(lambda: fn(x)) * 1e6
    return measure


def _no_grad(lib: str):
    import ember
    return ember.no_grad() if lib == "ember" else torch.no_grad()


def cases():
    impls = {"ember": _measure("ember", True), "ember eager": _measure("ember", False)}
    if torch is not None:
        impls["torch script"] = _measure("torch", True)
        impls["torch eager"] = _measure("torch", False)
    # "ember" is the scripted function (the runner reports ratios against it)
    return [Case("jit: 50 small ops on 1-element tensors (ember = scripted)", "us/call", False, impls,
                 target="scripted faster than eager ember and than PyTorch's scripted version",
                 meets=lambda e, peers: e < peers["ember eager"] and e < peers.get("torch script", float("inf")))]
