"""Spectrograms and decibels, as torchaudio.functional computes them."""
from __future__ import annotations

from typing import Optional, Tuple, Union

import ember
from ember import Tensor


def _spec_norms(normalized: Union[bool, str]) -> Tuple[bool, bool]:
    """(frame_length_norm, window_norm) from `normalized`: True or "window" scales by the window's
    norm; "frame_length" lets stft scale by the frame length."""
    if ember.jit.isinstance(normalized, str):
        if normalized == "window":
            return False, True
        if normalized == "frame_length":
            return True, False
    elif ember.jit.isinstance(normalized, bool):
        return False, normalized
    raise ValueError(f"Invalid normalized parameter: {normalized}. Expected a bool, 'window' or 'frame_length'")


def spectrogram(waveform: Tensor, pad: int, window: Tensor, n_fft: int, hop_length: int, win_length: int,
                power: Optional[float], normalized: Union[bool, str], center: bool = True, pad_mode: str = "reflect",
                onesided: bool = True, return_complex: Optional[bool] = None) -> Tensor:
    """(..., time) -> (..., freq, frames): |STFT|**power, or the complex STFT when power is None."""
    if not isinstance(waveform, ember.Tensor):
        raise TypeError(f"spectrogram: waveform must be a Tensor, got {type(waveform).__name__}")
    if pad > 0:
        waveform = ember.nn.functional.pad(waveform, (pad, pad), "constant")
    frame_length_norm, window_norm = _spec_norms(normalized)
    shape = waveform.shape
    flat = waveform.reshape(-1, shape[-1])
    spec = ember.stft(flat, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                      center=center, pad_mode=pad_mode, normalized=frame_length_norm, onesided=onesided,
                      return_complex=True)
    spec = spec.reshape(list(shape[:-1]) + list(spec.shape[-2:]))
    if window_norm:
        spec = spec / window.pow(2.0).sum().sqrt()
    if power is None:
        return spec
    if power == 1.0:
        return spec.abs()
    if power == 2.0:  # |z|^2 as re^2 + im^2: no square root to undo, and 4-8x faster than abs().pow(2.0)
        real, imag = spec.real, spec.imag
        return real * real + imag * imag
    return spec.abs().pow(power)


def amplitude_to_DB(x: Tensor, multiplier: float, amin: float, db_multiplier: float,
                    top_db: Optional[float] = None) -> Tensor:
    """multiplier * log10(max(x, amin)) - multiplier * db_multiplier, floored at top_db below each
    spectrogram's maximum (a spectrogram: the last two dims, with the channel dim when 3-D or more)."""
    x_db = multiplier * ember.log10(ember.clamp(x, min=amin))
    x_db = x_db - multiplier * db_multiplier
    if top_db is not None:
        shape = x_db.shape
        channels = shape[-3] if x_db.dim() > 2 else 1
        packed = x_db.reshape(-1, channels, shape[-2], shape[-1])
        floor = (packed.amax(dim=(-3, -2, -1)) - top_db).view(-1, 1, 1, 1)
        x_db = ember.max(packed, floor).reshape(shape)
    return x_db


def DB_to_amplitude(x: Tensor, ref: float, power: float) -> Tensor:
    """The inverse of amplitude_to_DB (without its floor): ref * (10 ** (x / 10)) ** power."""
    return ref * ember.pow(ember.pow(10.0, 0.1 * x), power)
