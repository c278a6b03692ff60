"""mu-law companding, deltas, gain, and the masks SpecAugment draws, as torchaudio.functional's."""
from __future__ import annotations

import math
import warnings
from typing import List

import ember
from ember import Tensor


def mu_law_encoding(x: Tensor, quantization_channels: int) -> Tensor:
    """[-1, 1] -> int64 codes in [0, quantization_channels)."""
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        warnings.warn("The input Tensor must be of floating type. This will be an error in the v0.12 release.",
                      stacklevel=2)
        x = x.to(ember.float32)
    x_mu = ember.sign(x) * ember.log1p(mu * ember.abs(x)) / math.log1p(mu)
    return ((x_mu + 1) / 2 * mu + 0.5).to(ember.int64)


def mu_law_decoding(x_mu: Tensor, quantization_channels: int) -> Tensor:
    """The inverse: codes -> [-1, 1]."""
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(ember.float32)
    x = (x_mu / mu) * 2 - 1.0
    return ember.sign(x) * (ember.exp(ember.abs(x) * math.log1p(mu)) - 1.0) / mu


def compute_deltas(specgram: Tensor, win_length: int = 5, mode: str = "replicate") -> Tensor:
    """Delta coefficients along time: sum_n n * (c[t+n] - c[t-n]) / (2 * sum_n n^2), edges padded by `mode`."""
    if win_length < 3:
        raise ValueError(f"Window length should be greater than or equal to 3. Found win_length {win_length}")
    shape = specgram.shape
    flat = specgram.reshape(1, -1, shape[-1])
    n = (win_length - 1) // 2
    denom = n * (n + 1) * (2 * n + 1) / 3
    flat = ember.nn.functional.pad(flat, (n, n), mode=mode)
    kernel = ember.arange(-n, n + 1, 1, dtype=specgram.dtype).repeat(flat.shape[1], 1, 1)
    out = ember.nn.functional.conv1d(flat, kernel, groups=flat.shape[1]) / denom
    return out.reshape(shape)


def gain(waveform: Tensor, gain_db: float = 1.0) -> Tensor:
    """waveform scaled by gain_db decibels."""
    if gain_db == 0:
        return waveform
    return waveform * 10 ** (gain_db / 20)


def _mask_param(mask_param: int, p: float, axis_length: int) -> int:
    return mask_param if p == 1.0 else min(mask_param, int(axis_length * p))


def mask_along_axis(specgram: Tensor, mask_param: int, mask_value: float, axis: int, p: float = 1.0) -> Tensor:
    """One band [start, start + width) of `axis` (one of the last two dims) set to mask_value, with
    width ~ U[0, mask_param) and start ~ U[0, size - width), the same for every spectrogram."""
    dim = specgram.dim()
    if dim < 2:
        raise ValueError(f"Spectrogram must have at least two dimensions (time and frequency). "
                         f"Input has {dim} dimensions.")
    if axis != dim - 2 and axis != dim - 1:
        raise ValueError(f"Only Frequency and Time masking are supported (axis {dim - 2} and axis {dim - 1} "
                         f"supported; {axis} given).")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"The value of p must be between 0.0 and 1.0 ({p} given).")
    mask_param = _mask_param(mask_param, p, specgram.shape[axis])
    if mask_param < 1:
        return specgram
    shape = specgram.shape
    flat = specgram.reshape([-1] + list(shape[-2:]))
    local_axis = axis - dim + 3
    value = ember.rand(1) * mask_param
    start = ember.rand(1) * (flat.shape[local_axis] - value)
    lo, hi = int(start.long()), int(start.long()) + int(value.long())
    positions = ember.arange(0, flat.shape[local_axis])
    mask = (positions >= lo) & (positions < hi)
    if local_axis == 1:
        mask = mask.unsqueeze(-1)
    return flat.masked_fill(mask, mask_value).reshape(shape)


def mask_along_axis_iid(specgrams: Tensor, mask_param: int, mask_value: float, axis: int,
                        p: float = 1.0) -> Tensor:
    """Like mask_along_axis on (batch, channel, freq, time), a band drawn for every spectrogram."""
    dim = specgrams.dim()
    if dim < 3:
        raise ValueError(f"Spectrogram must have at least three dimensions ({dim} given).")
    if axis != dim - 2 and axis != dim - 1:
        raise ValueError(f"Only Frequency and Time masking are supported (axis {dim - 2} and axis {dim - 1} "
                         f"supported; {axis} given).")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"The value of p must be between 0.0 and 1.0 ({p} given).")
    mask_param = _mask_param(mask_param, p, specgrams.shape[axis])
    if mask_param < 1:
        return specgrams
    lead: List[int] = list(specgrams.shape[:-2])
    value = ember.rand(lead, dtype=specgrams.dtype) * mask_param
    start = ember.rand(lead, dtype=specgrams.dtype) * (specgrams.shape[axis] - value)
    lo, hi = start.long()[..., None, None], (start.long() + value.long())[..., None, None]
    positions = ember.arange(0, specgrams.shape[axis])
    positions = positions.view(-1, 1) if axis == dim - 2 else positions.view(1, -1)
    return specgrams.masked_fill((positions >= lo) & (positions < hi), mask_value)
