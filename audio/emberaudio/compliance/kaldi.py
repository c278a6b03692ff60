"""Kaldi-compatible features (torchaudio.compliance.kaldi): spectrogram, fbank and mfcc as Kaldi's
compute-*-feats compute them, with Kaldi's option names and defaults, the mel banks (with VTLN warping) and
the scalar and tensor mel scales. Input: (channels, time), one channel used; output: (frames, features)."""
from __future__ import annotations

import math

import ember

from .. import functional as _F
from ._kaldi_frames import (BLACKMAN, HAMMING, HANNING, POVEY, RECTANGULAR, WINDOWS, epsilon,  # noqa: F401
                            subtract_column_mean, waveform_and_window_properties, windowed_frames)

__all__ = ["get_mel_banks", "inverse_mel_scale", "inverse_mel_scale_scalar", "mel_scale", "mel_scale_scalar",
           "spectrogram", "fbank", "mfcc", "vtln_warp_freq", "vtln_warp_mel_freq", "resample_waveform"]


def spectrogram(waveform, blackman_coeff=0.42, channel=-1, dither=0.0, energy_floor=1.0, frame_length=25.0,
                frame_shift=10.0, min_duration=0.0, preemphasis_coefficient=0.97, raw_energy=True,
                remove_dc_offset=True, round_to_power_of_two=True, sample_frequency=16000.0, snip_edges=True,
                subtract_mean=False, window_type=POVEY):
    """(frames, padded_window_size // 2 + 1) log power spectrum, bin 0 replaced by the frame's log energy."""
    waveform, window_shift, window_size, padded_window_size = waveform_and_window_properties(
        waveform, channel, sample_frequency, frame_shift, frame_length, round_to_power_of_two, preemphasis_coefficient)
    if len(waveform) < min_duration * sample_frequency:
        return ember.empty(0)
    frames, energy = windowed_frames(waveform, padded_window_size, window_size, window_shift, window_type,
                                     blackman_coeff, snip_edges, raw_energy, energy_floor, dither, remove_dc_offset,
                                     preemphasis_coefficient)
    power = ember.max(ember.fft.rfft(frames).abs().pow(2.0), epsilon(frames.dtype)).log()
    power = ember.cat([energy.unsqueeze(1), power[:, 1:]], dim=1)
    return subtract_column_mean(power, subtract_mean)


def inverse_mel_scale_scalar(mel_freq):
    return 700.0 * (math.exp(mel_freq / 1127.0) - 1.0)


def inverse_mel_scale(mel_freq):
    return 700.0 * ((mel_freq / 1127.0).exp() - 1.0)


def mel_scale_scalar(freq):
    return 1127.0 * math.log(1.0 + freq / 700.0)


def mel_scale(freq):
    return 1127.0 * (1.0 + freq / 700.0).log()


def vtln_warp_freq(vtln_low_cutoff, vtln_high_cutoff, low_freq, high_freq, vtln_warp_factor, freq):
    """Kaldi's piecewise-linear VTLN warp: scale by 1 / factor between the cut-offs, linear to the band edges."""
    if not vtln_low_cutoff > low_freq:
        raise ValueError("be sure to set the vtln_low option higher than low_freq")
    if not vtln_high_cutoff < high_freq:
        raise ValueError("be sure to set the vtln_high option lower than high_freq [or negative]")
    low = vtln_low_cutoff * max(1.0, vtln_warp_factor)
    high = vtln_high_cutoff * min(1.0, vtln_warp_factor)
    scale = 1.0 / vtln_warp_factor
    scale_left = (scale * low - low_freq) / (low - low_freq)
    scale_right = (high_freq - scale * high) / (high_freq - high)
    res = ember.where(freq >= high, high_freq + scale_right * (freq - high_freq), scale * freq)
    res = ember.where(freq < low, low_freq + scale_left * (freq - low_freq), res)
    return ember.where((freq < low_freq) | (freq > high_freq), freq, res)


def vtln_warp_mel_freq(vtln_low_cutoff, vtln_high_cutoff, low_freq, high_freq, vtln_warp_factor, mel_freq):
    return mel_scale(vtln_warp_freq(vtln_low_cutoff, vtln_high_cutoff, low_freq, high_freq, vtln_warp_factor,
                                    inverse_mel_scale(mel_freq)))


