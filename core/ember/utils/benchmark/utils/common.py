"""What a benchmark measured: the task (TaskSpec), its replicate times (Measurement) with their
statistics, and the small formatting helpers Timer and Compare share. Names and semantics follow
torch.utils.benchmark.utils.common."""
import collections
import contextlib
import dataclasses
import math
import textwrap
from typing import Any, Optional

import ember

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
           "set_torch_threads", "set_ember_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # below this a spread is timer noise, not the statement's
_IQR_WARN_THRESHOLD = 0.1         # IQR/median above which a measurement is suspect
_IQR_GROSS_WARN_THRESHOLD = 0.25
# the share of the CPU other processes may take before a measurement is flagged as contended
CONTENTION_WARN_THRESHOLD = 0.1


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What was timed (everything a Timer was given except its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: Optional[str] = None
    sub_label: Optional[str] = None
    description: Optional[str] = None
    env: Optional[str] = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def _quantile(sorted_values, q):
    """Linear interpolation between closest ranks (NumPy's and PyTorch's default)."""
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclasses.dataclass(repr=False)
class Measurement:
    """Replicate times of one statement: `raw_times[i]` is the time of `number_per_run` runs.

    `contention`, when the Timer could read it, is the share of the machine's CPU that other processes
    used while the replicates ran (0 on an idle machine); a contended measurement says so in its repr
    and in `has_warnings` (torch.utils.benchmark has no such check).
    """
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: Optional[dict] = None
    contention: Optional[float] = None

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:  # label, stmt, num_threads, ... read through to the task
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    def __getstate__(self):
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__post_init__()

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    def _lazy_init(self):
        if not self.raw_times or self._sorted_times:
            return
        s = tuple(sorted(self.times))
        self._sorted_times = s
        self._median, self._mean = _quantile(s, 0.5), sum(s) / len(s)
        self._p25, self._p75 = _quantile(s, 0.25), _quantile(s, 0.75)
        warnings = []
        rel_iqr = self.iqr / self._median * 100 if self._median else 0.0
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            warnings.append(f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
                            "           This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            warnings.append(f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
                            "           This could indicate system fluctuation.")
        if self.contention is not None and self.contention > CONTENTION_WARN_THRESHOLD:
            warnings.append(f"  WARNING: Other processes used {self.contention * 100:.0f}% of the CPU during this "
                            "measurement.\n           Its times are likely inflated; measure on a quiet machine.")
        self._warnings = tuple(warnings)

    def _stat(self, name):
        if not self.raw_times:
            raise ValueError("Measurement has no times")
        self._lazy_init()
        return getattr(self, name)

    @property
    def median(self) -> float:
        return self._stat("_median")

    @property
    def mean(self) -> float:
        return self._stat("_mean")

    @property
    def iqr(self) -> float:
        return self._stat("_p75") - self._stat("_p25")

    @property
    def significant_figures(self) -> int:
        """Digits the interquartile points support: log10(median / 90% confidence half-width), in [1, 4]."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:math.ceil(3 * n / 4)]
        mean = sum(middle) / len(middle)
        std = math.sqrt(sum((t - mean) ** 2 for t in middle) / len(middle))
        ci = max(1.645 * std / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        return min(max(int(math.floor(math.log10(self._median / ci))), 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    @property
    def contended(self) -> bool:
        return self.contention is not None and self.contention > CONTENTION_WARN_THRESHOLD

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str:
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lo, hi = self._p25 / scale, self._p75 / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({lo:.2f} to {hi:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        lines.extend(self._warnings)
        return "\n".join(line for line in "\n".join(lines).strip().splitlines())

    @staticmethod
    def merge(measurements) -> list:
        """Replicates of the same task pooled into one Measurement per task, at number_per_run=1
        (metadata is dropped: it may differ between replicates; contention keeps the worst)."""
        groups = collections.OrderedDict()
        for m in measurements:
            groups.setdefault(m.task_spec, []).append(m)
        out = []
        for spec, group in groups.items():
            shares = [m.contention for m in group if m.contention is not None]
            out.append(Measurement(1, [t for m in group for t in m.times], spec, None,
                                   max(shares) if shares else None))
        return out


def select_unit(t: float):
    """(unit, scale) so that t / scale is between 1 and 1000 (seconds and up stay in s)."""
    exp = math.floor(math.log10(t)) // 3 if t > 0 else 0
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exp, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """x rounded to n significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise ValueError("Number of significant figures must be an integer")
    if x == 0:
        return 0.0
    scale = 10.0 ** (math.ceil(math.log10(abs(x))) - n)
    return float(round(x / scale) * scale)


def ordered_unique(elements) -> list:
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_ember_threads(n: int):
    prior = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(prior)


set_torch_threads = set_ember_threads  # the name PyTorch code calls
