"""Waveform and spectrogram transforms as nn.Modules: resampling (kernel cached at construction),
mu-law, deltas, fades, volume and SpecAugment's masks, as torchaudio.transforms'."""
from __future__ import annotations

import math

import ember
from ember import Tensor, nn

from .. import functional as F
from ..functional._resample import _apply_sinc_resample_kernel, _resample_plan


class Resample(nn.Module):
    def __init__(self, orig_freq=16000, new_freq=16000, resampling_method="sinc_interp_hann",
                 lowpass_filter_width=6, rolloff=0.99, beta=None, *, dtype=None):
        super().__init__()
        self.orig_freq = orig_freq
        self.new_freq = new_freq
        self.gcd = math.gcd(int(orig_freq), int(new_freq))
        self.resampling_method = resampling_method
        self.lowpass_filter_width = lowpass_filter_width
        self.rolloff = rolloff
        self.beta = beta
        if self.orig_freq != self.new_freq:
            kernel, self.width, self.blocks = _resample_plan(orig_freq, new_freq, self.gcd, lowpass_filter_width,
                                                             rolloff, resampling_method, beta, dtype)
            self.register_buffer("kernel", kernel.clone(), persistent=False)  # the cached one stays untouched

    def forward(self, waveform: Tensor) -> Tensor:
        if self.orig_freq == self.new_freq:
            return waveform
        return _apply_sinc_resample_kernel(waveform, self.orig_freq, self.new_freq, self.gcd, self.kernel, self.width,
                                           self.blocks)


class MuLawEncoding(nn.Module):
    def __init__(self, quantization_channels=256):
        super().__init__()
        self.quantization_channels = quantization_channels

    def forward(self, x: Tensor) -> Tensor:
        return F.mu_law_encoding(x, self.quantization_channels)


class MuLawDecoding(nn.Module):
    def __init__(self, quantization_channels=256):
        super().__init__()
        self.quantization_channels = quantization_channels

    def forward(self, x_mu: Tensor) -> Tensor:
        return F.mu_law_decoding(x_mu, self.quantization_channels)


class ComputeDeltas(nn.Module):
    def __init__(self, win_length=5, mode="replicate"):
        super().__init__()
        self.win_length = win_length
        self.mode = mode

    def forward(self, specgram: Tensor) -> Tensor:
        return F.compute_deltas(specgram, win_length=self.win_length, mode=self.mode)


_FADE_SHAPES = ("linear", "exponential", "logarithmic", "quarter_sine", "half_sine")


def _fade_in_curve(f: Tensor, shape: str) -> Tensor:
    """The rising curve of each fade shape over f in [0, 1] (torchaudio's formulas)."""
    if shape == "linear":
        return f
    if shape == "exponential":
        return ember.pow(2, (f - 1) * 5)
    if shape == "logarithmic":
        return ember.log10(0.1 + f) + 1
    if shape == "quarter_sine":
        return ember.sin(f * math.pi / 2)
    return ember.sin(f * math.pi - math.pi / 2) / 2 + 0.5


def _fade_out_curve(f: Tensor, shape: str) -> Tensor:
    if shape == "linear":
        return -f + 1
    if shape == "exponential":
        return ember.pow(2, -f * 5)
    if shape == "logarithmic":
        return ember.log10(1.1 - f) + 1
    if shape == "quarter_sine":
        return ember.sin(f * math.pi / 2 + math.pi / 2)
    return ember.sin(f * math.pi + math.pi / 2) / 2 + 0.5


class Fade(nn.Module):
    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape="linear"):
        super().__init__()
        if fade_shape not in _FADE_SHAPES:
            raise ValueError(f"The fade_shape '{fade_shape}' is not supported. Supported fade shapes are: "
                             f"{', '.join(_FADE_SHAPES)}")
        self.fade_in_len = fade_in_len
        self.fade_out_len = fade_out_len
        self.fade_shape = fade_shape

    def forward(self, waveform: Tensor) -> Tensor:
        length = waveform.shape[-1]
        if self.fade_in_len + self.fade_out_len > length:
            raise ValueError(f"Fade: fade_in_len ({self.fade_in_len}) + fade_out_len ({self.fade_out_len}) is longer "
                             f"than the waveform ({length} samples)")
        rise = _fade_in_curve(ember.linspace(0, 1, self.fade_in_len, dtype=waveform.dtype), self.fade_shape)
        fall = _fade_out_curve(ember.linspace(0, 1, self.fade_out_len, dtype=waveform.dtype), self.fade_shape)
        ones_in = ember.ones(length - self.fade_in_len, dtype=waveform.dtype)
        ones_out = ember.ones(length - self.fade_out_len, dtype=waveform.dtype)
        fade_in = ember.cat((rise, ones_in)).clamp(0, 1)
        fade_out = ember.cat((ones_out, fall)).clamp(0, 1)
        return fade_in * fade_out * waveform


class Vol(nn.Module):
    def __init__(self, gain, gain_type="amplitude"):
        super().__init__()
        if gain_type not in ("amplitude", "db", "power"):
            raise ValueError(f"gain_type must be one of amplitude, db or power, got {gain_type!r}")
        if gain_type in ("amplitude", "power") and gain < 0:
            raise ValueError("If gain_type = amplitude or power, gain must be positive.")
        self.gain = gain
        self.gain_type = gain_type

    def forward(self, waveform: Tensor) -> Tensor:
        if self.gain_type == "amplitude":
            waveform = waveform * self.gain
        elif self.gain_type == "db":
            waveform = F.gain(waveform, self.gain)
        else:
            waveform = F.gain(waveform, 10 * math.log10(self.gain))
        return ember.clamp(waveform, -1, 1)


class _AxisMasking(nn.Module):
    def __init__(self, mask_param, axis, iid_masks, p=1.0):
        super().__init__()
        self.mask_param = mask_param
        self.axis = axis
        self.iid_masks = iid_masks
        self.p = p

    def forward(self, specgram: Tensor, mask_value: float = 0.0) -> Tensor:
        """(..., freq, time) with one band masked (with iid_masks, one per spectrogram of the batch)."""
        axis = specgram.dim() - 3 + self.axis  # 1: frequency, 2: time, from the end
        if self.iid_masks:
            return F.mask_along_axis_iid(specgram, self.mask_param, mask_value, axis, p=self.p)
        return F.mask_along_axis(specgram, self.mask_param, mask_value, axis, p=self.p)


class FrequencyMasking(_AxisMasking):
    def __init__(self, freq_mask_param, iid_masks=False):
        super().__init__(freq_mask_param, 1, iid_masks)


class TimeMasking(_AxisMasking):
    def __init__(self, time_mask_param, iid_masks=False, p=1.0):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"The value of p must be between 0.0 and 1.0 ({p} given).")
        super().__init__(time_mask_param, 2, iid_masks, p=p)
