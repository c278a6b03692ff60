"""SoX's rate-changing and time-based effects by name: rate (band-limited resampling), speed (relabels the
rate, as libsox's speed does; a following `rate` resamples), tempo (WSOLA, ember.ops.audio._tempo), pitch
(tempo then a relabelled rate) and reverb (freeverb, ember.ops.audio._reverb)."""
from __future__ import annotations

import math

import ember

from .. import functional as F

# rate's quality flags -> (sinc half-width in zero crossings, rolloff): wider kernels for the higher qualities
_RATE_QUALITY = {"-q": (8, 0.9), "-l": (12, 0.9), "-m": (24, 0.95), "-h": (48, 0.96), "-v": (64, 0.96)}


_KAISER_BETA = 14.769656459379492  # torchaudio's default: about 80 dB stop-band attenuation


def _resample_any_ratio(x, ratio, width, rolloff):
    """Windowed-sinc interpolation at each output sample's input time m / ratio (a fractional ratio, which a
    polyphase kernel could only approximate): the weights of the 2K nearest input samples, evaluated directly."""
    base = min(1.0, ratio) * rolloff
    half = math.ceil(width / base) + 1
    frames = int(x.shape[-1] * ratio + 0.5)
    times = ember.arange(frames, dtype=ember.float64) / ratio
    taps = times.floor().to(ember.int64).unsqueeze(1) + ember.arange(-half + 1, half + 1, dtype=ember.int64)
    t = ((taps.to(ember.float64) - times.unsqueeze(1)) * base).clamp(-width, width)
    beta = ember.tensor(_KAISER_BETA, dtype=ember.float64)
    window = ember.i0(beta * ember.sqrt(1 - (t / width) ** 2)) / ember.i0(beta)
    phase = t * math.pi
    safe = ember.where(phase == 0, ember.ones_like(phase), phase)
    sinc = ember.where(phase == 0, ember.ones_like(phase), ember.sin(phase) / safe)
    weights = (sinc * window * base).to(x.dtype)
    padded = ember.nn.functional.pad(x, (half, half + 1))
    gathered = padded[..., (taps + half).clamp(0, padded.shape[-1] - 1)]
    return (gathered * weights).sum(-1)


def resample_to(x, orig, new, quality="-h"):
    """x at `orig` Hz -> round(frames * new / orig) frames at `new` Hz (SoX's output length): the polyphase
    resampler for integral rates, direct interpolation for fractional ones (left by speed and pitch)."""
    width, rolloff = _RATE_QUALITY[quality]
    frames = int(x.shape[-1] * new / orig + 0.5)
    if orig != int(orig) or new != int(new):
        return _resample_any_ratio(x, new / orig, width, rolloff)[..., :frames]
    g = math.gcd(int(orig), int(new))
    out = F.resample(x, int(orig) // g, int(new) // g, lowpass_filter_width=width, rolloff=rolloff,
                     resampling_method="sinc_interp_kaiser")
    return out[..., :frames]


def _rate(x, sr, args):
    quality = "-h"
    while args.args and args.args[0].startswith("-"):
        flag = args.args.pop(0)
        if flag not in _RATE_QUALITY:
            raise args.error(f"option {flag} is not supported (quality flags: {', '.join(_RATE_QUALITY)})")
        quality = flag
    new = args.frequency("rate")
    args.done()
    if new <= 0:
        raise args.error("the rate must be positive")
    if new == sr:
        return x, sr
    return resample_to(x, sr, new, quality), new


def _speed(x, sr, args):
    if not args.has():
        raise args.error("missing factor")
    text = args.args[0]
    cents = text.endswith("c")
    if cents:
        args.args[0] = text[:-1]
    value = args.number("factor")
    args.done()
    factor = 2 ** (value / 1200) if cents else value
    if factor <= 0:
        raise args.error("the factor must be positive")
    return x, sr * factor


def _tempo_parameters(sr, factor, profile, segment_ms, search_ms, overlap_ms):
    """SoX's tempo defaults per profile (default, -m music, -s speech, -l linear) and its rounding to frames."""
    index = {None: 0, "-m": 1, "-s": 2, "-l": 3}[profile]
    segments_ms, segments_pow = (82, 82, 35, 20)[index], (0, 1, .33, 1)[index]
    if segment_ms is None:
        segment_ms = max(10, segments_ms / max(factor ** segments_pow, 1))
    if overlap_ms is None:
        overlap_ms = segment_ms / (6.833, 7, 2.5, 2)[index]
    if search_ms is None:
        search_ms = 0.0 if profile == "-l" else segment_ms / (5.587, 6, 2.14, 2)[index]
    overlap_ms = min(overlap_ms, segment_ms / 2)
    segment = int(sr * segment_ms / 1000 + .5)
    search = int(sr * search_ms / 1000 + .5)
    overlap = int(max(sr * overlap_ms / 1000 + 4.5, 16)) & ~7
    if overlap * 2 > segment:
        overlap -= 8
    return segment, search, overlap


def _run_tempo(x, sr, factor, quick, profile, extra):
    if factor == 1:
        return x
    segment, search, overlap = _tempo_parameters(sr, factor, profile, *extra)
    return ember.ops.audio._tempo(x.to(ember.float32), float(factor), segment, search, overlap, quick).to(x.dtype)


def _tempo_options(args):
    quick, profile = False, None
    while args.args and args.args[0] in ("-q", "-m", "-s", "-l"):
        flag = args.args.pop(0)
        if flag == "-q":
            quick = True
        else:
            profile = flag
    return quick, profile


def _tempo_tail(args):
    extra = [args.number(what, None, lo, hi) if args.has() else None
             for what, lo, hi in (("segment", 10, 120), ("search", 0, 30), ("overlap", 0, 30))]
    args.done()
    return extra


def _tempo(x, sr, args):
    quick, profile = _tempo_options(args)
    factor = args.number("factor", lo=0.1, hi=100)
    extra = _tempo_tail(args)
    return _run_tempo(x, sr, factor, quick, profile, extra), sr


def _pitch(x, sr, args):
    quick, profile = _tempo_options(args)
    cents = args.number("shift in cents")
    extra = _tempo_tail(args)
    factor = float(f"{1 / 2 ** (cents / 1200):g}")  # SoX passes the factor on as printf's %g
    return _run_tempo(x, sr, factor, quick, profile, extra), sr / factor


def _reverb(x, sr, args):
    wet_only = args.flag("-w", "--wet-only") is not None
    values = [args.number(what, default, lo, hi) for what, default, lo, hi in (
        ("reverberance", 50.0, 0, 100), ("HF-damping", 50.0, 0, 100), ("room-scale", 100.0, 0, 100),
        ("stereo-depth", 100.0, 0, 100), ("pre-delay", 0.0, 0, 500), ("wet-gain", 0.0, -10, 10))]
    args.done()
    out = ember.ops.audio._reverb(x.to(ember.float32), float(sr), *[float(v) for v in values], wet_only)
    return out.to(x.dtype), sr


RATE_EFFECTS = {"rate": _rate, "speed": _speed, "tempo": _tempo, "pitch": _pitch, "reverb": _reverb}
