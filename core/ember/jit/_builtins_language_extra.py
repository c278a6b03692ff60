"""Python builtins and methods TorchScript scripts that ember's compiler had no form of, written in the script
language (so no new primitive): sorted(list), dict.setdefault, str.zfill/ljust/rjust/center/isdigit/isalpha/isalnum/
isspace, Tensor.type(dtype), and
printf-style `"%d of %s" % (n, s)` (a constant format string rewritten into str.format's, with TorchScript's
aten::percentFormat specifiers)."""
from __future__ import annotations

from typing import Any

from ember import Tensor


def sorted_list(xs: Any) -> Any:  # TorchScript's sorted() takes no key or reverse
    out = xs.copy()
    out.sort()
    return out


def dict_setdefault(d: Any, key: Any, default: Any) -> Any:
    if key not in d:
        d[key] = default
    return d[key]


def zfill(s: str, width: int) -> str:
    n = len(s)
    if n >= width:
        return s
    if n > 0 and (s[0] == "+" or s[0] == "-"):
        return s[0] + "0" * (width - n) + s[1:]
    return "0" * (width - n) + s


def _check_fill(fillchar: str):
    if len(fillchar) != 1:
        raise TypeError("The fill character must be exactly one character long")


def ljust(s: str, width: int, fillchar: str = " ") -> str:
    _check_fill(fillchar)
    return s + fillchar * (width - len(s)) if len(s) < width else s


def rjust(s: str, width: int, fillchar: str = " ") -> str:
    _check_fill(fillchar)
    return fillchar * (width - len(s)) + s if len(s) < width else s


def center(s: str, width: int, fillchar: str = " ") -> str:
    _check_fill(fillchar)
    margin = width - len(s)
    if margin <= 0:
        return s
    left = margin // 2 + (margin % 2) * (width % 2)  # CPython's split of an odd margin
    return fillchar * left + s + fillchar * (margin - left)


def _all_in(s: str, chars: str) -> bool:
    for c in s:
        if c not in chars:
            return False
    return len(s) > 0


# ASCII classes (TorchScript's str predicates test ASCII characters too)
_DIGITS, _SPACE = "0123456789", " \t\n\r\x0b\x0c"
_LOWER, _UPPER = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def isdigit(s: str) -> bool:
    return _all_in(s, _DIGITS)


def isalpha(s: str) -> bool:
    return _all_in(s, _LOWER + _UPPER)


def isalnum(s: str) -> bool:
    return _all_in(s, _LOWER + _UPPER + _DIGITS)


def isspace(s: str) -> bool:
    return _all_in(s, _SPACE)


def tensor_type(self: Tensor, dtype: int) -> Tensor:
    return self.to(dtype)


STR_METHODS = {"zfill": zfill, "ljust": ljust, "rjust": rjust, "center": center, "isdigit": isdigit,
               "isalpha": isalpha, "isalnum": isalnum, "isspace": isspace}

_PERCENT_SPECS = {"d": "{}", "i": "{}", "s": "{}", "f": "{:f}", "e": "{:e}", "E": "{:E}"}


def percent_to_format(fmt: str) -> tuple[str, list[str]]:
    """A printf-style format as str.format's ('%d of %s' -> '{} of {}') and its conversions in order. TorchScript's
    percentFormat takes %d %i %s %f %e %E %c and %%, nothing else (no widths or precisions): another specifier raises
    its message. %c (a character code) is refused: the interpreter's str.format has no 'c'."""
    out, kinds, k = [], [], 0
    while k < len(fmt):
        ch = fmt[k]
        if ch != "%":
            out.append("{{" if ch == "{" else "}}" if ch == "}" else ch)
            k += 1
            continue
        spec = fmt[k + 1] if k + 1 < len(fmt) else ""
        if spec == "%":
            out.append("%")
        elif spec == "c":
            raise NotImplementedError("%c in a format string is not supported in script functions")
        elif spec in _PERCENT_SPECS and spec:
            out.append(_PERCENT_SPECS[spec])
            kinds.append(spec)
        else:
            raise ValueError(f"The specifier %{spec} is not supported in TorchScript format strings")
        k += 2
    return "".join(out), kinds
