"""ember.jit.optimize_for_inference on a ResNet-18 block (conv-bn-relu, conv-bn, + identity, relu; 64 channels
at 56 x 56, batch 1, as ResNet-18's first stage): the traced block, then the scripted one, frozen and optimized
(batch norms folded, each conv with its add and relu one _conv_add_relu) against the same block unoptimized, in
one run (ember = optimized; the peer is named 'ember unoptimized'), and PyTorch's torch.jit.optimize_for_inference
of its scripted block when importable."""
from __future__ import annotations

from .runner import Case, best_of, torch


def _block(lib):
    nn = lib.nn

    class BasicBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += identity
            return self.relu(out)

    m = BasicBlock(64).eval()
    for bn in (m.bn1, m.bn2):
        bn.running_mean.uniform_(-0.1, 0.1)
        bn.running_var.uniform_(0.5, 1.5)
    return m


def _measure(lib_name: str, optimized: bool, scripted: bool = False):
    def measure() -> float:
        if lib_name == "torch":
            lib = torch
            m = _block(lib)
            run = lib.jit.optimize_for_inference(lib.jit.script(m))
        else:
            import ember
            import ember.jit
            lib = ember
            m = _block(lib)
            x0 = lib.randn(1, 64, 56, 56)
            compiled = lib.jit.script(m) if scripted else lib.jit.trace(m, x0)
            run = lib.jit.optimize_for_inference(compiled) if optimized else compiled
        x = lib.randn(1, 64, 56, 56)
        with lib.no_grad():
            return best_of(lambda: run(x), reps=5) * 1e3
    return measure


def cases():
    out = []
    for how, scripted in (("traced", False), ("scripted", True)):
        impls = {"ember": _measure("ember", True, scripted), "ember unoptimized": _measure("ember", False, scripted)}
        if torch is not None:
            impls["torch"] = _measure("torch", True)
        out.append(Case(f"jit: ResNet-18 block 64ch 56x56, frozen + optimize_for_inference (ember) vs {how}", "ms",
                        False, impls, target=f"faster than the unoptimized {how} block",
                        meets=lambda e, peers: e < peers["ember unoptimized"]))
    return out
