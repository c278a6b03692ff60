"""The convolutions that dominate a Wav2Letter training step in examples/speech_digits (issue 25): the 250->2000
kernel-32 convolution (16M of the model's 23.3M weights) and the 1x1 2000->2000 one, forward+backward on a batch
of 8 at 32 frames (the recipe's 25 frames/s features, halved by the first layer), and the whole network's Adam
update on 8 x 40 log-mels x 64 frames, beside PyTorch 2.13 when importable."""
from __future__ import annotations

import ember

from .runner import Case, best_of, ember_and_torch, torch


def _lib(lib):
    return ember if lib == "ember" else torch


def _conv1d(cin, cout, kernel):
    def factory(lib):
        t = _lib(lib)
        t.manual_seed(0)
        x = t.randn(8, cin, 32, requires_grad=True)
        w = (t.randn(cout, cin, kernel) * (2.0 / (cin * kernel)) ** 0.5).requires_grad_(True)
        b = t.zeros(cout, requires_grad=True)

        def step():
            y = t.nn.functional.conv1d(x, w, b, padding=kernel // 2)
            y.backward(t.ones_like(y))
        return lambda: best_of(step, 3) * 1e3
    return factory


def _wav2letter_step(lib):
    """Wav2Letter's layer layout (torchaudio's, built here so PyTorch needs no torchaudio) and one Adam update."""
    t = _lib(lib)
    nn = t.nn
    t.manual_seed(0)
    convs = [nn.Conv1d(40, 250, 48, 2, 23)] + [nn.Conv1d(250, 250, 7, padding=3) for _ in range(7)]
    convs += [nn.Conv1d(250, 2000, 32, padding=16), nn.Conv1d(2000, 2000, 1), nn.Conv1d(2000, 26, 1)]
    model = nn.Sequential(*[m for conv in convs for m in (conv, nn.ReLU())])
    opt = t.optim.Adam(model.parameters(), lr=1e-4)
    x = t.randn(8, 40, 64)

    def step():
        loss = nn.functional.log_softmax(model(x), dim=1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return lambda: best_of(step, 3) * 1e3


def cases() -> list[Case]:
    return [
        Case("conv1d 250->2000 k32 8x250x32 f+b", "ms", False, ember_and_torch(_conv1d(250, 2000, 32)),
             "< PyTorch's", lambda e, p: e < p.get("torch", float("inf"))),
        Case("conv1d k1 2000->2000 8x2000x32 f+b", "ms", False, ember_and_torch(_conv1d(2000, 2000, 1)),
             "< PyTorch's", lambda e, p: e < p.get("torch", float("inf"))),
        Case("Wav2Letter Adam step 8x40x64", "ms", False, ember_and_torch(_wav2letter_step), "< PyTorch's",
             lambda e, p: e < p.get("torch", float("inf"))),
    ]
