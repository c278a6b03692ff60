"""IIR filtering as torchaudio.functional has it: lfilter (a grouped conv1d for the numerator, the recursive
denominator in C++ with its backward, ember.ops.audio._lfilter_iir), filtfilt, biquad and SoX's biquad
designs (the Audio EQ Cookbook's formulas as SoX uses them)."""
from __future__ import annotations

import math
from typing import Tuple

import ember
from ember import Tensor


def _fir(waveform: Tensor, b_coeffs: Tensor) -> Tensor:
    """(batch, channels, time) filtered by b (channels, order): y[n] = sum_k b[k] x[n - k], zero history."""
    channels, order = b_coeffs.shape
    padded = ember.nn.functional.pad(waveform, (order - 1, 0))
    return ember.nn.functional.conv1d(padded, b_coeffs.flip(1).unsqueeze(1), groups=channels)


def _lfilter(waveform: Tensor, a_coeffs: Tensor, b_coeffs: Tensor) -> Tensor:
    """(batch, channels, time) through one (a, b) row per channel, both normalised by a[:, 0]."""
    if not waveform.is_floating_point():
        raise TypeError(f"lfilter: waveform must be a floating-point tensor, got {waveform.dtype}")
    a_coeffs = a_coeffs.to(waveform.dtype)
    b_coeffs = b_coeffs.to(waveform.dtype)
    a0 = a_coeffs[:, :1]
    if bool((a0 == 0).any()):
        raise ValueError("lfilter: a_coeffs[..., 0] (the output's own coefficient) must not be zero")
    return ember.ops.audio._lfilter_iir(_fir(waveform, b_coeffs / a0), a_coeffs / a0)


def lfilter(waveform: Tensor, a_coeffs: Tensor, b_coeffs: Tensor, clamp: bool = True,
            batching: bool = True) -> Tensor:
    """IIR filter by the difference equation sum_k a[k] y[n-k] = sum_k b[k] x[n-k] (zero initial state).

    a_coeffs/b_coeffs: (order,) for one filter, or (num_filters, order): with batching=True the waveform's
    second-to-last dim holds one signal per filter; with batching=False every filter runs on the whole
    waveform and the result gains a (num_filters,) dim before time. Differentiable in all three tensors.
    """
    if a_coeffs.shape != b_coeffs.shape:
        raise ValueError("Expected coeffs to be the same size. "
                         f"Found a_coeffs size: {a_coeffs.shape}, b_coeffs size: {b_coeffs.shape}")
    if a_coeffs.dim() > 2:
        raise ValueError(f"Expected coeffs to have greater than 1 dimension. Found {a_coeffs.dim()}")
    if a_coeffs.dim() == 0 or a_coeffs.shape[-1] == 0:
        raise ValueError("lfilter: the coefficients must hold at least one value (a[0])")
    if a_coeffs.dim() > 1:
        if batching:
            if waveform.dim() < 2:
                raise ValueError("Expected waveform to have at least two dimensions (filters, time) when "
                                 f"batching. Found: {waveform.dim()}")
            if waveform.shape[-2] != a_coeffs.shape[0]:
                raise ValueError("Expected number of batches in waveform and coeffs to be the same."
                                 f"Found: coeffs batches: {a_coeffs.shape[0]}, waveform batches: {waveform.shape[-2]}")
        else:
            waveform = ember.stack([waveform] * a_coeffs.shape[0], -2)
    else:
        a_coeffs = a_coeffs.unsqueeze(0)
        b_coeffs = b_coeffs.unsqueeze(0)
    shape = waveform.shape
    output = _lfilter(waveform.reshape(-1, a_coeffs.shape[0], shape[-1]), a_coeffs, b_coeffs)
    if clamp:
        output = ember.clamp(output, min=-1.0, max=1.0)
    return output.reshape(shape)


def filtfilt(waveform: Tensor, a_coeffs: Tensor, b_coeffs: Tensor, clamp: bool = True) -> Tensor:
    """Zero-phase filtering: lfilter forwards, then backwards over the result (no edge padding, as
    torchaudio's; SciPy's filtfilt pads and sets initial states)."""
    forward = lfilter(waveform, a_coeffs, b_coeffs, clamp=False, batching=True)
    return lfilter(forward.flip(-1), a_coeffs, b_coeffs, clamp=clamp, batching=True).flip(-1)


