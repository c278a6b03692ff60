"""SoX's filter and waveform effects by name, with SoX's arguments (defaults and width units as biquads.c
has them), each running emberaudio.functional's implementation. A handler takes (waveform (channels, time),
sample_rate, Args) and returns (waveform, sample_rate)."""
from __future__ import annotations

import math

import ember

from .. import functional as F
from ._args import q_from_width


def _check_nyquist(args, fc, sample_rate):
    if fc <= 0 or fc > sample_rate / 2:
        raise args.error("frequency must be positive and less than half the sample-rate (Nyquist rate)")


def _one_pole(x, sample_rate, fc, high):
    a1 = -math.exp(-2 * math.pi * fc / sample_rate)
    b = [(1 - a1) / 2, -(1 - a1) / 2] if high else [1 + a1, 0.0]
    return F.lfilter(x, ember.tensor([1.0, a1], dtype=x.dtype), ember.tensor(b, dtype=x.dtype))


def _pass(high):
    def effect(x, sr, args):
        poles = args.flag("-1", "-2")
        fc = args.frequency()
        _check_nyquist(args, fc, sr)
        if poles == "-1":
            args.done()
            return _one_pole(x, sr, fc, high), sr
        width, unit = args.width("qoh", (math.sqrt(0.5), "q"))
        args.done()
        q = q_from_width(width, unit, fc, sr)
        return (F.highpass_biquad if high else F.lowpass_biquad)(x, sr, fc, q), sr
    return effect


def _bandpass(x, sr, args):
    csg = args.flag("-c") is not None
    fc = args.frequency()
    _check_nyquist(args, fc, sr)
    width, unit = args.width("hqo")
    args.done()
    return F.bandpass_biquad(x, sr, fc, q_from_width(width, unit, fc, sr), const_skirt_gain=csg), sr


def _bandreject(x, sr, args):
    fc = args.frequency()
    _check_nyquist(args, fc, sr)
    width, unit = args.width("hqo")
    args.done()
    return F.bandreject_biquad(x, sr, fc, q_from_width(width, unit, fc, sr)), sr


def _allpass(x, sr, args):
    fc = args.frequency()
    _check_nyquist(args, fc, sr)
    width, unit = args.width("hqo")
    args.done()
    return F.allpass_biquad(x, sr, fc, q_from_width(width, unit, fc, sr)), sr


def _band(x, sr, args):
    noise = args.flag("-n") is not None
    fc = args.frequency()
    _check_nyquist(args, fc, sr)
    width, unit = args.width("hqo", (fc / 2, "h"))
    args.done()
    if unit == "o":
        bw_hz = fc * (2 ** width - 1) * 2 ** (-0.5 * width)
    else:
        bw_hz = fc / width if unit == "q" else width
    return F.band_biquad(x, sr, fc, fc / bw_hz, noise=noise), sr


def _shelf(high):
    def effect(x, sr, args):
        gain = args.number("gain")
        fc = args.frequency(default=3000.0 if high else 100.0)
        _check_nyquist(args, fc, sr)
        width, unit = args.width("shqo", (0.5, "s"))
        args.done()
        q = q_from_width(width, unit, fc, sr, gain)
        return (F.treble_biquad if high else F.bass_biquad)(x, sr, gain, fc, q), sr
    return effect


def _equalizer(x, sr, args):
    fc = args.frequency()
    _check_nyquist(args, fc, sr)
    width, unit = args.width("qoh")
    gain = args.number("gain")
    args.done()
    return F.equalizer_biquad(x, sr, fc, gain, q_from_width(width, unit, fc, sr)), sr


def _no_args(fn):
    def effect(x, sr, args):
        args.done()
        return fn(x, sr), sr
    return effect


def _biquad(x, sr, args):
    b0, b1, b2, a0, a1, a2 = (args.number(name) for name in ("b0", "b1", "b2", "a0", "a1", "a2"))
    args.done()
    return F.biquad(x, b0, b1, b2, a0, a1, a2), sr


def _contrast(x, sr, args):
    amount = args.number("enhancement amount", 75.0, 0, 100)
    args.done()
    return F.contrast(x, amount), sr


def _dcshift(x, sr, args):
    shift = args.number("shift", lo=-2, hi=2)
    limiter = args.number("limiter gain") if args.has() else None
    args.done()
    return F.dcshift(x, shift, limiter), sr


def _overdrive(x, sr, args):
    gain = args.number("gain", 20.0, 0, 100)
    colour = args.number("colour", 20.0, 0, 100)
    args.done()
    return F.overdrive(x, gain, colour), sr


def _phaser(x, sr, args):
    values = [args.number(what, default, lo, hi) for what, default, lo, hi in (
        ("gain-in", 0.4, 0, 1), ("gain-out", 0.74, 0, 1e9), ("delay", 3.0, 0, 5), ("decay", 0.4, 0, 0.99),
        ("speed", 0.5, 0.1, 2))]
    shape = args.flag("-s", "-t") or "-s"
    args.done()
    return F.phaser(x, sr, *values, sinusoidal=shape == "-s"), sr


def _flanger(x, sr, args):
    delay = args.number("delay", 0.0, 0, 30)
    depth = args.number("depth", 2.0, 0, 10)
    regen = args.number("regen", 0.0, -95, 95)
    width = args.number("width", 71.0, 0, 100)
    speed = args.number("speed", 0.5, 0.1, 10)
    shape = args.flag("sine", "triangle", "s", "t") or "sine"
    phase = args.number("phase", 25.0, 0, 100)
    interp = args.flag("linear", "quadratic", "l", "q") or "linear"
    args.done()
    modulation = "sinusoidal" if shape.startswith("s") else "triangular"
    interpolation = "linear" if interp.startswith("l") else "quadratic"
    return F.flanger(x, sr, delay, depth, regen, width, speed, phase, modulation, interpolation), sr


def _dither(x, sr, args):
    shaped = args.flag("-s") is not None
    args.done()
    return F.dither(x, noise_shaping=shaped), sr


FILTER_EFFECTS = {
    "lowpass": _pass(False), "highpass": _pass(True), "bandpass": _bandpass, "bandreject": _bandreject,
    "allpass": _allpass, "band": _band, "bass": _shelf(False), "treble": _shelf(True), "equalizer": _equalizer,
    "deemph": _no_args(F.deemph_biquad), "riaa": _no_args(F.riaa_biquad), "biquad": _biquad,
    "contrast": _contrast, "dcshift": _dcshift, "overdrive": _overdrive, "phaser": _phaser, "flanger": _flanger,
    "dither": _dither,
}
