"""Kaldi's framing of a waveform for compute-{spectrogram,fbank,mfcc}-feats: frame extraction (snip_edges or
reflected edges), dither, DC removal, log energy, pre-emphasis and the analysis windows."""
from __future__ import annotations

import math

import ember

HAMMING, HANNING, POVEY, RECTANGULAR, BLACKMAN = "hamming", "hanning", "povey", "rectangular", "blackman"
WINDOWS = [HAMMING, HANNING, POVEY, RECTANGULAR, BLACKMAN]
MILLISECONDS_TO_SECONDS = 0.001
_EPSILON = 1.1920928955078125e-07  # float32's machine epsilon, Kaldi's floor for logs


def epsilon(dtype):
    return ember.tensor(_EPSILON, dtype=dtype)


def next_power_of_2(x):
    return 1 if x == 0 else 2 ** (x - 1).bit_length()


def _frames(waveform, window_size, window_shift, snip_edges):
    """(frames, window_size): with snip_edges only whole frames; otherwise (n + shift / 2) // shift frames
    centred on multiples of the shift, the signal reflected at both ends."""
    num_samples = waveform.shape[0]
    if snip_edges:
        if num_samples < window_size:
            return waveform.new_zeros(0, window_size)
        count = 1 + (num_samples - window_size) // window_shift
    else:
        reversed_waveform = waveform.flip(0)
        count = (num_samples + window_shift // 2) // window_shift
        pad = window_size // 2 - window_shift // 2
        if pad > 0:
            waveform = ember.cat((reversed_waveform[-pad:], waveform, reversed_waveform), dim=0)
        else:
            waveform = ember.cat((waveform[-pad:], reversed_waveform), dim=0)
    waveform = waveform.contiguous()
    return waveform.as_strided((count, window_size), (window_shift, 1))


def window_function(window_type, window_size, blackman_coeff, dtype):
    if window_type == HANNING:
        return ember.hann_window(window_size, periodic=False, dtype=dtype)
    if window_type == HAMMING:
        return ember.hamming_window(window_size, periodic=False, alpha=0.54, beta=0.46, dtype=dtype)
    if window_type == POVEY:
        return ember.hann_window(window_size, periodic=False, dtype=dtype).pow(0.85)
    if window_type == RECTANGULAR:
        return ember.ones(window_size, dtype=dtype)
    if window_type == BLACKMAN:
        a = 2 * math.pi / (window_size - 1)
        n = ember.arange(window_size, dtype=dtype)
        return blackman_coeff - 0.5 * ember.cos(a * n) + (0.5 - blackman_coeff) * ember.cos(2 * a * n)
    raise ValueError(f"Invalid window type {window_type} (one of {', '.join(WINDOWS)})")


def log_energy(frames, energy_floor):
    energy = ember.max(frames.pow(2).sum(1), epsilon(frames.dtype)).log()
    if energy_floor == 0.0:
        return energy
    return ember.max(energy, ember.tensor(math.log(energy_floor), dtype=frames.dtype))


def waveform_and_window_properties(waveform, channel, sample_frequency, frame_shift, frame_length,
                                   round_to_power_of_two, preemphasis_coefficient):
    """The chosen channel and (window_shift, window_size, padded_window_size) in samples, checked."""
    if waveform.dim() != 2:
        raise ValueError(f"kaldi: waveform must be (channels, time), got {waveform.dim()}-d")
    channel = max(channel, 0)
    if channel >= waveform.shape[0]:
        raise ValueError(f"Invalid channel {channel} for size {waveform.shape[0]}")
    waveform = waveform[channel, :]
    window_shift = int(sample_frequency * frame_shift * MILLISECONDS_TO_SECONDS)
    window_size = int(sample_frequency * frame_length * MILLISECONDS_TO_SECONDS)
    padded_window_size = next_power_of_2(window_size) if round_to_power_of_two else window_size
    if not 2 <= window_size <= len(waveform):
        raise ValueError(f"choose a window size {window_size} that is [2, {len(waveform)}]")
    if window_shift <= 0:
        raise ValueError("`window_shift` must be greater than 0")
    if padded_window_size % 2 != 0:
        raise ValueError("the padded `window_size` must be divisible by two. use `round_to_power_of_two` or change "
                         "`frame_length`")
    if not 0.0 <= preemphasis_coefficient <= 1.0:
        raise ValueError("`preemphasis_coefficient` must be between [0,1]")
    if sample_frequency <= 0:
        raise ValueError("`sample_frequency` must be greater than zero")
    return waveform, window_shift, window_size, padded_window_size


def windowed_frames(waveform, padded_window_size, window_size, window_shift, window_type, blackman_coeff, snip_edges,
                    raw_energy, energy_floor, dither, remove_dc_offset, preemphasis_coefficient):
    """(frames (count, padded_window_size), log energy (count,)): Kaldi's per-frame processing in its order."""
    frames = _frames(waveform, window_size, window_shift, snip_edges)
    if dither != 0.0:
        x = ember.max(epsilon(frames.dtype), ember.rand(frames.shape, dtype=frames.dtype))
        frames = frames + ember.sqrt(-2 * x.log()) * ember.cos(2 * math.pi * x) * dither
    if remove_dc_offset:
        frames = frames - frames.mean(dim=1, keepdim=True)
    energy = log_energy(frames, energy_floor) if raw_energy else None
    if preemphasis_coefficient != 0.0:
        previous = ember.cat([frames[:, :1], frames[:, :-1]], dim=1)
        frames = frames - preemphasis_coefficient * previous
    frames = frames * window_function(window_type, window_size, blackman_coeff, frames.dtype).unsqueeze(0)
    if padded_window_size != window_size:
        frames = ember.nn.functional.pad(frames, (0, padded_window_size - window_size))
    if not raw_energy:
        energy = log_energy(frames, energy_floor)
    return frames, energy


def subtract_column_mean(tensor, subtract_mean):
    return tensor - tensor.mean(dim=0, keepdim=True) if subtract_mean else tensor