def _as_coeff(value: float, dtype: int) -> Tensor:
    # a number in scripted code (torchaudio's annotation); eagerly also a 0-d tensor, whose gradient it keeps
    if isinstance(value, ember.Tensor):
        return value.to(dtype).reshape(1)
    return ember.tensor([float(value)], dtype=dtype)


def biquad(waveform: Tensor, b0: float, b1: float, b2: float, a0: float, a1: float, a2: float, *,
           clamp: bool = True) -> Tensor:
    """Second-order IIR filter (numbers or 0-d tensors; tensors keep their gradient), zero initial state;
    clamped to [-1, 1] as torchaudio's is (clamp=False: loudness's K-weighting, which must not clip)."""
    dtype = waveform.dtype
    a = ember.cat([_as_coeff(a0, dtype), _as_coeff(a1, dtype), _as_coeff(a2, dtype)])
    b = ember.cat([_as_coeff(b0, dtype), _as_coeff(b1, dtype), _as_coeff(b2, dtype)])
    return lfilter(waveform, a, b, clamp=clamp)


def _w0_alpha(sample_rate: int, freq: float, Q: float) -> Tuple[float, float]:
    w0 = 2 * math.pi * freq / sample_rate
    return w0, math.sin(w0) / 2 / Q


def allpass_biquad(waveform, sample_rate, central_freq, Q=0.707):
    w0, alpha = _w0_alpha(sample_rate, central_freq, Q)
    return biquad(waveform, 1 - alpha, -2 * math.cos(w0), 1 + alpha, 1 + alpha, -2 * math.cos(w0), 1 - alpha)


def band_biquad(waveform, sample_rate, central_freq, Q=0.707, noise=False):
    """SoX's `band`: a two-pole resonator; noise=True scales it for un-pitched audio."""
    w0 = 2 * math.pi * central_freq / sample_rate
    bw_hz = central_freq / Q
    a2 = math.exp(-2 * math.pi * bw_hz / sample_rate)
    a1 = -4 * a2 / (1 + a2) * math.cos(w0)
    b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
    if noise:
        b0 *= math.sqrt(((1 + a2) * (1 + a2) - a1 * a1) * (1 - a2) / (1 + a2)) / b0
    return biquad(waveform, b0, 0.0, 0.0, 1.0, a1, a2)


def bandpass_biquad(waveform, sample_rate, central_freq, Q=0.707, const_skirt_gain=False):
    w0, alpha = _w0_alpha(sample_rate, central_freq, Q)
    gain = math.sin(w0) / 2 if const_skirt_gain else alpha
    return biquad(waveform, gain, 0.0, -gain, 1 + alpha, -2 * math.cos(w0), 1 - alpha)


def bandreject_biquad(waveform, sample_rate, central_freq, Q=0.707):
    w0, alpha = _w0_alpha(sample_rate, central_freq, Q)
    return biquad(waveform, 1.0, -2 * math.cos(w0), 1.0, 1 + alpha, -2 * math.cos(w0), 1 - alpha)


def _shelf_coefficients(sample_rate, gain, central_freq, alpha_of, high):
    """The cookbook's shelving filters as (b0, b1, b2, 1, a1, a2): high=True boosts above central_freq
    (treble), else below (bass)."""
    w0 = 2 * math.pi * central_freq / sample_rate
    A = math.exp(gain / 40 * math.log(10))
    return _shelf_from(w0, A, alpha_of(w0, A), high)


def _shelf_from(w0: float, A: float, alpha: float, high: bool) -> Tuple[float, float, float, float, float, float]:
    t1, t2, t3 = 2 * math.sqrt(A) * alpha, (A - 1) * math.cos(w0), (A + 1) * math.cos(w0)
    s = 1 if high else -1
    b0 = A * ((A + 1) + s * t2 + t1)
    b1 = -2 * s * A * ((A - 1) + s * t3)
    b2 = A * ((A + 1) + s * t2 - t1)
    a0 = (A + 1) - s * t2 + t1
    a1 = 2 * s * ((A - 1) - s * t3)
    a2 = (A + 1) - s * t2 - t1
    return b0 / a0, b1 / a0, b2 / a0, 1.0, a1 / a0, a2 / a0


