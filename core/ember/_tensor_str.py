"""PyTorch-style printing of tensors (tensor([...], dtype=...)) and the print options that steer it.
The rules follow PyTorch's output: one formatter per tensor (per real/imag part for complex) picks
fixed, integer-valued or scientific notation from the shown values; big tensors are summarized."""
import contextlib
import dataclasses
import math

from . import _C


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None


PRINT_OPTS = _PrintOptions()
_PROFILES = {"default": _PrintOptions(), "short": _PrintOptions(precision=2, edgeitems=2),
             "full": _PrintOptions(threshold=math.inf)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Sets how tensors print (as PyTorch's): precision (digits after the point, default 4), threshold
    (element count above which tensors are summarized, 1000), edgeitems (items kept at each end of a
    summarized dim, 3), linewidth (80), profile ('default', 'short' or 'full', applied first) and
    sci_mode (True/False forces scientific notation on or off; None chooses per tensor).
    Options left as None keep their value, except sci_mode which is always set."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions(): unknown profile '{profile}' (expected 'default', 'short' or 'full')")
        base = _PROFILES[profile]
        PRINT_OPTS.precision, PRINT_OPTS.threshold = base.precision, base.threshold
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = base.edgeitems, base.linewidth
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            if name != "threshold" and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise ValueError(f"set_printoptions(): {name} must be a non-negative int, got {value!r}")
            setattr(PRINT_OPTS, name, value)
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise ValueError(f"set_printoptions(): sci_mode must be True, False or None, got {sci_mode!r}")
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict (the keywords of set_printoptions)."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Print options set for the duration of a with-block, then restored."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Elided:
    def __repr__(self):
        return "..."


_ELIDED = _Elided()  # stands for the rows/items a summarized tensor leaves out


def _gather(t, summarize):
    """t's shown elements as nested Python lists, with _ELIDED where a summary cuts a dim."""
    if not summarize or t.dim() == 0:
        return t.tolist()
    n, e = t.shape[0], PRINT_OPTS.edgeitems
    keep = list(range(n)) if n <= 2 * e else list(range(e)) + [None] + list(range(n - e, n))
    if t.dim() == 1:
        if n <= 2 * e:
            return t.tolist()
        return t[:e].tolist() + [_ELIDED] + t[n - e:].tolist()
    return [_ELIDED if i is None else _gather(t[i], True) for i in keep]


def _leaves(nested, out):
    if isinstance(nested, list):
        for x in nested:
            _leaves(x, out)
    elif nested is not _ELIDED:
        out.append(nested)
    return out


class _Formatter:
    """Chooses one notation and width for all the values of a tensor (or of its real/imag parts)."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
        else:
            shown = [v for v in values if math.isfinite(v) and v != 0]
            if not shown:
                return  # only zeros/inf/nan: integer style, and the sci_mode option does not apply
            mags = [abs(v) for v in shown]
            lo, hi = min(mags), max(mags)
            self.int_mode = all(v == math.ceil(v) for v in shown)
            p = PRINT_OPTS.precision
            # The notation is chosen first (a forced sci_mode included), then the width for it.
            if PRINT_OPTS.sci_mode is not None:
                self.sci_mode = PRINT_OPTS.sci_mode
            else:
                self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
            if self.sci_mode:
                self.max_width = max(len(f"{v:.{p}e}") for v in shown)
            elif self.int_mode:
                self.max_width = max(len(f"{v:.0f}") + 1 for v in shown)  # + 1 for the trailing '.'
            else:
                self.max_width = max(len(f"{v:.{p}f}") for v in shown)

    def width(self):
        return self.max_width

    def format(self, value):
        p = PRINT_OPTS.precision
        if not self.floating:
            s = str(value)
        elif self.sci_mode:
            s = f"{value:{self.max_width}.{p}e}"
        elif self.int_mode:
            s = f"{value:.0f}"
            if math.isfinite(value):
                s += "."
        else:
            s = f"{value:.{p}f}"
        return " " * (self.max_width - len(s)) + s


def _element(value, f1, f2):
    if f2 is None:
        return f1.format(value)
    real = f1.format(value.real)
    imag = (f2.format(value.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector(values, indent, f1, f2):
    elem_len = f1.width() + 2 + (f2.width() + 1 if f2 is not None else 0)
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / elem_len)))
    items = [" ..." if v is _ELIDED else _element(v, f1, f2) for v in values]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(data, dim, indent, f1, f2):
    if dim == 0:
        return _element(data, f1, f2)
    if dim == 1:
        return _vector(data, indent, f1, f2)
    rows = ["..." if r is _ELIDED else _nested(r, dim - 1, indent + 1, f1, f2) for r in data]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(rows) + "]"


def _body(t, indent):
    """The bracketed values of a non-empty tensor with data."""
    data = _gather(t, t.numel() > PRINT_OPTS.threshold)
    values = _leaves(data, [])
    if t.is_complex():
        f1 = _Formatter([v.real for v in values], True)
        f2 = _Formatter([v.imag for v in values], True)
    else:
        f1, f2 = _Formatter(values, t.is_floating_point()), None
    return _nested(data, t.dim(), indent, f1, f2)


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last_line_len = len(text) - text.rfind("\n") + 1  # PyTorch's count, kept so lines break alike
    for s in suffixes:
        if last_line_len + len(s) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last_line_len = indent + len(s)
        else:
            out.append(", " + s)
            last_line_len += len(s) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t, plain=True):
    """What repr(t) shows; `plain` says "tensor(" rather than the subclass's name."""
    prefix = "tensor(" if plain else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default = _C.get_default_dtype()
    default_complex = _C.complex128 if default == _C.float64 else _C.complex64
    shows_dtype = t.dtype != default
    if t.is_meta:
        suffixes.append(f"size={tuple(t.shape)}")
        body = "..."
    elif t.numel() == 0:
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        body = "[]"  # no values to tell an int tensor from a float one: any non-default dtype is named
    else:
        shows_dtype = t.dtype not in (default, default_complex, _C.int64, _C.bool)
        body = _body(t, indent)
    if shows_dtype:
        suffixes.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
