"""Measurements on audio, as torchaudio.functional has them: detect_pitch_frequency (normalised
cross-correlation and median smoothing), spectral_centroid, sliding_window_cmn (Kaldi's sliding cepstral mean
and variance normalisation) and loudness (ITU-R BS.1770-4: K-weighting, gated mean square)."""
from __future__ import annotations

import math
from typing import List, Tuple

import ember
from ember import Tensor

from ._filters import _highpass_coefficients, _shelf_from, biquad
from ._spectral import spectrogram

_EPSILON = 1e-9


def _compute_nccf(waveform: Tensor, sample_rate: int, frame_time: float, freq_low: int) -> Tensor:
    """(batch, frames, lags): sum_n w[n] w[n + lag] / (|frame|^2 |lagged frame|^2) for lags 1..ceil(sr / freq_low)."""
    lags = int(math.ceil(sample_rate / freq_low))
    frame_size = int(math.ceil(sample_rate * frame_time))
    length = waveform.shape[-1]
    frames = int(math.ceil(length / frame_size))
    waveform = ember.nn.functional.pad(waveform, (0, lags + frames * frame_size - length))
    columns: List[Tensor] = []
    for lag in range(1, lags + 1):
        s1 = waveform[..., :-lag].unfold(-1, frame_size, frame_size)[..., :frames, :]
        s2 = waveform[..., lag:].unfold(-1, frame_size, frame_size)[..., :frames, :]
        columns.append(((s1 * s2).sum(-1) / (_EPSILON + s1.norm(p=2, dim=-1)).pow(2)
                        / (_EPSILON + s2.norm(p=2, dim=-1)).pow(2)).unsqueeze(-1))
    return ember.cat(columns, -1)