def _shelf(waveform, sample_rate, gain, central_freq, alpha_of, high):
    return biquad(waveform, *_shelf_coefficients(sample_rate, gain, central_freq, alpha_of, high))


def bass_biquad(waveform, sample_rate, gain, central_freq=100, Q=0.707):
    return _shelf(waveform, sample_rate, gain, central_freq, lambda w0, A: math.sin(w0) / 2 / Q, high=False)


def treble_biquad(waveform, sample_rate, gain, central_freq=3000, Q=0.707):
    return _shelf(waveform, sample_rate, gain, central_freq, lambda w0, A: math.sin(w0) / 2 / Q, high=True)


def deemph_biquad(waveform, sample_rate):
    """ISO 908 CD de-emphasis: a treble shelf cut, designed for 44.1 or 48 kHz."""
    if sample_rate == 44100:
        central_freq, width_slope, gain = 5283, 0.4845, -9.477
    elif sample_rate == 48000:
        central_freq, width_slope, gain = 5356, 0.479, -9.62
    else:
        raise ValueError("Sample rate must be 44100 (audio-CD) or 48000 (DAT)")

    def alpha_of(w0, A):
        return math.sin(w0) / 2 * math.sqrt((A + 1 / A) * (1 / width_slope - 1) + 2)

    return _shelf(waveform, sample_rate, gain, central_freq, alpha_of, high=True)


def equalizer_biquad(waveform, sample_rate, center_freq, gain, Q=0.707):
    w0, alpha = _w0_alpha(sample_rate, center_freq, Q)
    A = math.exp(gain / 40.0 * math.log(10))
    return biquad(waveform, 1 + alpha * A, -2 * math.cos(w0), 1 - alpha * A, 1 + alpha / A, -2 * math.cos(w0),
                  1 - alpha / A)


def _highpass_coefficients(sample_rate: int, cutoff_freq: float,
                           Q: float) -> Tuple[float, float, float, float, float, float]:
    w0, alpha = _w0_alpha(sample_rate, cutoff_freq, Q)
    b0 = (1 + math.cos(w0)) / 2
    return b0, -1 - math.cos(w0), b0, 1 + alpha, -2 * math.cos(w0), 1 - alpha


def highpass_biquad(waveform, sample_rate, cutoff_freq, Q=0.707):
    return biquad(waveform, *_highpass_coefficients(sample_rate, cutoff_freq, Q))


def lowpass_biquad(waveform, sample_rate, cutoff_freq, Q=0.707):
    w0, alpha = _w0_alpha(sample_rate, cutoff_freq, Q)
    b0 = (1 - math.cos(w0)) / 2
    return biquad(waveform, b0, 1 - math.cos(w0), b0, 1 + alpha, -2 * math.cos(w0), 1 - alpha)


# SoX's RIAA playback curve: the zeros and poles it tabulates per sample rate.
_RIAA = {44100: ([-0.2014898, 0.9233820], [0.7083149, 0.9924091]),
         48000: ([-0.1766069, 0.9321590], [0.7396325, 0.9931330]),
         88200: ([-0.1168735, 0.9648312], [0.8590646, 0.9964002]),
         96000: ([-0.1141486, 0.9676817], [0.8699137, 0.9966946])}


def riaa_biquad(waveform, sample_rate):
    """RIAA vinyl playback equalisation, normalised to 0 dB at 1 kHz."""
    if sample_rate not in _RIAA:
        raise ValueError("Sample rate must be 44.1k, 48k, 88.2k, or 96k")
    zeros, poles = _RIAA[sample_rate]
    b = [1.0, -(zeros[0] + zeros[1]), zeros[0] * zeros[1]]
    a = [1.0, -(poles[0] + poles[1]), poles[0] * poles[1]]
    y = 2 * math.pi * 1000 / sample_rate
    b_re, a_re = (c[0] + c[1] * math.cos(-y) + c[2] * math.cos(-2 * y) for c in (b, a))
    b_im, a_im = (c[1] * math.sin(-y) + c[2] * math.sin(-2 * y) for c in (b, a))
    g = 1 / math.sqrt((b_re ** 2 + b_im ** 2) / (a_re ** 2 + a_im ** 2))
    return biquad(waveform, b[0] * g, b[1] * g, b[2] * g, a[0], a[1], a[2])
