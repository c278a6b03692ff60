"""Waveform transforms over the later torchaudio.functional additions and the analyses: SpectralCentroid,
SlidingWindowCmn, Vad, Loudness, Convolve, FFTConvolve, AddNoise, Preemphasis, Deemphasis, Speed,
SpeedPerturbation and PitchShift."""
from __future__ import annotations

from typing import Optional, Tuple

import ember
from ember import Tensor, nn

from .. import functional as F


class SpectralCentroid(nn.Module):
    __constants__ = ["sample_rate", "n_fft", "win_length", "hop_length", "pad"]

    def __init__(self, sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0, window_fn=ember.hann_window,
                 wkwargs=None):
        super().__init__()
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        window = window_fn(self.win_length) if wkwargs is None else window_fn(self.win_length, **wkwargs)
        self.register_buffer("window", window)
        self.pad = pad

    def forward(self, waveform: Tensor) -> Tensor:
        return F.spectral_centroid(waveform, self.sample_rate, self.pad, self.window, self.n_fft, self.hop_length,
                                   self.win_length)


class SlidingWindowCmn(nn.Module):
    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
        super().__init__()
        self.cmn_window = cmn_window
        self.min_cmn_window = min_cmn_window
        self.center = center
        self.norm_vars = norm_vars

    def forward(self, specgram: Tensor) -> Tensor:
        """(..., time, freq), as torchaudio's functional takes it."""
        return F.sliding_window_cmn(specgram, self.cmn_window, self.min_cmn_window, self.center, self.norm_vars)


class Vad(nn.Module):
    def __init__(self, sample_rate: int, trigger_level: float = 7.0, trigger_time: float = 0.25,
                 search_time: float = 1.0, allowed_gap: float = 0.25, pre_trigger_time: float = 0.0,
                 boot_time: float = 0.35, noise_up_time: float = 0.1, noise_down_time: float = 0.01,
                 noise_reduction_amount: float = 1.35, measure_freq: float = 20.0,
                 measure_duration: Optional[float] = None, measure_smooth_time: float = 0.4,
                 hp_filter_freq: float = 50.0, lp_filter_freq: float = 6000.0, hp_lifter_freq: float = 150.0,
                 lp_lifter_freq: float = 2000.0) -> None:
        super().__init__()
        self.sample_rate = sample_rate
        self.trigger_level = trigger_level
        self.trigger_time = trigger_time
        self.search_time = search_time
        self.allowed_gap = allowed_gap
        self.pre_trigger_time = pre_trigger_time
        self.boot_time = boot_time
        self.noise_up_time = noise_up_time
        self.noise_down_time = noise_down_time
        self.noise_reduction_amount = noise_reduction_amount
        self.measure_freq = measure_freq
        self.measure_duration = measure_duration
        self.measure_smooth_time = measure_smooth_time
        self.hp_filter_freq = hp_filter_freq
        self.lp_filter_freq = lp_filter_freq
        self.hp_lifter_freq = hp_lifter_freq
        self.lp_lifter_freq = lp_lifter_freq

    def forward(self, waveform: Tensor) -> Tensor:
        return F.vad(waveform, self.sample_rate, self.trigger_level, self.trigger_time, self.search_time,
                     self.allowed_gap, self.pre_trigger_time, self.boot_time, self.noise_up_time,
                     self.noise_down_time, self.noise_reduction_amount, self.measure_freq, self.measure_duration,
                     self.measure_smooth_time, self.hp_filter_freq, self.lp_filter_freq, self.hp_lifter_freq,
                     self.lp_lifter_freq)


class Loudness(nn.Module):
    def __init__(self, sample_rate):
        super().__init__()
        self.sample_rate = sample_rate

    def forward(self, wavefrom: Tensor) -> Tensor:
        return F.loudness(wavefrom, self.sample_rate)


class Convolve(nn.Module):
    def __init__(self, mode="full"):
        super().__init__()
        F._convolution._check_mode(mode)
        self.mode = mode

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return F.convolve(x, y, mode=self.mode)


class FFTConvolve(Convolve):
    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return F.fftconvolve(x, y, mode=self.mode)


class AddNoise(nn.Module):
    def forward(self, waveform: Tensor, noise: Tensor, snr: Tensor, lengths: Optional[Tensor] = None) -> Tensor:
        return F.add_noise(waveform, noise, snr, lengths)


class Preemphasis(nn.Module):
    def __init__(self, coeff=0.97):
        super().__init__()
        self.coeff = coeff

    def forward(self, waveform: Tensor) -> Tensor:
        return F.preemphasis(waveform, coeff=self.coeff)


class Deemphasis(Preemphasis):
    def forward(self, waveform: Tensor) -> Tensor:
        return F.deemphasis(waveform, coeff=self.coeff)


class Speed(nn.Module):
    def __init__(self, orig_freq, factor):
        super().__init__()
        self.orig_freq = orig_freq
        self.factor = factor

    def forward(self, waveform: Tensor, lengths: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        return F.speed(waveform, self.orig_freq, self.factor, lengths)


class SpeedPerturbation(nn.Module):
    """Speed with a factor drawn uniformly from `factors` on every call."""

    def __init__(self, orig_freq, factors):
        super().__init__()
        if len(factors) == 0:
            raise ValueError("factors must not be empty")
        self.speeders = nn.ModuleList([Speed(orig_freq=orig_freq, factor=factor) for factor in factors])

    def forward(self, waveform: Tensor, lengths: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        index = int(ember.randint(len(self.speeders), ()))
        result: Optional[Tuple[Tensor, Optional[Tensor]]] = None
        k = 0
        for speeder in self.speeders:  # a ModuleList is indexed by constants in scripted code (an unrolled loop)
            if k == index:
                result = speeder(waveform, lengths)
            k += 1
        if result is None:
            raise RuntimeError("Speeder not found; execution should have never reached here.")
        return result


class PitchShift(nn.Module):
    __constants__ = ["sample_rate", "n_steps", "bins_per_octave", "n_fft", "win_length", "hop_length"]

    def __init__(self, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
                 window_fn=ember.hann_window, wkwargs=None):
        super().__init__()
        self.sample_rate = sample_rate
        self.n_steps = n_steps
        self.bins_per_octave = bins_per_octave
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 4
        window = window_fn(self.win_length) if wkwargs is None else window_fn(self.win_length, **wkwargs)
        self.register_buffer("window", window)

    def forward(self, waveform: Tensor) -> Tensor:
        return F.pitch_shift(waveform, self.sample_rate, self.n_steps, self.bins_per_octave, self.n_fft,
                             self.win_length, self.hop_length, self.window)
