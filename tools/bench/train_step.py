"""Issue 6 speed targets: eager training steps (forward, backward, optim.SGD) beside PyTorch 2.13 when
importable. Peer figures from the issue (median of 3 runs here): MLP 784-256-256-10 at batch 64
1.25 ms in PyTorch (0.99 ms as a jitted JAX step) - ember at most 0.9 ms; LeNet-style CNN at batch
64 on 1x28x28 53.5 ms in PyTorch - ember at most 27 ms."""
from __future__ import annotations

import ember

from .runner import Case, best_of, ember_and_torch, per_call, torch


def _lib(lib):
    return (ember, ember.nn, ember.nn.functional) if lib == "ember" else (torch, torch.nn, torch.nn.functional)


def _mlp(nn):
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))


def _lenet(nn):
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(9216, 128), nn.ReLU(), nn.Linear(128, 10))


def _step(build, input_shape, timer):
    def factory(lib):
        t, nn, F = _lib(lib)
        t.manual_seed(0)
        model = build(nn)
        x = t.randn(*input_shape)
        target = t.randint(0, 10, (input_shape[0],))
        opt = t.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def step():
            opt.zero_grad()
            F.cross_entropy(model(x), target).backward()
            opt.step()
        return lambda: timer(step) * 1e3
    return factory


def cases():
    return [
        Case("MLP 784-256-256-10 train step b64", "ms", False,
             ember_and_torch(_step(_mlp, (64, 784), lambda f: per_call(f, 0.3))), "<= 0.9 ms",
             lambda e, p: e <= 0.9),
        Case("LeNet train step b64", "ms", False,
             ember_and_torch(_step(_lenet, (64, 1, 28, 28), lambda f: best_of(f, 5))), "<= 27 ms",
             lambda e, p: e <= 27),
    ]
