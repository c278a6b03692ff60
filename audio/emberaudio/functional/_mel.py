"""Mel filterbanks (HTK and Slaney scales, optional Slaney area normalisation) and the DCT matrix of
MFCCs, as torchaudio.functional builds them."""
from __future__ import annotations

import math
import warnings

import ember

_SLANEY_F_SP = 200.0 / 3
_SLANEY_MIN_LOG_HZ = 1000.0
_SLANEY_MIN_LOG_MEL = _SLANEY_MIN_LOG_HZ / _SLANEY_F_SP
_SLANEY_LOGSTEP = math.log(6.4) / 27.0


def _check_scale(mel_scale):
    if mel_scale not in ("htk", "slaney"):
        raise ValueError('mel_scale should be one of "htk" or "slaney".')


def _hz_to_mel(freq: float, mel_scale: str = "htk") -> float:
    _check_scale(mel_scale)
    if mel_scale == "htk":
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    if freq < _SLANEY_MIN_LOG_HZ:
        return freq / _SLANEY_F_SP
    return _SLANEY_MIN_LOG_MEL + math.log(freq / _SLANEY_MIN_LOG_HZ) / _SLANEY_LOGSTEP


def _mel_to_hz(mels, mel_scale: str = "htk"):
    _check_scale(mel_scale)
    if mel_scale == "htk":
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    linear = _SLANEY_F_SP * mels
    logarithmic = _SLANEY_MIN_LOG_HZ * ember.exp(_SLANEY_LOGSTEP * (mels - _SLANEY_MIN_LOG_MEL))
    return ember.where(mels >= _SLANEY_MIN_LOG_MEL, logarithmic, linear)


def _triangular_filterbank(all_freqs, f_pts):
    """(n_freqs, n_filters): triangles rising from f_pts[i] to f_pts[i+1] and falling to f_pts[i+2]."""
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return ember.clamp(ember.min(down, up), min=0.0)


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=None, mel_scale="htk"):
    """(n_freqs, n_mels): the filterbank a (freq, time) power spectrogram is multiplied by."""
    if norm is not None and norm != "slaney":
        raise ValueError('norm must be one of None or "slaney"')
    all_freqs = ember.linspace(0, sample_rate // 2, n_freqs)
    m_pts = ember.linspace(_hz_to_mel(f_min, mel_scale), _hz_to_mel(f_max, mel_scale), n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_scale)
    fb = _triangular_filterbank(all_freqs, f_pts)
    if norm == "slaney":
        fb = fb * (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])).unsqueeze(0)
    if bool((fb.max(dim=0).values == 0.0).any()):
        warnings.warn("At least one mel filterbank has all zero values. The value for `n_mels` "
                      f"({n_mels}) may be set too high. Or, the value for `n_freqs` ({n_freqs}) may be set too low.",
                      stacklevel=2)
    return fb


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """(n_freqs, n_filter): triangular filters equally spaced in Hz (LFCC's filterbank)."""
    all_freqs = ember.linspace(0, sample_rate // 2, n_freqs)
    f_pts = ember.linspace(f_min, f_max, n_filter + 2)
    return _triangular_filterbank(all_freqs, f_pts)


def create_dct(n_mfcc, n_mels, norm):
    """(n_mels, n_mfcc): the DCT-II matrix (orthonormal with norm="ortho")."""
    if norm is not None and norm != "ortho":
        raise ValueError('norm must be either "ortho" or None')
    n = ember.arange(float(n_mels))
    k = ember.arange(float(n_mfcc)).unsqueeze(1)
    dct = ember.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    if norm is None:
        dct = dct * 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct = dct * math.sqrt(2.0 / float(n_mels))
    return dct.t()
