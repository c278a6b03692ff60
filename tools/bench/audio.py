"""Issue 25's speed targets: MelSpectrogram of 16 one-second 16 kHz clips, and resampling 60 s of
44.1 kHz audio to 16 kHz, against librosa (and torchaudio when it imports)."""
from __future__ import annotations

import numpy as np

from .runner import Case, best_of

try:
    import librosa
except ImportError:  # pragma: no cover - a test dependency
    librosa = None
try:
    import torch
except Exception:
    torch = None
try:
    import torchaudio
except Exception:  # torchaudio is not installed beside the torch wheel here
    torchaudio = None


def _clips(n, length, sr, seed=0):
    t = np.arange(length) / sr
    rng = np.random.default_rng(seed)
    return (np.sin(2 * np.pi * 440 * t)[None] + 0.1 * rng.standard_normal((n, length))).astype(np.float32)


def _mel(lib):
    x = _clips(16, 16000, 16000)
    if lib == "ember":
        import ember
        import emberaudio
        mel = emberaudio.transforms.MelSpectrogram(16000, n_fft=400, hop_length=160, n_mels=80)
        xe = ember.from_numpy(x)
        return lambda: best_of(lambda: mel(xe)) * 1e3
    if lib == "librosa":
        return lambda: best_of(lambda: librosa.feature.melspectrogram(
            y=x, sr=16000, n_fft=400, hop_length=160, n_mels=80, htk=True, norm=None, pad_mode="reflect")) * 1e3
    xt = torch.from_numpy(x)
    if lib == "torch":
        return _torch_mel(xt)
    mel = torchaudio.transforms.MelSpectrogram(16000, n_fft=400, hop_length=160, n_mels=80)
    return lambda: best_of(lambda: mel(xt)) * 1e3


def _torch_mel(xt):
    """torchaudio's MelSpectrogram written out on PyTorch (for when torchaudio does not import): its spectrogram
    is torch.stft (centred, reflect padding, periodic Hann window) squared in magnitude, then a matmul with
    the HTK filterbank (its defaults); the filterbank is a constant built once, as torchaudio's module does."""
    import emberaudio
    fb = torch.from_numpy(emberaudio.functional.melscale_fbanks(201, 0.0, 8000.0, 80, 16000).numpy())
    window = torch.hann_window(400)

    def mel():
        spec = torch.stft(xt, 400, 160, 400, window, center=True, pad_mode="reflect", return_complex=True)
        return torch.matmul(spec.abs().pow(2.0).transpose(-1, -2), fb).transpose(-1, -2)
    return lambda: best_of(mel) * 1e3


def _resample(lib):
    x = _clips(1, 44100 * 60, 44100)[0]
    if lib == "ember":
        import ember
        import emberaudio
        resampler = emberaudio.transforms.Resample(44100, 16000)
        xe = ember.from_numpy(x)
        return lambda: best_of(lambda: resampler(xe)) * 1e3
    if lib == "librosa":
        return lambda: best_of(lambda: librosa.resample(x, orig_sr=44100, target_sr=16000)) * 1e3
    resampler = torchaudio.transforms.Resample(44100, 16000)
    xt = torch.from_numpy(x)
    return lambda: best_of(lambda: resampler(xt)) * 1e3


def _libs(factory, torch_fallback=False):
    """ember, librosa, and torchaudio; with torch_fallback, torchaudio's computation on plain PyTorch when torch
    imports but torchaudio does not."""
    libs = {"ember": factory("ember")}
    if librosa is not None:
        libs["librosa"] = factory("librosa")
    if torchaudio is not None:
        libs["torchaudio"] = factory("torchaudio")
    elif torch_fallback and torch is not None:
        libs["torch"] = factory("torch")
    return libs


def _faster_than_all(e, peers):
    return all(e < p for lib, p in peers.items() if lib != "ember")


def cases() -> list[Case]:
    return [
        Case("MelSpectrogram, 16 x 1 s at 16 kHz", "ms", False, _libs(_mel, torch_fallback=True),
             "< librosa and torchaudio (or its computation on torch)",
             _faster_than_all),
        Case("resample 60 s 44.1 -> 16 kHz", "ms", False, _libs(_resample), "< librosa and torchaudio",
             _faster_than_all),
    ]
