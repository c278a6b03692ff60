"""Wav2Letter training steps (issue 25), beside PyTorch 2.13 when importable. torchaudio's sizes: the 250->2000
kernel-32 convolution (16M of the model's 23.3M weights) and the 1x1 2000->2000 one, forward+backward on a batch
of 8 at 32 frames (25 frames/s features, halved by the first layer), and the whole network's Adam update on
8 x 40 log-mels x 64 frames. The sizes examples/speech_digits trains (0.7M weights): one CTC + Adam update on its
batch of 16 x 40 log-mels x 40 frames."""
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


def _speech_digits_step(lib):
    """examples/speech_digits's Wav2Letter (channels 128, hidden 256, kernels 11/5/5; built here so the bench needs
    no recipe import) and one CTC loss + gradient clipping + Adam update."""
    t = _lib(lib)
    nn = t.nn
    t.manual_seed(0)
    sizes = [(40, 128, 11, 2)] + [(128, 128, 5, 1)] * 5 + [(128, 256, 5, 1), (256, 256, 1, 1), (256, 26, 1, 1)]
    convs = [nn.Conv1d(cin, cout, k, stride=s, padding=k // 2) for cin, cout, k, s in sizes]
    model = nn.Sequential(*[m for conv in convs for m in (conv, nn.ReLU())])
    opt = t.optim.Adam(model.parameters(), lr=1e-3)
    x = t.randn(16, 40, 40)
    targets = t.randint(1, 26, (16, 4))
    frames, target_frames = t.full((16,), 20, dtype=t.int64), t.full((16,), 4, dtype=t.int64)

    def step():
        logp = nn.functional.log_softmax(model(x), dim=1).permute(2, 0, 1)
        loss = nn.functional.ctc_loss(logp, targets, frames, target_frames, zero_infinity=True)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
    return lambda: best_of(step, 5) * 1e3


def cases() -> list[Case]:
    return [
        Case("conv1d 250->2000 k32 8x250x32 f+b", "ms", False, ember_and_torch(_conv1d(250, 2000, 32)),
             "< PyTorch's", lambda e, p: e < p.get("torch", float("inf"))),
        Case("conv1d k1 2000->2000 8x2000x32 f+b", "ms", False, ember_and_torch(_conv1d(2000, 2000, 1)),
             "< PyTorch's", lambda e, p: e < p.get("torch", float("inf"))),
        Case("Wav2Letter Adam step 8x40x64", "ms", False, ember_and_torch(_wav2letter_step), "< PyTorch's",
             lambda e, p: e < p.get("torch", float("inf"))),
        Case("speech_digits Wav2Letter CTC+Adam step 16x40x40", "ms", False, ember_and_torch(_speech_digits_step),
             "< PyTorch's", lambda e, p: e < p.get("torch", float("inf"))),
    ]