def get_mel_banks(num_bins, window_length_padded, sample_freq, low_freq, high_freq, vtln_low, vtln_high,
                  vtln_warp_factor):
    """((num_bins, window_length_padded // 2) triangular weights on the mel scale, (num_bins,) centre Hz)."""
    if num_bins <= 3:
        raise ValueError("Must have at least 3 mel bins")
    if window_length_padded % 2 != 0:
        raise ValueError("the padded window length must be even")
    num_fft_bins = window_length_padded // 2
    nyquist = 0.5 * sample_freq
    if high_freq <= 0.0:
        high_freq += nyquist
    if not (0.0 <= low_freq < nyquist and 0.0 < high_freq <= nyquist and low_freq < high_freq):
        raise ValueError(f"Bad values in options: low-freq {low_freq} and high-freq {high_freq} vs. nyquist {nyquist}")
    fft_bin_width = sample_freq / window_length_padded
    mel_low, mel_high = mel_scale_scalar(low_freq), mel_scale_scalar(high_freq)
    mel_delta = (mel_high - mel_low) / (num_bins + 1)
    if vtln_high < 0.0:
        vtln_high += nyquist
    if vtln_warp_factor != 1.0 and not (low_freq < vtln_low < high_freq and 0.0 < vtln_high < high_freq
                                        and vtln_low < vtln_high):
        raise ValueError(f"Bad values in options: vtln-low {vtln_low} and vtln-high {vtln_high}, versus low-freq "
                         f"{low_freq} and high-freq {high_freq}")
    index = ember.arange(num_bins, dtype=ember.float64).unsqueeze(1)
    left, center, right = (mel_low + (index + k) * mel_delta for k in (0.0, 1.0, 2.0))
    if vtln_warp_factor != 1.0:
        left, center, right = (vtln_warp_mel_freq(vtln_low, vtln_high, low_freq, high_freq, vtln_warp_factor, m)
                               for m in (left, center, right))
    center_freqs = inverse_mel_scale(center).squeeze(1)
    mel = mel_scale(fft_bin_width * ember.arange(num_fft_bins, dtype=ember.float64)).unsqueeze(0)
    up_slope = (mel - left) / (center - left)
    down_slope = (right - mel) / (right - center)
    if vtln_warp_factor == 1.0:
        bins = ember.clamp(ember.min(up_slope, down_slope), min=0.0)
    else:
        rising = (mel > left) & (mel <= center)
        falling = (mel > center) & (mel < right)
        bins = ember.where(rising, up_slope, ember.where(falling, down_slope, ember.zeros_like(up_slope)))
    return bins.to(ember.float32), center_freqs.to(ember.float32)


def fbank(waveform, blackman_coeff=0.42, channel=-1, dither=0.0, energy_floor=1.0, frame_length=25.0,
          frame_shift=10.0, high_freq=0.0, htk_compat=False, low_freq=20.0, min_duration=0.0, num_mel_bins=23,
          preemphasis_coefficient=0.97, raw_energy=True, remove_dc_offset=True, round_to_power_of_two=True,
          sample_frequency=16000.0, snip_edges=True, subtract_mean=False, use_energy=False, use_log_fbank=True,
          use_power=True, vtln_high=-500.0, vtln_low=100.0, vtln_warp=1.0, window_type=POVEY):
    """(frames, num_mel_bins (+1 with use_energy)) mel filterbank energies (log by default)."""
    dtype = waveform.dtype
    waveform, window_shift, window_size, padded_window_size = waveform_and_window_properties(
        waveform, channel, sample_frequency, frame_shift, frame_length, round_to_power_of_two, preemphasis_coefficient)
    if len(waveform) < min_duration * sample_frequency:
        return ember.empty(0, dtype=dtype)
    frames, energy = windowed_frames(waveform, padded_window_size, window_size, window_shift, window_type,
                                     blackman_coeff, snip_edges, raw_energy, energy_floor, dither, remove_dc_offset,
                                     preemphasis_coefficient)
    spectrum = ember.fft.rfft(frames).abs()
    if use_power:
        spectrum = spectrum.pow(2.0)
    banks, _ = get_mel_banks(num_mel_bins, padded_window_size, sample_frequency, low_freq, high_freq, vtln_low,
                             vtln_high, vtln_warp)
    banks = ember.nn.functional.pad(banks.to(dtype), (0, 1))  # the Nyquist bin has no weight
    mel = ember.mm(spectrum, banks.t())
    if use_log_fbank:
        mel = ember.max(mel, epsilon(dtype)).log()
    if use_energy:
        pieces = (mel, energy.unsqueeze(1)) if htk_compat else (energy.unsqueeze(1), mel)
        mel = ember.cat(pieces, dim=1)
    return subtract_column_mean(mel, subtract_mean)


