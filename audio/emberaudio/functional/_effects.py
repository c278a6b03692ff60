"""SoX's non-linear and modulated effects as torchaudio.functional has them: contrast, dcshift, overdrive,
phaser, flanger and dither. The per-sample loops of phaser and flanger run in C++ (ember.ops.audio);
overdrive's loop is a first-order IIR, so it runs through lfilter's."""
from __future__ import annotations

import math

import ember

from ._filters import _lfilter


def _db_to_linear(x):
    return math.exp(x * math.log(10) / 20.0)


def _wave_table(wave_type, table_size, lo, hi, phase, as_int):
    """SoX's modulation table: one period of a sine or triangle in [lo, hi], started at `phase` radians
    (float64 values, rounded half away from zero when as_int, else cast to float32 as SoX's float table)."""
    offset = int(phase / math.pi / 2 * table_size + 0.5)
    point_int = (ember.arange(table_size, dtype=ember.int64) + offset) % table_size
    point = point_int.to(ember.float64)
    if wave_type == "SINE":
        d = (ember.sin(point / table_size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2 / table_size
        quarter = (4 * point_int) // table_size
        d = ember.where(quarter == 0, d + 0.5, ember.where(quarter == 3, d - 1.5, 1.5 - d))
    d = d * (hi - lo) + lo
    if as_int:
        return ember.where(d < 0, d - 0.5, d + 0.5).trunc().to(ember.int64)
    return d.to(ember.float32)


def contrast(waveform, enhancement_amount=75.0):
    """sin(x * pi/2 + c * sin(x * 2 pi)): louder without clipping (SoX's contrast)."""
    if not 0 <= enhancement_amount <= 100:
        raise ValueError("Allowed range of values for enhancement_amount : 0-100")
    c = enhancement_amount / 750.0
    scaled = waveform * (math.pi / 2)
    return ember.sin(scaled + c * ember.sin(scaled * 4))


def dcshift(waveform, shift, limiter_gain=None):
    """waveform + shift clipped to [-1, 1]; with limiter_gain, the samples beyond the limiter's threshold
    are compressed instead (SoX's dcshift)."""
    shifted = (waveform + shift).clamp(min=-1, max=1)
    if limiter_gain is None or shift == 0:
        return shifted
    threshold = 1.0 - (abs(shift) - limiter_gain)
    if shift > 0:
        mask = waveform > threshold
        limited = ((waveform - threshold) * limiter_gain / (1 - threshold) + threshold + shift).clamp(max=threshold)
    else:
        mask = waveform < -threshold
        limited = ((waveform + threshold) * limiter_gain / (1 - threshold) - threshold + shift).clamp(min=-threshold)
    return ember.where(mask, limited, shifted)


def overdrive(waveform, gain=20, colour=20):
    """SoX's overdrive: a soft clipper (x - x^3 / 3, +-2/3 beyond +-1) on the boosted signal, DC-blocked by
    y[n] = t[n] - t[n-1] + 0.995 y[n-1] and mixed with the dry signal."""
    shape = waveform.shape
    flat = waveform.reshape(-1, shape[-1])
    boosted = flat * _db_to_linear(gain) + colour / 200
    clipped = ember.where(boosted < -1, ember.full_like(boosted, -2.0 / 3.0),
                          ember.where(boosted > 1, ember.full_like(boosted, 2.0 / 3.0),
                                      boosted - boosted ** 3 * (1.0 / 3)))
    a = ember.tensor([[1.0, -0.995]], dtype=flat.dtype)
    b = ember.tensor([[1.0, -1.0]], dtype=flat.dtype)
    blocked = _lfilter(clipped.unsqueeze(1), a, b).squeeze(1)
    return (flat * 0.5 + blocked * 0.75).clamp(min=-1, max=1).reshape(shape)


def phaser(waveform, sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
           sinusoidal=True):
    """SoX's phaser: a feedback delay line whose length sweeps with a sine (or triangle) at mod_speed Hz."""
    shape = waveform.shape
    flat = waveform.reshape(-1, shape[-1])
    buf_len = int(delay_ms * 0.001 * sample_rate + 0.5)
    mod_len = int(sample_rate / mod_speed + 0.5)
    mod = _wave_table("SINE" if sinusoidal else "TRIANGLE", mod_len, 1.0, float(buf_len), math.pi / 2, as_int=True)
    out = ember.ops.audio._phaser_loop(flat * gain_in, mod, float(decay), buf_len)
    return (out * gain_out).clamp(min=-1, max=1).reshape(shape)


def flanger(waveform, sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
            modulation="sinusoidal", interpolation="linear"):
    """SoX's flanger on (..., channel, time) (at most 4 channels): a short modulated delay with feedback,
    each channel's sweep shifted by `phase` percent."""
    if modulation not in ("sinusoidal", "triangular"):
        raise ValueError("Only 'sinusoidal' or 'triangular' modulation allowed")
    if interpolation not in ("linear", "quadratic"):
        raise ValueError("Only 'linear' or 'quadratic' interpolation allowed")
    shape = waveform.shape
    if waveform.dim() < 2:
        raise ValueError(f"flanger: expected a (..., channel, time) waveform, got {waveform.dim()}-d")
    if shape[-2] > 4:
        raise ValueError("Max 4 channels allowed")
    x = waveform.reshape(-1, shape[-2], shape[-1])
    feedback_gain, delay_gain = regen / 100, width / 100
    delay_min, delay_depth = delay / 1000, depth / 1000
    in_gain = 1.0 / (1 + delay_gain)
    delay_gain = delay_gain / (1 + delay_gain) * (1 - abs(feedback_gain))
    buf_len = int((delay_min + delay_depth) * sample_rate + 0.5) + 2
    lfo_len = int(sample_rate / speed)
    lfo = _wave_table("SINE" if modulation == "sinusoidal" else "TRIANGLE", lfo_len,
                      float(math.floor(delay_min * sample_rate + 0.5)), buf_len - 2.0, 3 * math.pi / 2, as_int=False)
    # channel c reads the table shifted by c * phase% of a period
    shifts = (ember.arange(shape[-2], dtype=ember.float64) * lfo_len * (phase / 100) + 0.5).to(ember.int64)
    index = (ember.arange(shape[-1], dtype=ember.int64).unsqueeze(0) % lfo_len + shifts.unsqueeze(1)) % lfo_len
    delays = lfo[index].to(x.dtype)
    out = ember.ops.audio._flanger_loop(x, delays, float(feedback_gain), float(in_gain), float(delay_gain), buf_len,
                                        interpolation == "quadratic")
    return out.clamp(min=-1, max=1).reshape(shape)


def _add_noise_shaping(dithered, waveform):
    """dithered[n] + (dithered - waveform)[n - 1]: the previous sample's quantisation error fed forward."""
    error = dithered - waveform
    delayed = ember.nn.functional.pad(error[..., :-1], (1, 0))
    return dithered + delayed


def _apply_probability_distribution(waveform, density_function="TPDF"):
    """Quantise to 16 bits after adding dither, as torchaudio 0.9 does: TPDF adds a Bartlett window over
    the signal's length, RPDF one randomly picked sample - 0.5, GPDF the sum of 7 randomly picked samples."""
    shape = waveform.shape
    flat = waveform.reshape(-1, shape[-1])
    channels, time = flat.shape[0] - 1, flat.shape[-1] - 1
    up_scaling, down_scaling = 2 ** 15 - 2, 2 ** 15

    def pick(high):
        return int(ember.randint(high, (1,)).item()) if high > 0 else 0

    scaled = flat * up_scaling
    if density_function == "RPDF":
        noise = flat[pick(channels)][pick(time)] - 0.5
    elif density_function == "GPDF":
        noise = flat[pick(channels)][pick(time)]
        for _ in range(6):
            noise = noise + flat[pick(channels)][pick(time)]
    elif density_function == "TPDF":
        noise = ember.bartlett_window(time + 1, dtype=flat.dtype).repeat(channels + 1, 1)
    else:
        raise ValueError(f'density_function must be one of "TPDF", "RPDF" or "GPDF", got "{density_function}"')
    return (ember.round(scaled + noise) / down_scaling).reshape(shape)


def dither(waveform, density_function="TPDF", noise_shaping=False):
    """16-bit quantisation with dither (and optional noise shaping), as torchaudio 0.9's."""
    dithered = _apply_probability_distribution(waveform, density_function)
    return _add_noise_shaping(dithered, waveform) if noise_shaping else dithered
