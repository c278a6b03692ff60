"""Spectral transforms as nn.Modules with torchaudio's arguments and buffers (the window, the mel
filterbank and the DCT matrix are buffers, so they move with .to() and live in the state_dict)."""
from __future__ import annotations

import math
import warnings

import ember
from ember import Tensor, nn

from .. import functional as F


class Spectrogram(nn.Module):
    __constants__ = ["n_fft", "win_length", "hop_length", "pad", "power", "normalized"]

    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, window_fn=ember.hann_window, power=2.0,
                 normalized=False, wkwargs=None, center=True, pad_mode="reflect", onesided=True, return_complex=None):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        window = window_fn(self.win_length) if wkwargs is None else window_fn(self.win_length, **wkwargs)
        self.register_buffer("window", window)
        self.pad = pad
        self.power = power
        self.normalized = normalized
        self.center = center
        self.pad_mode = pad_mode
        self.onesided = onesided
        if return_complex is not None:
            warnings.warn("`return_complex` argument is now deprecated and is not effective. `power=None` gives "
                          "a complex spectrogram.", stacklevel=2)

    def forward(self, waveform: Tensor) -> Tensor:
        return F.spectrogram(waveform, self.pad, self.window, self.n_fft, self.hop_length, self.win_length,
                             self.power, self.normalized, self.center, self.pad_mode, self.onesided)


class AmplitudeToDB(nn.Module):
    __constants__ = ["multiplier", "amin", "ref_value", "db_multiplier"]

    def __init__(self, stype="power", top_db=None):
        super().__init__()
        self.stype = stype
        if top_db is not None and top_db < 0:
            raise ValueError("top_db must be positive value")
        self.top_db = top_db
        self.multiplier = 10.0 if stype == "power" else 20.0
        self.amin = 1e-10
        self.ref_value = 1.0
        self.db_multiplier = math.log10(max(self.amin, self.ref_value))

    def forward(self, x: Tensor) -> Tensor:
        return F.amplitude_to_DB(x, self.multiplier, self.amin, self.db_multiplier, self.top_db)


class MelScale(nn.Module):
    __constants__ = ["n_mels", "sample_rate", "f_min", "f_max"]

    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=None, mel_scale="htk"):
        super().__init__()
        self.n_mels = n_mels
        self.sample_rate = sample_rate
        self.f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.f_min = f_min
        self.norm = norm
        self.mel_scale = mel_scale
        if f_min > self.f_max:
            raise ValueError(f"Require f_min: {f_min} <= f_max: {self.f_max}")
        self.register_buffer("fb", F.melscale_fbanks(n_stft, self.f_min, self.f_max, self.n_mels, self.sample_rate,
                                                     self.norm, self.mel_scale))

    def forward(self, specgram: Tensor) -> Tensor:
        """(..., freq, time) -> (..., n_mels, time)."""
        return ember.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)


class MelSpectrogram(nn.Module):
    __constants__ = ["sample_rate", "n_fft", "win_length", "hop_length", "pad", "n_mels", "f_min"]

    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0, f_max=None, pad=0,
                 n_mels=128, window_fn=ember.hann_window, power=2.0, normalized=False, wkwargs=None, center=True,
                 pad_mode="reflect", onesided=None, norm=None, mel_scale="htk"):
        super().__init__()
        if onesided is not None:
            warnings.warn("Argument 'onesided' has been deprecated and has no influence on the behavior of this "
                          "module.", stacklevel=2)
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.pad = pad
        self.power = power
        self.normalized = normalized
        self.n_mels = n_mels
        self.f_max = f_max
        self.f_min = f_min
        self.spectrogram = Spectrogram(n_fft=self.n_fft, win_length=self.win_length, hop_length=self.hop_length,
                                       pad=self.pad, window_fn=window_fn, power=self.power, normalized=self.normalized,
                                       wkwargs=wkwargs, center=center, pad_mode=pad_mode, onesided=True)
        self.mel_scale = MelScale(self.n_mels, self.sample_rate, self.f_min, self.f_max, self.n_fft // 2 + 1, norm,
                                  mel_scale)

    def forward(self, waveform: Tensor) -> Tensor:
        return self.mel_scale(self.spectrogram(waveform))


class MFCC(nn.Module):
    __constants__ = ["sample_rate", "n_mfcc", "dct_type", "top_db", "log_mels"]

    def __init__(self, sample_rate=16000, n_mfcc=40, dct_type=2, norm="ortho", log_mels=False, melkwargs=None):
        super().__init__()
        if dct_type not in (2,):
            raise ValueError(f"DCT type not supported: {dct_type}")
        self.sample_rate = sample_rate
        self.n_mfcc = n_mfcc
        self.dct_type = dct_type
        self.norm = norm
        self.top_db = 80.0
        self.amplitude_to_DB = AmplitudeToDB("power", self.top_db)
        self.MelSpectrogram = MelSpectrogram(sample_rate=self.sample_rate, **(melkwargs or {}))
        if self.n_mfcc > self.MelSpectrogram.n_mels:
            raise ValueError("Cannot select more MFCC coefficients than # mel bins")
        self.register_buffer("dct_mat", F.create_dct(self.n_mfcc, self.MelSpectrogram.n_mels, self.norm))
        self.log_mels = log_mels

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., n_mfcc, frames)."""
        mel = self.MelSpectrogram(waveform)
        mel = ember.log(mel + 1e-6) if self.log_mels else self.amplitude_to_DB(mel)
        return ember.matmul(mel.transpose(-1, -2), self.dct_mat).transpose(-1, -2)
