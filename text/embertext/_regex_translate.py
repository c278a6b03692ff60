"""Python `re` patterns and replacement templates in the forms RegexTokenizer's C++ class (RE2) takes, with
Python's meaning kept: RE2's \\d, \\w and \\s are ASCII-only where Python's are Unicode, so they become sets
of the code points Python matches; Python's \\Z, \\uXXXX, \\N{...} and {,n} become RE2's spellings. What RE2
cannot express the way Python means it (Unicode word boundaries \\b/\\B, '$' before a final newline)
raises ValueError here; lookarounds and backreferences are refused by RE2 itself. A difference left: under
IGNORECASE, Python also matches 'i' and 'I' with U+0130 and U+0131 (Turkish dotted and dotless i) and RE2 does
not, and RE2 folds U+0345 into \\w."""

import functools
import re
import unicodedata
from typing import List, Tuple

_CLASSES = "dDwWsS"  # Python's Unicode classes, spelt out for RE2 from Python's own matches (see _members)
_HEX = {"x": 2, "u": 4, "U": 8}
_OCTAL = "01234567"
_DIGITS = "0123456789"
_TEMPLATE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _code_point(c: int) -> str:
    return "\\x{%x}" % c


@functools.lru_cache(maxsize=None)
def _members(escape: str) -> str:
    """The code points Python's `escape` (\\w, \\S, ...) matches, as RE2 set members (ranges): RE2's own \\p{..}
    tables are of another Unicode version than this Python's. Each run of matches in the string of every code
    point in order is a range; surrogates, which UTF-8 text cannot hold, are left out."""
    every = "".join(map(chr, range(0x110000)))
    out = []
    for m in re.finditer(escape + "+", every):
        for lo, hi in ((m.start(), min(m.end() - 1, 0xD7FF)), (max(m.start(), 0xE000), m.end() - 1)):
            if lo <= hi:
                out.append(_code_point(lo) if lo == hi else f"{_code_point(lo)}-{_code_point(hi)}")
    return "".join(out)


def _three_octal(text: str, i: int) -> bool:
    """Whether the escape at text[i] is an octal one of three digits (\\101), not a group reference (\\10)."""
    digits = text[i + 1:i + 4]
    return len(digits) == 3 and all(d in _OCTAL for d in digits)


def _escape(pattern: str, i: int, in_set: bool) -> Tuple[str, int]:
    """The RE2 form of the escape at pattern[i] (a backslash) and the index after it."""
    c = pattern[i + 1]
    if c in _CLASSES:
        members = _members("\\" + c)
        return (members if in_set else f"[{members}]"), i + 2
    if c == "Z":
        return "\\z", i + 2
    if c == "b" and in_set:
        return "\\x08", i + 2  # a backspace, in a set
    if c in "bB":
        raise ValueError(f"RegexTokenizer: \\{c} (a Unicode word boundary) in '{pattern}' has no RE2 equivalent")
    if c in _HEX:
        n = _HEX[c]
        return _code_point(int(pattern[i + 2:i + 2 + n], 16)), i + 2 + n
    if c == "N":
        end = pattern.index("}", i)
        return _code_point(ord(unicodedata.lookup(pattern[i + 3:end]))), end + 1
    if c == "0" or _three_octal(pattern, i):
        j = i + 2
        while j < len(pattern) and j < i + 4 and pattern[j] in _OCTAL:
            j += 1
        return _code_point(int(pattern[i + 1:j], 8)), j
    if not c.isascii():
        return c, i + 2  # Python takes an escaped non-ASCII character literally; RE2 refuses the escape
    return pattern[i:i + 2], i + 2  # the rest (\., \n, \A, backreferences for RE2 to refuse) as written


def to_re2(pattern: str) -> str:
    """`pattern` (Python syntax) rewritten for RE2 with the same meaning; raises re.error for a pattern Python
    rejects and ValueError for one RE2 cannot express."""
    if not isinstance(pattern, str):
        raise TypeError(f"RegexTokenizer: a pattern must be a str, got {type(pattern).__name__}")
    multiline = bool(re.compile(pattern).flags & re.MULTILINE)
    out: List[str] = []
    i, set_start = 0, -1  # set_start: where the current [...] set's members begin (-1: outside a set)
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            piece, i = _escape(pattern, i, set_start >= 0)
            out.append(piece)
            continue
        if set_start < 0:
            if c == "[":
                set_start = i + 1 + (pattern[i + 1:i + 2] == "^")
                out.append(pattern[i:set_start])
                i = set_start
                continue
            if c == "$" and not multiline:
                raise ValueError(f"RegexTokenizer: '$' in '{pattern}' also matches before a final newline in Python, "
                                 "which RE2 cannot express: write \\Z for the end of the text")
            quantifier = re.match(r"\{,(\d+)\}", pattern[i:])
            if quantifier:  # Python's {,n}: RE2 reads it literally
                out.append("{0,%s}" % quantifier.group(1))
                i += quantifier.end()
                continue
            out.append(c)
        elif c == "]" and i > set_start:
            set_start = -1
            out.append(c)
        elif c == "[" or c == "]":  # a literal bracket in a set (RE2 would read [: as a POSIX class)
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def to_template(template: str, pattern: str) -> str:
    """Python's replacement `template` for `pattern` as the C++ class's: literal text with backslashes doubled
    and each group reference as \\g<N>. Raises as re.sub would for a bad template."""
    if not isinstance(template, str):
        raise TypeError(f"RegexTokenizer: a replacement must be a str, got {type(template).__name__}")
    compiled = re.compile(pattern)
    compiled.sub(template, "")  # Python's own check of the template (bad escapes, unknown groups)
    out, i = [], 0
    while i < len(template):
        c = template[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = template[i + 1]
        if n == "g":
            end = template.index(">", i)
            name = template[i + 3:end]
            group = compiled.groupindex[name] if name.isidentifier() else int(name)
            out.append(f"\\g<{group}>")
            i = end + 1
        elif n == "0" or _three_octal(template, i):
            j = i + 2
            while j < len(template) and j < i + 4 and template[j] in _OCTAL:
                j += 1
            out.append(chr(int(template[i + 1:j], 8)).replace("\\", "\\\\"))
            i = j
        elif n in _DIGITS:  # ASCII digits only, as Python's template parser
            j = i + 2 + (template[i + 2:i + 3] != "" and template[i + 2] in _DIGITS)
            out.append(f"\\g<{int(template[i + 1:j])}>")
            i = j
        elif n in _TEMPLATE_ESCAPES:
            out.append(_TEMPLATE_ESCAPES[n].replace("\\", "\\\\"))
            i += 2
        else:  # an unknown escape of a non-letter stays as written, backslash and all
            out.append("\\\\" + n)
            i += 2
    return "".join(out)
