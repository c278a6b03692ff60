"""Timer: times a Python statement the way torch.utils.benchmark.Timer does (timeit, blocked_autorange,
adaptive_autorange, collect_callgrind), plus what its users lacked: repeat/autorange implemented,
each Measurement notes how much CPU other processes took meanwhile, and `ratio_to` times two
statements in alternation so a comparison is measured in one run, under the same conditions."""
import enum
import textwrap
import timeit as _timeit

import ember

from . import common
from .contention import ContentionMeter

__all__ = ["Timer", "timer", "Language", "Ratio"]

timer = _timeit.default_timer  # a CPU-only build has no device to synchronize


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def _call_text(fn):
    return f"{getattr(fn, '__qualname__', None) or type(fn).__qualname__}()"


def _clean(code):
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Times `stmt` after `setup`, with ember's thread pool at `num_threads` (default 1, as PyTorch's).

    label/sub_label/description/env describe the measurement for printing and `Compare`. `globals` are
    the names the statement sees; `torch` and `ember` are both bound to ember, so a PyTorch snippet
    runs unchanged. `stmt` and `setup` may also be callables taking no arguments.
    """

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("ember's Timer times Python statements only: C++ statements (language='c++') "
                                      "are not supported")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply be "
                             "moved to `setup`.")
        if not (isinstance(stmt, str) or callable(stmt)) or not (isinstance(setup, str) or callable(setup)):
            raise ValueError("stmt and setup must be strings of Python code or callables")
        if not isinstance(num_threads, int) or isinstance(num_threads, bool) or num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {num_threads!r}")
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", ember)
        self._globals.setdefault("ember", ember)
        stmt_text = _clean(stmt) if isinstance(stmt, str) else _call_text(stmt)
        setup_text = _clean(setup) if isinstance(setup, str) else _call_text(setup)
        self._stmt = stmt_text if isinstance(stmt, str) else stmt
        self._setup = setup_text if isinstance(setup, str) else setup
        self._timer = _timeit.Timer(stmt=self._stmt, setup=self._setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt_text, setup=setup_text, global_setup="", label=label,
                                          sub_label=sub_label, description=description, env=env,
                                          num_threads=num_threads)

    @property
    def task_spec(self):
        return self._task_spec

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)  # a zero time would break ratios downstream

    def _measure(self, number, times, contention):
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec,
                                  contention=contention)

    def timeit(self, number=1000000):
        """One replicate of `number` runs (after a warm-up of number // 100), as timeit.Timer.timeit."""
        number = _positive("number", number)
        with common.set_ember_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            meter = ContentionMeter()
            meter.start()
            t = self._timeit(number)
            return self._measure(number, [t], meter.stop())

    def repeat(self, repeat=-1, number=-1):
        """`repeat` replicates (default 5) of `number` runs each (default: the block size
        blocked_autorange would choose), as timeit.Timer.repeat but returning a Measurement."""
        repeat = 5 if repeat == -1 else _positive("repeat", repeat)
        with common.set_ember_threads(self._task_spec.num_threads):
            number = self._estimate_block_size(0.2) if number == -1 else _positive("number", number)
            meter = ContentionMeter()
            meter.start()
            times = [self._timeit(number) for _ in range(repeat)]
            return self._measure(number, times, meter.stop())

    def autorange(self, callback=None):
        """timeit.Timer.autorange: runs 1, 2, 5, 10, 20, 50, ... times until one replicate takes at
        least 0.2 s; that replicate is the Measurement. callback(number, time) sees every try."""
        with common.set_ember_threads(self._task_spec.num_threads):
            meter = ContentionMeter()
            meter.start()
            base = 1
            while True:
                for step in (1, 2, 5):
                    number = base * step
                    t = self._timeit(number)
                    if callback:
                        callback(number, t)
                    if t >= 0.2:
                        return self._measure(number, [t], meter.stop())
                base *= 10

    def _estimate_block_size(self, min_run_time):
        # Grow the block by 10x until the timer's own overhead is under 0.01% of a block and a block
        # takes a thousandth of the run time (or the block alone exceeds the run time).
        overheads = sorted(self._timeit(0) for _ in range(5))
        overhead = overheads[2]
        number = 1
        while True:
            t = self._timeit(number)
            if (overhead / t <= 1e-4 and t >= min_run_time / 1000) or t > min_run_time or number * 10 > 2 ** 31 - 1:
                return number
            number *= 10

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None, callback=None):
        total, times, can_stop = 0.0, [], False
        meter = ContentionMeter()
        meter.start()
        while total < min_run_time or not can_stop:
            t = self._timeit(number)
            times.append(t)
            total += t
            if callback:
                callback(number, t)
            can_stop = stop_hook(times)
            if max_run_time and total > max_run_time:
                break
        return times, meter.stop()

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of `block_size` runs until min_run_time has passed; block_size grows until the
        timer's overhead is negligible. Many replicates, so median and IQR mean something."""
        with common.set_ember_threads(self._task_spec.num_threads):
            number = self._estimate_block_size(min_run_time)
            times, share = self._measurement_loop(number, lambda times: True, min_run_time, callback=callback)
        return self._measure(number, times, share)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """As blocked_autorange, but keeps going until IQR/median < threshold (with more than 3
        replicates and min_run_time spent) or max_run_time is spent."""
        with common.set_ember_threads(self._task_spec.num_threads):
            number = self._estimate_block_size(0.05)

            def stop_hook(times):
                return len(times) > 3 and self._measure(number, times, None).meets_confidence(threshold)

            times, share = self._measurement_loop(number, stop_hook, min_run_time, max_run_time, callback)
        return self._measure(number, times, share)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True, retain_out_file=False):
        """Instruction counts of `number` runs under valgrind's Callgrind (a CallgrindStats; a tuple of
        `repeats` of them when repeats is given). Needs valgrind; globals are passed by pickle."""
        from .valgrind_wrapper import timer_interface
        if not isinstance(self._stmt, str):
            raise ValueError("collect_callgrind needs a string stmt (the child process cannot receive a callable)")
        if not isinstance(self._setup, str):
            raise ValueError("collect_callgrind needs a string setup (the child process cannot receive a callable)")
        number = _positive("number", number)
        n = 1 if repeats is None else _positive("repeats", repeats)
        stats = timer_interface.collect_callgrind(self._task_spec, self._globals, number, n, retain_out_file)
        return stats[0] if repeats is None else tuple(stats)

    def ratio_to(self, peer, min_run_time=0.4):
        """Times this statement and `peer` (another Timer) in alternating blocks and returns a Ratio:
        the median of this/peer per pair of neighbouring blocks, so both saw the same machine state."""
        if not isinstance(peer, Timer):
            raise TypeError(f"ratio_to expects a Timer, got {type(peer).__name__}")
        with common.set_ember_threads(self._task_spec.num_threads):
            n_self = self._estimate_block_size(min_run_time / 2)
            n_peer = peer._estimate_block_size(min_run_time / 2)
            meter = ContentionMeter()
            meter.start()
            mine, theirs, total = [], [], 0.0
            while total < min_run_time or len(mine) < 4:
                a, b = self._timeit(n_self), peer._timeit(n_peer)
                mine.append(a)
                theirs.append(b)
                total += a + b
            share = meter.stop()
        return Ratio(self._measure(n_self, mine, share), peer._measure(n_peer, theirs, share))


class Ratio:
    """Two Measurements taken in alternation, and the ratio of their per-run times."""

    def __init__(self, first, second):
        self.first, self.second = first, second
        pairs = sorted((a / first.number_per_run) / (b / second.number_per_run)
                       for a, b in zip(first.raw_times, second.raw_times))
        self.ratios = pairs
        self.median = common._quantile(pairs, 0.5)
        self.iqr = common._quantile(pairs, 0.75) - common._quantile(pairs, 0.25)

    def __repr__(self):
        share = self.first.contention
        load = "" if share is None else f", other processes used {share * 100:.0f}% of the CPU"
        return (f"<Ratio {self.first.title} / {self.second.title}: {self.median:.3f} "
                f"(IQR {self.iqr:.3f}, {len(self.ratios)} alternating pairs{load})>")


def _positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value
