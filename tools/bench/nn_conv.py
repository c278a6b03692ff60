"""Issue 5 speed targets: conv2d 3x3 64->64 on 8x64x56x56 (forward, and forward+backward), and a
ResNet-18 training step (forward, backward, SGD) at batch 8 on 3x224x224, beside PyTorch 2.13 when
importable. Peer figures from the issue (median of 3 runs here): conv forward 15.5 ms, forward+
backward 37.8 ms, ResNet-18 step 550 ms."""
from __future__ import annotations

import ember

from .runner import Case, best_of, ember_and_torch, torch


def _lib(lib):
    if lib == "ember":
        import ember.nn as nn
        return ember, nn, ember.nn.functional
    return torch, torch.nn, torch.nn.functional


def _conv(backward, channels_last=False):
    def factory(lib):
        if lib == "numpy":
            return None
        t, _, F = _lib(lib)
        t.manual_seed(0)
        x = t.randn(8, 64, 56, 56)
        w = t.randn(64, 64, 3, 3) * 0.05
        if channels_last:  # as model.to(memory_format=channels_last) and a channels_last batch
            x, w = x.to(memory_format=t.channels_last), w.to(memory_format=t.channels_last)
        x, w = x.requires_grad_(backward), w.requires_grad_(backward)
        b = t.zeros(64, requires_grad=backward)

        def step():
            y = F.conv2d(x, w, b, padding=1)
            if backward:
                y.backward(t.ones_like(y))
        return lambda: best_of(step, 3) * 1e3
    return factory


def _resnet18(t, nn, F):
    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return F.relu(y + (x if self.down is None else self.down(x)))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    return nn.Sequential(*layers)


def resnet_step(lib, bf16=False):
    """One ResNet-18 batch-8 SGD step (forward, backward, update), under bf16 CPU autocast if asked."""
    t, nn, F = _lib(lib)
    t.manual_seed(0)
    model = _resnet18(t, nn, F)
    x = t.randn(8, 3, 224, 224)
    target = t.randint(0, 1000, (8,))
    params = list(model.parameters())

    def step():
        for p in params:
            p.grad = None
        with t.autocast("cpu", dtype=t.bfloat16, enabled=bf16):
            loss = F.cross_entropy(model(x), target)
        loss.backward()
        with t.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
    return step


def _resnet_step(lib):
    if lib == "numpy":
        return None
    step = resnet_step(lib)
    return lambda: best_of(step, 2) * 1e3


def cases():
    return [
        Case("conv2d 3x3 64->64 8x64x56x56 fwd", "ms", False, ember_and_torch(_conv(False)), "<= 15.5 ms",
             lambda e, p: e <= 15.5),
        Case("conv2d 3x3 64->64 fwd+bwd", "ms", False, ember_and_torch(_conv(True)), "<= 38 ms",
             lambda e, p: e <= 38),
        # Issue 20: channels_last no slower than ember's NCHW (19 ms there) and faster than PyTorch's (28 ms).
        Case("conv2d 3x3 64->64 fwd+bwd channels_last", "ms", False, ember_and_torch(_conv(True, True)),
             "<= 19 ms and < PyTorch's", lambda e, p: e <= 19 and e < p.get("torch", float("inf"))),
        Case("ResNet-18 train step, batch 8", "ms", False, ember_and_torch(_resnet_step), "<= 550 ms",
             lambda e, p: e <= 550),
    ]