def _find_max_per_frame(nccf: Tensor, sample_rate: int, freq_high: int) -> Tensor:
    """Each frame's best lag; a maximum in the first half of the lags wins when within 1% of the overall one."""
    lag_min = int(math.ceil(sample_rate / freq_high))
    best_values, best_indices = ember.max(nccf[..., lag_min:], -1)
    half_values, half_indices = ember.max(nccf[..., lag_min:nccf.shape[-1] // 2], -1)
    take_half = half_values > 0.99 * best_values
    indices = ember.where(take_half, half_indices, best_indices)
    return indices + lag_min + 1  # the minimal lag back, and torchaudio's one-lag calibration


def _median_smoothing(indices: Tensor, win_length: int) -> Tensor:
    """Median over a centred window, the start padded by repeating the first value (torchaudio's rule)."""
    pad = (win_length - 1) // 2
    padded = ember.cat([indices[..., :1].expand(list(indices.shape[:-1]) + [pad]), indices], dim=-1)
    return padded.unfold(-1, win_length, 1).median(-1)[0]


def detect_pitch_frequency(waveform: Tensor, sample_rate: int, frame_time: float = 10 ** (-2), win_length: int = 30,
                           freq_low: int = 85, freq_high: int = 3400) -> Tensor:
    """(..., time) -> (..., frames): each frame's pitch in Hz."""
    shape = list(waveform.shape)
    flat = waveform.reshape([-1] + shape[-1:])
    nccf = _compute_nccf(flat, sample_rate, frame_time, freq_low)
    indices = _median_smoothing(_find_max_per_frame(nccf, sample_rate, freq_high), win_length)
    freq = sample_rate / (_EPSILON + indices.to(ember.float32))
    return freq.reshape(shape[:-1] + list(freq.shape[-1:]))


def spectral_centroid(waveform: Tensor, sample_rate: int, pad: int, window: Tensor, n_fft: int, hop_length: int,
                      win_length: int) -> Tensor:
    """(..., time) -> (..., frames): the magnitude-weighted mean frequency of each frame."""
    specgram = spectrogram(waveform, pad=pad, window=window, n_fft=n_fft, hop_length=hop_length,
                           win_length=win_length, power=1.0, normalized=False)
    freqs = ember.linspace(0, sample_rate // 2, steps=1 + n_fft // 2, dtype=specgram.dtype).reshape(-1, 1)
    return (freqs * specgram).sum(dim=-2) / specgram.sum(dim=-2)


def _cmn_windows(num_frames: int, cmn_window: int, min_cmn_window: int, center: bool) -> List[Tuple[int, int]]:
    """Kaldi's [start, end) window for every frame (shifted, not shrunk, at the edges)."""
    windows: List[Tuple[int, int]] = []
    for t in range(num_frames):
        if center:
            start = t - cmn_window // 2
            end = start + cmn_window
        else:
            start = t - cmn_window
            end = t + 1
        if start < 0:
            end -= start
            start = 0
        if not center and end > t:
            end = max(t + 1, min_cmn_window)
        if end > num_frames:
            start = max(start - (end - num_frames), 0)
            end = num_frames
        windows.append((start, end))
    return windows


def sliding_window_cmn(specgram: Tensor, cmn_window: int = 600, min_cmn_window: int = 100, center: bool = False,
                       norm_vars: bool = False) -> Tensor:
    """(..., time, freq): each frame minus the mean of its window (and divided by the window's standard
    deviation with norm_vars), computed from prefix sums."""
    shape = specgram.shape
    num_frames, num_feats = shape[-2], shape[-1]
    x = specgram.reshape(-1, num_frames, num_feats)
    zero = ember.zeros([x.shape[0], 1, num_feats], dtype=x.dtype)
    prefix = ember.cat([zero, ember.cumsum(x, 1)], 1)
    windows = _cmn_windows(num_frames, cmn_window, min_cmn_window, center)
    starts = ember.tensor([w[0] for w in windows], dtype=ember.int64)
    ends = ember.tensor([w[1] for w in windows], dtype=ember.int64)
    counts = (ends - starts).to(x.dtype).reshape(1, -1, 1)
    sums = prefix[:, ends] - prefix[:, starts]
    out = x - sums / counts
    if norm_vars:
        prefix_sq = ember.cat([zero, ember.cumsum(x ** 2, 1)], 1)
        variance = (prefix_sq[:, ends] - prefix_sq[:, starts]) / counts - sums ** 2 / counts ** 2
        out = ember.where(counts == 1, ember.zeros_like(out), out * variance.pow(-0.5))
    return out.reshape(shape)


def loudness(waveform: Tensor, sample_rate: int) -> Tensor:
    """(..., channels, time) -> (...,) integrated loudness in LKFS (ITU-R BS.1770-4; up to 5 channels, the
    surround ones weighted 1.41): K-weighted 400 ms blocks with 75% overlap, absolute gate -70 LKFS, relative
    gate 10 LU below the absolutely gated loudness."""
    if waveform.dim() < 2:
        raise ValueError(f"loudness: expected a (..., channels, time) waveform, got {waveform.dim()}-d")
    if waveform.shape[-2] > 5:
        raise ValueError("Only up to 5 channels are supported.")
    gate_samples = int(round(0.4 * sample_rate))
    step = int(round(gate_samples * 0.25))
    if waveform.shape[-1] < gate_samples:
        raise ValueError(f"loudness: the waveform must be at least 400 ms long ({gate_samples} samples), "
                         f"got {waveform.shape[-1]}")
    # K-weighting (torchaudio's +4 dB treble shelf at 1500 Hz, then a 38 Hz high-pass), not clamped: torchaudio
    # clamps both stages to [-1, 1], which clips a full-scale signal and understates its loudness
    w0 = 2 * math.pi * 1500.0 / sample_rate
    b0, b1, b2, a0, a1, a2 = _shelf_from(w0, math.exp(4.0 / 40 * math.log(10)), math.sin(w0) / 2 * math.sqrt(2), True)
    weighted = biquad(waveform, b0, b1, b2, a0, a1, a2, clamp=False)
    b0, b1, b2, a0, a1, a2 = _highpass_coefficients(sample_rate, 38.0, 0.5)
    weighted = biquad(weighted, b0, b1, b2, a0, a1, a2, clamp=False)
    energy = ember.square(weighted).unfold(-1, gate_samples, step).mean(dim=-1)
    g = ember.tensor([1.0, 1.0, 1.0, 1.41, 1.41], dtype=waveform.dtype)[:energy.shape[-2]]
    block_loudness = -0.691 + 10 * ember.log10((g.unsqueeze(-1) * energy).sum(dim=-2))
    absolute = block_loudness > -70.0
    relative = absolute & (block_loudness > (_gated_loudness(absolute, energy, g) - 10).unsqueeze(-1))
    return _gated_loudness(relative, energy, g)


def _gated_loudness(gate: Tensor, energy: Tensor, g: Tensor) -> Tensor:
    mask = gate.unsqueeze(-2).to(energy.dtype)
    mean_energy = (mask * energy).sum(dim=-1) / mask.sum(dim=-1)
    return -0.691 + 10 * ember.log10((g * mean_energy).sum(dim=-1))
