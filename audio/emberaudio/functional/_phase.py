"""Inverting and stretching spectrograms, as torchaudio.functional has them: inverse_spectrogram (istft with
the spectrogram's padding and normalisation undone), griffinlim (fast Griffin-Lim phase recovery, librosa's
momentum rule) and phase_vocoder."""
from __future__ import annotations

import math
from typing import Optional, Union

import ember
from ember import Tensor

from ._spectral import _spec_norms


def inverse_spectrogram(spectrogram: Tensor, length: Optional[int], pad: int, window: Tensor, n_fft: int,
                        hop_length: int, win_length: int, normalized: Union[bool, str], center: bool = True,
                        pad_mode: str = "reflect", onesided: bool = True) -> Tensor:
    """(..., freq, frames) complex -> (..., time): the inverse of spectrogram(power=None)."""
    frame_length_norm, window_norm = _spec_norms(normalized)
    if not spectrogram.is_complex():
        raise ValueError("Expected `spectrogram` to be complex dtype.")
    if window_norm:
        spectrogram = spectrogram * window.pow(2.0).sum().sqrt()
    shape = spectrogram.shape
    flat = spectrogram.reshape(-1, shape[-2], shape[-1])
    padded_length: Optional[int] = None
    if length is not None:
        padded_length = length + 2 * pad
    waveform = ember.istft(flat, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                           center=center, normalized=frame_length_norm, onesided=onesided, length=padded_length,
                           return_complex=False)
    if length is not None and pad > 0:
        waveform = waveform[:, pad:-pad]
    return waveform.reshape(list(shape[:-2]) + [waveform.shape[-1]])


def _complex_dtype(real_dtype: int) -> int:
    """The complex dtype of a real one (dtypes are ints in scripted code)."""
    if real_dtype == ember.float64:
        return ember.complex128
    if real_dtype == ember.float32:
        return ember.complex64
    raise ValueError(f"Unexpected dtype {real_dtype}")


def griffinlim(specgram: Tensor, window: Tensor, n_fft: int, hop_length: int, win_length: int, power: float,
               n_iter: int, momentum: float, length: Optional[int], rand_init: bool) -> Tensor:
    """A waveform whose STFT magnitude approaches `specgram` ((..., freq, frames) magnitude**power), by fast
    Griffin-Lim: alternate projections with momentum / (1 + momentum) of the previous rebuild subtracted."""
    if not 0 <= momentum < 1:
        raise ValueError(f"momentum must be in the range [0, 1). Found: {momentum}")
    if n_iter < 0:
        raise ValueError(f"n_iter must be non-negative, got {n_iter}")
    shape = specgram.shape
    magnitude = specgram.reshape([-1] + list(shape[-2:])).pow(1 / power)
    cdtype = _complex_dtype(magnitude.dtype)
    if rand_init:
        angles = ember.rand(magnitude.shape, dtype=cdtype)
    else:
        angles = ember.ones(magnitude.shape, dtype=cdtype)
    previous: Optional[Tensor] = None
    for _ in range(n_iter):
        inverse = ember.istft(magnitude * angles, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                              window=window, length=length)
        rebuilt = ember.stft(inverse, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                             window=window, center=True, pad_mode="reflect", normalized=False, onesided=True,
                             return_complex=True)
        angles = rebuilt
        if momentum and previous is not None:
            angles = angles - previous * (momentum / (1 + momentum))
        angles = angles / (angles.abs() + 1e-16)
        previous = rebuilt
    waveform = ember.istft(magnitude * angles, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                           window=window, length=length)
    return waveform.reshape(list(shape[:-2]) + [waveform.shape[-1]])


def phase_vocoder(complex_specgrams: Tensor, rate: float, phase_advance: Tensor) -> Tensor:
    """Time-stretch (..., freq, frames) complex STFTs by `rate` (> 1 faster): magnitudes interpolated between
    neighbouring frames, phases advanced by each bin's measured instantaneous frequency."""
    if rate == 1.0:
        return complex_specgrams
    if not complex_specgrams.is_complex():
        raise ValueError("phase_vocoder: complex_specgrams must be a complex tensor")
    shape = complex_specgrams.shape
    specs = complex_specgrams.reshape([-1] + list(shape[-2:]))
    real_dtype = specs.real.dtype
    time_steps = ember.arange(0, specs.shape[-1], rate, dtype=real_dtype)
    alphas = time_steps % 1.0
    phase_0 = specs[..., :1].angle()
    specs = ember.nn.functional.pad(specs, [0, 2])
    specs_0 = specs.index_select(-1, time_steps.long())
    specs_1 = specs.index_select(-1, (time_steps + 1).long())
    phase = specs_1.angle() - specs_0.angle() - phase_advance
    phase = phase - 2 * math.pi * ember.round(phase / (2 * math.pi))
    phase = ember.cat([phase_0, (phase + phase_advance)[..., :-1]], dim=-1)
    phase_acc = ember.cumsum(phase, -1)
    magnitude = alphas * specs_1.abs() + (1 - alphas) * specs_0.abs()
    stretched = ember.polar(magnitude, phase_acc)
    return stretched.reshape(list(shape[:-2]) + list(stretched.shape[1:]))
