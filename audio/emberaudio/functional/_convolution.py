"""Convolution, mixing and speed/pitch changes, as torchaudio.functional has them (its later additions):
convolve / fftconvolve (full, valid, same), add_noise at a signal-to-noise ratio, preemphasis / deemphasis,
speed (resampling) and pitch_shift (phase-vocoder stretch, then resampling)."""
from __future__ import annotations

import math
from typing import List, Optional, Tuple

import ember
from ember import Tensor

from ._filters import lfilter
from ._phase import phase_vocoder
from ._resample import resample

def _check_mode(mode: str) -> None:
    if mode != "full" and mode != "valid" and mode != "same":  # a module-level list is no value in scripted code
        raise ValueError(f"Unrecognized mode value '{mode}'. Please specify one of ['full', 'valid', 'same'].")


def _check_shapes(x: Tensor, y: Tensor) -> None:
    if x.dim() != y.dim():
        raise ValueError(f"The operands must be the same dimension (got {x.dim()} and {y.dim()}).")
    for xi, yi in zip(x.shape[:-1], y.shape[:-1]):
        if not (xi == yi or xi == 1 or yi == 1):
            raise ValueError(f"Leading dimensions of x and y are not broadcastable (got {x.shape} and {y.shape}).")


def _apply_mode(result: Tensor, x_length: int, y_length: int, mode: str) -> Tensor:
    if mode == "full":
        return result
    target = max(x_length, y_length) - min(x_length, y_length) + 1 if mode == "valid" else x_length
    start = (result.shape[-1] - target) // 2
    return result[..., start:start + target]


def convolve(x: Tensor, y: Tensor, mode: str = "full") -> Tensor:
    """Direct convolution along the last dim, leading dims broadcast (a grouped conv1d)."""
    _check_mode(mode)
    _check_shapes(x, y)
    if x.shape[-1] < y.shape[-1]:
        x, y = y, x
    lead: List[int] = [max(i, j) for i, j in zip(x.shape[:-1], y.shape[:-1])]
    x = x.expand(lead + [x.shape[-1]]).reshape(-1, x.shape[-1])
    y = y.expand(lead + [y.shape[-1]]).reshape(-1, y.shape[-1])
    out = ember.nn.functional.conv1d(x.unsqueeze(0), y.flip(-1).unsqueeze(1), groups=x.shape[0],
                                     padding=y.shape[-1] - 1)
    return _apply_mode(out.reshape(lead + [-1]), x.shape[-1], y.shape[-1], mode)


def fftconvolve(x: Tensor, y: Tensor, mode: str = "full") -> Tensor:
    """The same convolution through real FFTs of length len(x) + len(y) - 1."""
    _check_mode(mode)
    _check_shapes(x, y)
    n = x.shape[-1] + y.shape[-1] - 1
    result = ember.fft.irfft(ember.fft.rfft(x, n=n) * ember.fft.rfft(y, n=n), n=n)
    return _apply_mode(result, x.shape[-1], y.shape[-1], mode)


def add_noise(waveform: Tensor, noise: Tensor, snr: Tensor, lengths: Optional[Tensor] = None) -> Tensor:
    """waveform + noise scaled so that 10 log10(E_signal / E_noise) = snr (dB), energies over the first
    `lengths` samples of each signal when given."""
    if not (waveform.dim() - 1 == noise.dim() - 1 and noise.dim() - 1 == snr.dim()):
        raise ValueError("Input leading dimensions don't match.")
    if lengths is not None and lengths.dim() != snr.dim():
        raise ValueError("Input leading dimensions don't match.")
    length = waveform.shape[-1]
    if length != noise.shape[-1]:
        raise ValueError(f"Length dimensions of waveform and noise don't match (got {length} and {noise.shape[-1]}).")
    if lengths is not None:
        mask = ember.arange(0, length).expand(waveform.shape) < lengths.unsqueeze(-1)
        masked_waveform = waveform * mask
        masked_noise = noise * mask
    else:
        masked_waveform = waveform
        masked_noise = noise
    energy_signal = masked_waveform.pow(2).sum(dim=-1)
    energy_noise = masked_noise.pow(2).sum(dim=-1)
    original_snr_db = 10 * (ember.log10(energy_signal) - ember.log10(energy_noise))
    scale = 10 ** ((original_snr_db - snr) / 20.0)
    return waveform + scale.unsqueeze(-1) * noise


def preemphasis(waveform: Tensor, coeff: float = 0.97) -> Tensor:
    """y[n] = x[n] - coeff * x[n - 1]."""
    return ember.cat([waveform[..., :1], waveform[..., 1:] - coeff * waveform[..., :-1]], dim=-1)


def deemphasis(waveform: Tensor, coeff: float = 0.97) -> Tensor:
    """The inverse IIR filter y[n] = x[n] + coeff * y[n - 1] (clamped to [-1, 1], as lfilter does)."""
    a = ember.tensor([1.0, -coeff], dtype=waveform.dtype)
    b = ember.tensor([1.0, 0.0], dtype=waveform.dtype)
    return lfilter(waveform, a, b)


def speed(waveform: Tensor, orig_freq: int, factor: float,
          lengths: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
    """Plays `factor` times faster (pitch follows): resampled from factor * orig_freq to orig_freq. Returns
    (waveform, lengths scaled likewise or None)."""
    source = int(factor * orig_freq)
    target = int(orig_freq)
    g = math.gcd(source, target)
    source = source // g
    target = target // g
    out_lengths: Optional[Tensor] = None
    if lengths is not None:
        out_lengths = ember.ceil(lengths * target / source).to(lengths.dtype)
    return resample(waveform, source, target), out_lengths


def _stretch_waveform(waveform: Tensor, n_steps: int, bins_per_octave: int, n_fft: int, win_length: Optional[int],
                      hop_length: Optional[int], window: Optional[Tensor]) -> Tensor:
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    w = ember.hann_window(win, dtype=waveform.dtype) if window is None else window
    flat = waveform.reshape(-1, waveform.shape[-1])
    rate = 2.0 ** (-float(n_steps) / bins_per_octave)
    spec = ember.stft(flat, n_fft=n_fft, hop_length=hop, win_length=win, window=w, center=True,
                      pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
    phase_advance = ember.linspace(0, math.pi * hop, spec.shape[-2], dtype=flat.dtype)[..., None]
    stretched = phase_vocoder(spec, rate, phase_advance)
    return ember.istft(stretched, n_fft=n_fft, hop_length=hop, win_length=win, window=w,
                       length=int(round(waveform.shape[-1] / rate)))


def pitch_shift(waveform: Tensor, sample_rate: int, n_steps: int, bins_per_octave: int = 12, n_fft: int = 512,
                win_length: Optional[int] = None, hop_length: Optional[int] = None,
                window: Optional[Tensor] = None) -> Tensor:
    """Shifts the pitch by n_steps / bins_per_octave octaves, keeping the duration: stretch by the phase
    vocoder, resample back, cut or zero-pad to the input's length."""
    shape = waveform.shape
    stretched = _stretch_waveform(waveform, n_steps, bins_per_octave, n_fft, win_length, hop_length, window)
    rate = 2.0 ** (-float(n_steps) / bins_per_octave)
    shifted = resample(stretched, int(sample_rate / rate), sample_rate)
    length = shape[-1]
    if shifted.shape[-1] > length:
        shifted = shifted[..., :length]
    else:
        shifted = ember.nn.functional.pad(shifted, [0, length - shifted.shape[-1]])
    return shifted.reshape(list(shape[:-1]) + [length])
