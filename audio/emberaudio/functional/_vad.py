"""Voice activity detection as SoX's `vad` effect and torchaudio's port of it: trims the leading silence and
quiet background of a recording. Every measure_period a window of the recent audio is measured (smoothed
spectrum minus an adaptive noise estimate, then the power of a band of its cepstrum); when the smoothed
measure of any channel reaches trigger_level, the audio from just before the quieter bursts that preceded it
is kept. The windows' spectra are computed at once; the smoothing recursion runs measure by measure."""
from __future__ import annotations

import math
from typing import List, NamedTuple, Optional

import ember
from ember import Tensor


class _Plan(NamedTuple):
    """Lengths, windows and time constants derived from vad's arguments (SoX's formulas)."""
    measure_len: int
    dft_len: int
    period: int
    measures_len: int
    gap_len: int
    samples_len: int
    spectrum_window: Tensor
    spectrum_start: int
    spectrum_end: int
    cepstrum_window: Tensor
    cepstrum_start: int
    cepstrum_end: int
    noise_up: float
    noise_down: float
    smooth: float
    trigger_mult: float
    boot_count_max: int


def _plan(sample_rate: int, trigger_time: float, search_time: float, allowed_gap: float, pre_trigger_time: float,
          boot_time: float, noise_up_time: float, noise_down_time: float, measure_freq: float,
          measure_duration: Optional[float], measure_smooth_time: float, hp_filter_freq: float, lp_filter_freq: float,
          hp_lifter_freq: float, lp_lifter_freq: float) -> _Plan:
    duration = 2.0 / measure_freq if measure_duration is None else measure_duration
    measure_len = int(sample_rate * duration + 0.5)
    dft_len = 16
    while dft_len < measure_len:
        dft_len *= 2
    period = int(sample_rate / measure_freq + 0.5)
    measures_len = math.ceil(search_time * measure_freq)
    pre_trigger = int(pre_trigger_time * sample_rate + 0.5)
    spectrum_start = max(int(hp_filter_freq / sample_rate * dft_len + 0.5), 1)
    spectrum_end = min(int(lp_filter_freq / sample_rate * dft_len + 0.5), dft_len // 2)
    band = spectrum_end - spectrum_start
    if band <= 0:
        raise ValueError("vad: hp_filter_freq must be below lp_filter_freq (and below the Nyquist frequency)")
    cepstrum_start = math.ceil(sample_rate * 0.5 / lp_lifter_freq)
    cepstrum_end = min(math.floor(sample_rate * 0.5 / hp_lifter_freq), dft_len // 4)
    if cepstrum_end <= cepstrum_start:
        raise ValueError("vad: the lifter band is empty (hp_lifter_freq too high or lp_lifter_freq too low for "
                         "this sample rate)")
    return _Plan(measure_len, dft_len, period, measures_len, int(allowed_gap * measure_freq + 0.5),
                 pre_trigger + measures_len * period + measure_len,
                 2.0 / math.sqrt(measure_len) * ember.hann_window(measure_len), spectrum_start, spectrum_end,
                 2.0 / math.sqrt(band) * ember.hann_window(band), cepstrum_start, cepstrum_end,
                 math.exp(-1.0 / (noise_up_time * measure_freq)), math.exp(-1.0 / (noise_down_time * measure_freq)),
                 math.exp(-1.0 / (measure_smooth_time * measure_freq)), math.exp(-1.0 / (trigger_time * measure_freq)),
                 int(boot_time * measure_freq - 0.5))


def _window_spectra(flat: Tensor, plan: _Plan, count: int) -> Tensor:
    """|rfft| over [spectrum_start, spectrum_end) of the `count` measured windows: window k holds the
    measure_len samples before sample measure_len - 1 + k * period (a zero before the first sample)."""
    padded = ember.nn.functional.pad(flat, [1, 0])
    frames = padded[:, :plan.measure_len + (count - 1) * plan.period].unfold(-1, plan.measure_len, plan.period)
    spectra = ember.fft.rfft(frames * plan.spectrum_window, n=plan.dft_len).abs()
    return spectra[..., plan.spectrum_start:plan.spectrum_end]


def _flush_count(measures: List[float], index: int, plan: _Plan, trigger_level: float, previous: int) -> int:
    """How many of the stored measures before the trigger to keep (bursts separated by at most gap_len)."""
    n = plan.measures_len
    j_trigger = n
    j_zero = n
    k = index
    for j in range(n):
        if measures[k] >= trigger_level and j <= j_trigger + plan.gap_len:
            j_zero = j_trigger = j
        elif measures[k] == 0 and j_trigger >= j_zero:
            j_zero = j
        k = (k + n - 1) % n
    return min(max(previous, min(n - 1, j_zero)), n)


def vad(waveform: Tensor, sample_rate: int, trigger_level: float = 7.0, trigger_time: float = 0.25,
        search_time: float = 1.0, allowed_gap: float = 0.25, pre_trigger_time: float = 0.0, boot_time: float = 0.35,
        noise_up_time: float = 0.1, noise_down_time: float = 0.01, noise_reduction_amount: float = 1.35,
        measure_freq: float = 20.0, measure_duration: Optional[float] = None, measure_smooth_time: float = 0.4,
        hp_filter_freq: float = 50.0, lp_filter_freq: float = 6000.0, hp_lifter_freq: float = 150.0,
        lp_lifter_freq: float = 2000.0) -> Tensor:
    """(..., time) -> (..., time'): the audio from the detected start of activity (leading edge only; reverse
    the audio to trim the end). All leading dims are treated as channels of one recording."""
    plan = _plan(sample_rate, trigger_time, search_time, allowed_gap, pre_trigger_time, boot_time, noise_up_time,
                 noise_down_time, measure_freq, measure_duration, measure_smooth_time, hp_filter_freq, lp_filter_freq,
                 hp_lifter_freq, lp_lifter_freq)
    shape = waveform.shape
    flat = waveform.reshape(-1, shape[-1]).to(ember.float32)
    channels = flat.shape[0]
    length = flat.shape[1]
    count = 0 if length < plan.measure_len else (length - plan.measure_len) // plan.period + 1
    band = plan.spectrum_end - plan.spectrum_start
    spectra = _window_spectra(flat, plan, count) if count > 0 else ember.zeros([channels, 0, band])
    spectrum = ember.zeros([channels, band])
    noise = ember.zeros([channels, band])
    mean_meas = [0.0] * channels
    measures = [[0.0] * plan.measures_len for _ in range(channels)]
    triggered_at: Optional[int] = None
    to_flush = 0
    for k in range(count):
        boot = k if k <= plan.boot_count_max else -1
        mult = boot / (1.0 + boot) if boot >= 0 else plan.smooth
        spectrum = spectrum * mult + spectra[:, k] * (1 - mult)
        power = spectrum ** 2
        if boot >= 0:
            noise = power
        else:
            noise_mult = ember.where(power > noise, ember.scalar_tensor(plan.noise_up),
                                     ember.scalar_tensor(plan.noise_down))
            noise = noise * noise_mult + power * (1 - noise_mult)
        cleaned = ember.sqrt(ember.clamp(power - noise_reduction_amount * noise, min=0.0))
        cepstrum = ember.fft.rfft(cleaned * plan.cepstrum_window, n=plan.dft_len // 2)
        energies = cepstrum[:, plan.cepstrum_start:plan.cepstrum_end].abs().pow(2).sum(-1)
        index = k % plan.measures_len
        triggered = False
        for c in range(channels):
            energy = float(energies[c])
            level = math.log(energy / (plan.cepstrum_end - plan.cepstrum_start)) if energy > 0 else -math.inf
            meas = max(0.0, 21 + level)
            measures[c][index] = meas
            mean_meas[c] = mean_meas[c] * plan.trigger_mult + meas * (1.0 - plan.trigger_mult)
            triggered = triggered or mean_meas[c] >= trigger_level
            if triggered:
                to_flush = _flush_count(measures[c], index, plan, trigger_level, to_flush)
        if triggered:
            triggered_at = plan.measure_len - 1 + k * plan.period
            break
    if triggered_at is None:
        start = length - plan.samples_len
    else:
        start = triggered_at + 1 - plan.samples_len + (plan.measures_len - to_flush) * plan.period
    out = waveform.reshape(-1, shape[-1])[:, max(start, 0):]
    return out.reshape(list(shape[:-1]) + [out.shape[-1]])
