"""SoX's editing, mixing and level effects by name: trim, pad, channels, remix, gain, vol, with SoX's argument
syntax and its rules (channels averages or repeats; remix's automatic, manual and power volume modes)."""
from __future__ import annotations

import math

import ember

from ._args import parse_time


def _position(text, sample_rate, previous, total):
    """A trim position in samples: `=t` absolute, `-t` from the end, else relative to the previous one."""
    text = str(text)
    if text.startswith("="):
        return int(parse_time(text[1:], sample_rate) + 0.5)
    if text.startswith("-"):
        return total - int(parse_time(text[1:], sample_rate) + 0.5)
    return previous + int(parse_time(text, sample_rate) + 0.5)


def _trim(x, sr, args):
    """Keeps [p0, p1), drops [p1, p2), keeps [p2, p3), ...; an open last segment runs to the end."""
    if not args.has():
        raise args.error("missing start position")
    total = x.shape[-1]
    positions, previous = [], 0
    for text in args.args:
        previous = _position(text, sr, previous, total)
        positions.append(min(max(previous, 0), total))
    args.args = []
    if any(b < a for a, b in zip(positions, positions[1:])):
        raise args.error("positions must not go backwards")
    bounds = positions + ([total] if len(positions) % 2 else [])
    pieces = [x[..., a:b] for a, b in zip(bounds[::2], bounds[1::2])]
    return ember.cat(pieces, dim=-1), sr


def _pad(x, sr, args):
    """Inserts silence: `length[@position]`; without a position the first pad goes at the start and the
    others at the end."""
    if not args.has():
        raise args.error("missing pad length")
    inserts = []
    for i, spec in enumerate(args.args):
        length_text, _, at_text = spec.partition("@")
        length = int(parse_time(length_text, sr, "pad length") + 0.5)
        at = int(parse_time(at_text, sr) + 0.5) if at_text else (0 if i == 0 else x.shape[-1])
        if at > x.shape[-1]:
            raise args.error(f"pad position {at_text} is beyond the audio's end")
        inserts.append((at, length))
    args.args = []
    pieces, start = [], 0
    for at, length in sorted(inserts, key=lambda p: p[0]):
        pieces += [x[..., start:at], x.new_zeros(x.shape[:-1] + (length,))]
        start = at
    pieces.append(x[..., start:])
    return ember.cat(pieces, dim=-1), sr


def _channels(x, sr, args):
    """Output channel j is the mean of the inputs i with i % n == j (fewer channels), or input j % c (more)."""
    n = int(args.number("channel count", lo=1))
    args.done()
    c = x.shape[0]
    if n == c:
        return x, sr
    if n > c:
        return x[[j % c for j in range(n)]], sr
    return ember.stack([x[j::n].mean(dim=0) for j in range(n)]), sr


def _remix_volume(text, args):
    """A volume suffix: v (linear), p (dB), i (inverted dB)."""
    kind, value = text[0], text[1:]
    try:
        number = float(value)
    except ValueError:
        raise args.error(f"bad volume '{text}'") from None
    if kind == "v":
        return number
    gain = 10 ** (number / 20)
    return gain if kind == "p" else -gain


def _remix_inputs(spec, channels, args):
    """One output's in-spec -> [(input channel index, volume or None)]."""
    if spec == "0":
        return []
    chosen = []
    for part in spec.split(","):
        cut = next((i for i, ch in enumerate(part) if ch in "vpi"), len(part))
        chans, volume = part[:cut], (_remix_volume(part[cut:], args) if cut < len(part) else None)
        if chans == "-" or "-" in chans:
            lo, _, hi = chans.partition("-")
            first, last = int(lo) if lo else 1, int(hi) if hi else channels
        else:
            first = last = int(chans)
        if not 1 <= first <= last <= channels:
            raise args.error(f"input channel {chans} is out of range 1..{channels}")
        chosen += [(i - 1, volume) for i in range(first, last + 1)]
    return chosen


def _remix(x, sr, args):
    """remix [-a|-m|-p] out-spec...: each output mixes `in[v|p|i volume],...` (v linear, p dB, i inverted dB;
    `1-3`, `2-`, `-` ranges; `0` silence)."""
    mode = args.flag("-a", "-m", "-p") or "-a"
    if not args.has():
        raise args.error("missing output channel specification")
    outputs = []
    for spec in args.args:
        inputs = _remix_inputs(spec, x.shape[0], args)
        n = max(len(inputs), 1)
        # an input without a volume: 1/n (automatic), 1 (manual), 1/sqrt(n) (power, unless the output names
        # a volume anywhere: then SoX mixes it as manual)
        specified = any(volume is not None for _, volume in inputs)
        default = {"-a": 1 / n, "-m": 1.0, "-p": 1.0 if specified else 1 / math.sqrt(n)}[mode]
        mixed = x.new_zeros(x.shape[-1])
        for index, volume in inputs:
            mixed = mixed + x[index] * (default if volume is None else volume)
        outputs.append(mixed)
    args.args = []
    return ember.stack(outputs), sr


def _gain(x, sr, args):
    """gain [-e|-B] [-n] [dB]: -e equalises the channels' peaks, -B their RMS levels, -n normalises the peak
    to 0 dBFS, then the gain in dB applies."""
    options = set()
    while args.args and args.args[0].startswith("-") and not _is_number(args.args[0]):
        option = args.args.pop(0)
        if option not in ("-e", "-B", "-n"):
            raise args.error(f"option {option} is not supported (supported: -e, -B, -n)")
        options.add(option)
    db = args.number("gain", 0.0)
    args.done()
    if "-e" in options or "-B" in options:
        level = x.abs().amax(dim=-1) if "-e" in options else x.pow(2).mean(dim=-1).sqrt()
        x = x * (level.max() / ember.where(level > 0, level, ember.ones_like(level))).unsqueeze(-1)
    if "-n" in options:
        peak = float(x.abs().max()) if x.numel() else 0.0
        if peak > 0:
            x = x / peak
    return (x * 10 ** (db / 20)).clamp(-1, 1), sr


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _vol(x, sr, args):
    """vol GAIN [amplitude|power|dB]: an amplitude ratio (the default), a power ratio, or decibels
    (also written as a dB suffix)."""
    if not args.has():
        raise args.error("missing gain")
    text = args.args.pop(0)
    kind = "dB" if text.lower().endswith("db") else "amplitude"
    try:
        value = float(text[:-2] if kind == "dB" else text)
    except ValueError:
        raise args.error(f"gain must be a number, got '{text}'") from None
    if args.has():
        kinds = {"amplitude": "amplitude", "a": "amplitude", "power": "power", "p": "power", "db": "dB", "d": "dB"}
        word = args.args.pop(0)
        if word.lower() not in kinds:
            raise args.error(f"gain type must be amplitude, power or dB, got '{word}'")
        kind = kinds[word.lower()]
    if args.has():
        raise args.error("the limiter gain is not supported")
    if kind == "power" and value < 0:
        raise args.error("a power ratio must not be negative")
    factor = {"amplitude": value, "power": math.sqrt(max(value, 0.0)), "dB": 10 ** (value / 20)}[kind]
    return (x * factor).clamp(-1, 1), sr


EDIT_EFFECTS = {"trim": _trim, "pad": _pad, "channels": _channels, "remix": _remix, "gain": _gain, "vol": _vol}
