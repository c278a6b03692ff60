"""Transforms that invert or reshape spectrograms, as torchaudio.transforms has them: GriffinLim,
InverseSpectrogram, InverseMelScale (least squares through the filterbank), TimeStretch and LFCC."""
from __future__ import annotations

from typing import Optional

import ember
from ember import Tensor, nn

from .. import functional as F
from ._spectral import AmplitudeToDB, Spectrogram


def _window(window_fn, length, wkwargs):
    return window_fn(length) if wkwargs is None else window_fn(length, **wkwargs)


class GriffinLim(nn.Module):
    __constants__ = ["n_fft", "n_iter", "win_length", "hop_length", "power", "length", "momentum", "rand_init"]

    def __init__(self, n_fft=400, n_iter=32, win_length=None, hop_length=None, window_fn=ember.hann_window, power=2.0,
                 wkwargs=None, momentum=0.99, length=None, rand_init=True):
        super().__init__()
        if not 0 <= momentum < 1:
            raise ValueError(f"momentum must be in the range [0, 1). Found: {momentum}")
        self.n_fft = n_fft
        self.n_iter = n_iter
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.length = length
        self.power = power
        self.momentum = momentum
        self.rand_init = rand_init

    def forward(self, specgram: Tensor) -> Tensor:
        """(..., freq, frames) magnitude**power -> (..., time)."""
        return F.griffinlim(specgram, self.window, self.n_fft, self.hop_length, self.win_length, self.power,
                            self.n_iter, self.momentum, self.length, self.rand_init)


class InverseSpectrogram(nn.Module):
    __constants__ = ["n_fft", "win_length", "hop_length", "pad", "power", "normalized"]

    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, window_fn=ember.hann_window,
                 normalized=False, wkwargs=None, center=True, pad_mode="reflect", onesided=True):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.pad = pad
        self.normalized = normalized
        self.center = center
        self.pad_mode = pad_mode
        self.onesided = onesided

    def forward(self, spectrogram: Tensor, length: Optional[int] = None) -> Tensor:
        return F.inverse_spectrogram(spectrogram, length, self.pad, self.window, self.n_fft, self.hop_length,
                                     self.win_length, self.normalized, self.center, self.pad_mode, self.onesided)


class InverseMelScale(nn.Module):
    """A mel spectrogram back to a linear-frequency one: the least-squares solution of fb^T x = mel (through
    ember.linalg.lstsq), negative values clipped to zero."""
    __constants__ = ["n_stft", "n_mels", "sample_rate", "f_min", "f_max"]

    def __init__(self, n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, norm=None, mel_scale="htk",
                 driver="gels"):
        super().__init__()
        self.n_mels = n_mels
        self.sample_rate = sample_rate
        self.f_max = f_max or float(sample_rate // 2)
        self.f_min = f_min
        self.driver = driver
        if f_min > self.f_max:
            raise ValueError(f"Require f_min: {f_min} <= f_max: {self.f_max}")
        if driver not in ("gels", "gelsy", "gelsd", "gelss"):
            raise ValueError(f'driver must be one of ["gels", "gelsy", "gelsd", "gelss"]. Found {driver}.')
        self.register_buffer("fb", F.melscale_fbanks(n_stft, self.f_min, self.f_max, self.n_mels, self.sample_rate,
                                                     norm, mel_scale))

    def forward(self, melspec: Tensor) -> Tensor:
        """(..., n_mels, time) -> (..., n_stft, time)."""
        shape = melspec.shape
        if shape[-2] != self.n_mels:
            raise ValueError(f"Expected an input with {self.n_mels} mel bins. Found: {shape[-2]}")
        flat = melspec.reshape(-1, shape[-2], shape[-1])
        fb_t = self.fb.transpose(-1, -2).to(flat.dtype).unsqueeze(0).expand(flat.shape[0], -1, -1)
        solution = ember.linalg.lstsq(fb_t, flat, driver=self.driver)[0]
        return ember.relu(solution).reshape(list(shape[:-2]) + [self.fb.shape[0], shape[-1]])


class TimeStretch(nn.Module):
    __constants__ = ["fixed_rate"]

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        super().__init__()
        self.fixed_rate = fixed_rate
        n_fft = (n_freq - 1) * 2
        hop_length = hop_length if hop_length is not None else n_fft // 2
        self.register_buffer("phase_advance", ember.linspace(0, 3.141592653589793 * hop_length, n_freq)[..., None])

    def forward(self, complex_specgrams: Tensor, overriding_rate: Optional[float] = None) -> Tensor:
        """(..., freq, frames) complex -> (..., freq, ceil(frames / rate))."""
        if overriding_rate is None:
            if self.fixed_rate is None:
                raise ValueError("If no fixed_rate is specified, must pass a valid rate to the forward method.")
            rate = self.fixed_rate
        else:
            rate = overriding_rate
        return F.phase_vocoder(complex_specgrams, rate, self.phase_advance)


class LFCC(nn.Module):
    """Linear-frequency cepstral coefficients: a power spectrogram through linear triangular filters, in dB
    (or log with log_lf), then the DCT."""
    __constants__ = ["sample_rate", "n_filter", "n_lfcc", "dct_type", "top_db", "log_lf"]

    def __init__(self, sample_rate=16000, n_filter=128, f_min=0.0, f_max=None, n_lfcc=40, dct_type=2, norm="ortho",
                 log_lf=False, speckwargs=None):
        super().__init__()
        if dct_type != 2:
            raise ValueError(f"DCT type not supported: {dct_type}")
        self.sample_rate = sample_rate
        self.f_min = f_min
        self.f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.n_filter = n_filter
        self.n_lfcc = n_lfcc
        self.dct_type = dct_type
        self.norm = norm
        self.top_db = 80.0
        self.amplitude_to_DB = AmplitudeToDB("power", self.top_db)
        self.Spectrogram = Spectrogram(**(speckwargs or {}))
        if self.n_lfcc > self.Spectrogram.n_fft:
            raise ValueError("Cannot select more LFCC coefficients than # fft bins")
        self.register_buffer("filter_mat", F.linear_fbanks(self.Spectrogram.n_fft // 2 + 1, self.f_min, self.f_max,
                                                           self.n_filter, self.sample_rate))
        self.register_buffer("dct_mat", F.create_dct(self.n_lfcc, self.n_filter, self.norm))
        self.log_lf = log_lf

    def forward(self, waveform: Tensor) -> Tensor:
        """(..., time) -> (..., n_lfcc, frames)."""
        specgram = self.Spectrogram(waveform)
        specgram = ember.matmul(specgram.transpose(-1, -2), self.filter_mat).transpose(-1, -2)
        specgram = ember.log(specgram + 1e-6) if self.log_lf else self.amplitude_to_DB(specgram)
        return ember.matmul(specgram.transpose(-1, -2), self.dct_mat).transpose(-1, -2)