def _dct_matrix(num_ceps, num_mel_bins):
    dct = _F.create_dct(num_mel_bins, num_mel_bins, "ortho")
    dct[:, 0] = math.sqrt(1 / float(num_mel_bins))  # Kaldi's first basis vector
    return dct[:, :num_ceps]


def _lifter_coeffs(num_ceps, cepstral_lifter):
    i = ember.arange(num_ceps, dtype=ember.float64)
    return 1.0 + 0.5 * cepstral_lifter * ember.sin(math.pi * i / cepstral_lifter)


def mfcc(waveform, blackman_coeff=0.42, cepstral_lifter=22.0, channel=-1, dither=0.0, energy_floor=1.0,
         frame_length=25.0, frame_shift=10.0, high_freq=0.0, htk_compat=False, low_freq=20.0, num_ceps=13,
         min_duration=0.0, num_mel_bins=23, preemphasis_coefficient=0.97, raw_energy=True, remove_dc_offset=True,
         round_to_power_of_two=True, sample_frequency=16000.0, snip_edges=True, subtract_mean=False, use_energy=False,
         vtln_high=-500.0, vtln_low=100.0, vtln_warp=1.0, window_type=POVEY):
    """(frames, num_ceps) cepstra: the log mel energies through Kaldi's DCT, liftered; with use_energy the
    first coefficient is the log energy (last, with htk_compat)."""
    if num_ceps > num_mel_bins:
        raise ValueError(f"num_ceps cannot be larger than num_mel_bins: {num_ceps} vs {num_mel_bins}")
    dtype = waveform.dtype
    feature = fbank(waveform, blackman_coeff=blackman_coeff, channel=channel, dither=dither,
                    energy_floor=energy_floor, frame_length=frame_length, frame_shift=frame_shift,
                    high_freq=high_freq, htk_compat=htk_compat, low_freq=low_freq, min_duration=min_duration,
                    num_mel_bins=num_mel_bins, preemphasis_coefficient=preemphasis_coefficient,
                    raw_energy=raw_energy, remove_dc_offset=remove_dc_offset,
                    round_to_power_of_two=round_to_power_of_two, sample_frequency=sample_frequency,
                    snip_edges=snip_edges, subtract_mean=False, use_energy=use_energy, use_log_fbank=True,
                    use_power=True, vtln_high=vtln_high, vtln_low=vtln_low, vtln_warp=vtln_warp,
                    window_type=window_type)
    if feature.numel() == 0:
        return feature
    if use_energy:
        energy = feature[:, num_mel_bins if htk_compat else 0]
        offset = int(not htk_compat)
        feature = feature[:, offset:num_mel_bins + offset]
    feature = feature.matmul(_dct_matrix(num_ceps, num_mel_bins).to(dtype))
    if cepstral_lifter != 0.0:
        feature = feature * _lifter_coeffs(num_ceps, cepstral_lifter).unsqueeze(0).to(dtype)
    if use_energy:
        feature = ember.cat([energy.unsqueeze(1), feature[:, 1:]], dim=1)
    if htk_compat:
        first = feature[:, :1] if use_energy else feature[:, :1] * math.sqrt(2)
        feature = ember.cat((feature[:, 1:], first), dim=1)
    return subtract_column_mean(feature, subtract_mean)


def resample_waveform(waveform, orig_freq, new_freq, lowpass_filter_width=6, rolloff=0.99,
                      resampling_method="sinc_interp_hann", beta=None):
    """Kaldi's resampling as torchaudio exposes it here: emberaudio.functional.resample."""
    return _F.resample(waveform, orig_freq, new_freq, lowpass_filter_width, rolloff, resampling_method, beta)
