"""Parsing SoX's effect arguments: numbers, frequencies (`3k`), filter widths with their unit suffix (q, h,
k, o, s), and time positions (`[[hh:]mm:]ss[.frac]` or `N s` samples)."""
from __future__ import annotations

import math


class Args:
    """An effect's argument list, read front to back, with errors that name the effect and the value."""

    def __init__(self, name, args):
        self.name = name
        self.args = [str(a) for a in args]

    def error(self, message):
        return ValueError(f"{self.name}: {message} (arguments: {' '.join(self.args) or 'none'})")

    def flag(self, *names):
        """Pops a leading option such as "-c" when it is one of names; returns it or None."""
        if self.args and self.args[0] in names:
            return self.args.pop(0)
        return None

    def has(self):
        return bool(self.args)

    def number(self, what, default=None, lo=-math.inf, hi=math.inf):
        if not self.args:
            if default is None:
                raise self.error(f"missing {what}")
            return default
        text = self.args.pop(0)
        try:
            value = float(text)
        except ValueError:
            raise self.error(f"{what} must be a number, got '{text}'") from None
        if not lo <= value <= hi:
            raise self.error(f"{what} must be in [{lo}, {hi}], got {value}")
        return value

    def frequency(self, what="frequency", default=None):
        if not self.args and default is not None:
            return default
        text = self.args[0] if self.args else ""
        scale = 1000.0 if text.endswith("k") else 1.0
        if scale != 1.0:
            self.args[0] = text[:-1]
        return self.number(what, default) * scale

    def width(self, allowed, default=None):
        """(value, unit): unit is the suffix letter, else allowed[0] (SoX's default unit for the effect)."""
        if not self.args:
            if default is None:
                raise self.error("missing width")
            return default
        text = self.args.pop(0)
        unit = text[-1] if text and text[-1].isalpha() else allowed[0]
        number = text[:-1] if text and text[-1].isalpha() else text
        if unit not in allowed + "k":
            raise self.error(f"width unit '{unit}' is not one of {', '.join(allowed)}")
        try:
            value = float(number)
        except ValueError:
            raise self.error(f"width must be a number with an optional unit, got '{text}'") from None
        if value <= 0:
            raise self.error(f"width must be positive, got {value}")
        return (value * 1000.0, "h") if unit == "k" else (value, unit)

    def done(self):
        if self.args:
            raise self.error(f"unexpected argument '{self.args[0]}'")


def parse_time(text, sample_rate, what="position"):
    """A SoX time spec -> samples (float): `N s` is N samples, else [[hh:]mm:]ss[.frac] seconds."""
    text = str(text)
    try:
        if text.endswith("s"):
            return float(text[:-1])
        seconds = 0.0
        for part in text.split(":"):
            seconds = seconds * 60 + float(part)
        return seconds * sample_rate
    except ValueError:
        raise ValueError(f"invalid {what} '{text}': expected [[hh:]mm:]ss[.frac] or a sample count such as 800s") \
            from None


def q_from_width(width, unit, fc, sample_rate, gain_db=0.0):
    """The Q whose cookbook alpha equals the alpha SoX derives from width in `unit` (biquads.c's rules)."""
    w0 = 2 * math.pi * fc / sample_rate
    if unit == "q":
        return width
    if unit == "h":
        return fc / width
    if unit == "o":
        return 1 / (2 * math.sinh(math.log(2) / 2 * width * w0 / math.sin(w0)))
    A = math.exp(gain_db / 40 * math.log(10))  # unit "s": shelf slope
    return 1 / math.sqrt((A + 1 / A) * (1 / width - 1) + 2)
