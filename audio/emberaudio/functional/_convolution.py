"""Convolution, mixing and speed/pitch changes, as torchaudio.functional has them (its later additions):
convolve / fftconvolve (full, valid, same), add_noise at a signal-to-noise ratio, preemphasis / deemphasis,
speed (resampling) and pitch_shift (phase-vocoder stretch, then resampling)."""
from __future__ import annotations

import math

import ember

from ._filters import lfilter
from ._phase import phase_vocoder
from ._resample import resample

_MODES = ["full", "valid", "same"]


def _check_mode(mode):
    if mode not in _MODES:
        raise ValueError(f"Unrecognized mode value '{mode}'. Please specify one of {_MODES}.")


def _check_shapes(x, y):
    if x.dim() != y.dim():
        raise ValueError(f"The operands must be the same dimension (got {x.dim()} and {y.dim()}).")
    for xi, yi in zip(x.shape[:-1], y.shape[:-1]):
        if not (xi == yi or xi == 1 or yi == 1):
            raise ValueError(f"Leading dimensions of x and y are not broadcastable (got {x.shape} and {y.shape}).")


def _apply_mode(result, x_length, y_length, mode):
    if mode == "full":
        return result
    target = max(x_length, y_length) - min(x_length, y_length) + 1 if mode == "valid" else x_length
    start = (result.shape[-1] - target) // 2
    return result[..., start:start + target]


def convolve(x, y, mode="full"):
    """Direct convolution along the last dim, leading dims broadcast (a grouped conv1d)."""
    _check_mode(mode)
    _check_shapes(x, y)
    if x.shape[-1] < y.shape[-1]:
        x, y = y, x
    lead = [max(i, j) for i, j in zip(x.shape[:-1], y.shape[:-1])]
    x = x.expand(*lead, x.shape[-1]).reshape(-1, x.shape[-1])
    y = y.expand(*lead, y.shape[-1]).reshape(-1, y.shape[-1])
    out = ember.nn.functional.conv1d(x.unsqueeze(0), y.flip(-1).unsqueeze(1), groups=x.shape[0],
                                     padding=y.shape[-1] - 1)
    return _apply_mode(out.reshape(*lead, -1), x.shape[-1], y.shape[-1], mode)


def fftconvolve(x, y, mode="full"):
    """The same convolution through real FFTs of length len(x) + len(y) - 1."""
    _check_mode(mode)
    _check_shapes(x, y)
    n = x.shape[-1] + y.shape[-1] - 1
    result = ember.fft.irfft(ember.fft.rfft(x, n=n) * ember.fft.rfft(y, n=n), n=n)
    return _apply_mode(result, x.shape[-1], y.shape[-1], mode)


def add_noise(waveform, noise, snr, lengths=None):
    """waveform + noise scaled so that 10 log10(E_signal / E_noise) = snr (dB), energies over the first
    `lengths` samples of each signal when given."""
    if not (waveform.dim() - 1 == noise.dim() - 1 == snr.dim() and (lengths is None or lengths.dim() == snr.dim())):
        raise ValueError("Input leading dimensions don't match.")
    length = waveform.shape[-1]
    if length != noise.shape[-1]:
        raise ValueError(f"Length dimensions of waveform and noise don't match (got {length} and {noise.shape[-1]}).")
    if lengths is not None:
        mask = ember.arange(0, length).expand(*waveform.shape) < lengths.unsqueeze(-1)
        masked_waveform, masked_noise = waveform * mask, noise * mask
    else:
        masked_waveform, masked_noise = waveform, noise
    energy_signal = masked_waveform.pow(2).sum(dim=-1)
    energy_noise = masked_noise.pow(2).sum(dim=-1)
    original_snr_db = 10 * (ember.log10(energy_signal) - ember.log10(energy_noise))
    scale = 10 ** ((original_snr_db - snr) / 20.0)
    return waveform + scale.unsqueeze(-1) * noise


def preemphasis(waveform, coeff=0.97):
    """y[n] = x[n] - coeff * x[n - 1]."""
    return ember.cat([waveform[..., :1], waveform[..., 1:] - coeff * waveform[..., :-1]], dim=-1)


def deemphasis(waveform, coeff=0.97):
    """The inverse IIR filter y[n] = x[n] + coeff * y[n - 1] (clamped to [-1, 1], as lfilter does)."""
    a = ember.tensor([1.0, -coeff], dtype=waveform.dtype)
    b = ember.tensor([1.0, 0.0], dtype=waveform.dtype)
    return lfilter(waveform, a, b)


def speed(waveform, orig_freq, factor, lengths=None):
    """Plays `factor` times faster (pitch follows): resampled from factor * orig_freq to orig_freq. Returns
    (waveform, lengths scaled likewise or None)."""
    source, target = int(factor * orig_freq), int(orig_freq)
    g = math.gcd(source, target)
    source, target = source // g, target // g
    out_lengths = None if lengths is None else ember.ceil(lengths * target / source).to(lengths.dtype)
    return resample(waveform, source, target), out_lengths


def _stretch_waveform(waveform, n_steps, bins_per_octave, n_fft, win_length, hop_length, window):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    window = ember.hann_window(win_length, dtype=waveform.dtype) if window is None else window
    flat = waveform.reshape(-1, waveform.shape[-1])
    rate = 2.0 ** (-float(n_steps) / bins_per_octave)
    spec = ember.stft(flat, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window, center=True,
                      pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
    phase_advance = ember.linspace(0, math.pi * hop_length, spec.shape[-2], dtype=flat.dtype)[..., None]
    stretched = phase_vocoder(spec, rate, phase_advance)
    return ember.istft(stretched, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                       length=int(round(waveform.shape[-1] / rate)))


def pitch_shift(waveform, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
                window=None):
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
    return shifted.reshape(tuple(shape[:-1]) + (length,))
