"""Instruction counts under Callgrind (Timer.collect_callgrind): the statement runs in a child
Python under `valgrind --tool=callgrind`, inside ember._C._callgrind_region, and only that region is
counted (`--toggle-collect`), one profile dump per region (`--dump-after`): first a baseline loop of
`pass`, then the statement's loops; each dump is read into per-function counts.
Instruction counts do not depend on what else the machine is doing, unlike wall times."""
import collections
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

__all__ = ["FunctionCount", "FunctionCounts", "CallgrindStats", "collect_callgrind"]

FunctionCount = collections.namedtuple("FunctionCount", ["count", "function"])
_REGION = "ember_callgrind_region"


class FunctionCounts:
    """(count, function) pairs sorted by count, from callgrind; arithmetic merges by function name."""

    def __init__(self, data, inclusive, truncate_rows=True):
        self._data = tuple(FunctionCount(int(c), f) for c, f in data)
        self.inclusive, self.truncate_rows = inclusive, truncate_rows

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __getitem__(self, item):
        data = self._data[item]
        return FunctionCounts(data, self.inclusive, truncate_rows=False) if isinstance(item, slice) else data

    def __repr__(self):
        width = max((len(f"{c:,}") for c, _ in self), default=1)
        rows = [f"  {c:>{width},}  {fn}" for c, fn in self]
        if self.truncate_rows and len(rows) > 18:
            rows = rows[:9] + ["...".rjust(width + 2)] + rows[-9:]
        rows.append(f"\nTotal: {self.sum():,}")
        return "\n".join([object.__repr__(self)] + rows)

    def _merge(self, other, sign):
        if self.inclusive != other.inclusive:
            raise ValueError("Cannot merge inclusive and exclusive counts.")
        counts = collections.defaultdict(int)
        for c, fn in self:
            counts[fn] += c
        for c, fn in other:
            counts[fn] += sign * c
        return self._from_dict(counts, self.inclusive)

    def __add__(self, other):
        return self._merge(other, 1)

    def __sub__(self, other):
        return self._merge(other, -1)

    def __mul__(self, factor):
        return self._from_dict({fn: int(c * factor) for c, fn in self}, self.inclusive)

    def transform(self, map_fn):
        counts = collections.defaultdict(int)
        for c, fn in self:
            counts[map_fn(fn)] += c
        return self._from_dict(counts, self.inclusive)

    def filter(self, filter_fn):
        return FunctionCounts([i for i in self if filter_fn(i.function)], self.inclusive)

    def sum(self):
        return sum(c for c, _ in self)

    def denoise(self):
        """Without CPython's dict lookups of names, whose counts vary from run to run."""
        return self.filter(lambda fn: "dictobject.c:lookdict_unicode" not in fn)

    @staticmethod
    def _from_dict(counts, inclusive):
        return FunctionCounts(sorted(((c, fn) for fn, c in counts.items() if c), reverse=True), inclusive)


class CallgrindStats:
    """Counts for `number_per_run` runs of a statement, and for as many runs of `pass` (baseline)."""

    def __init__(self, task_spec, number_per_run, built_with_debug_symbols, baseline_inclusive_stats,
                 baseline_exclusive_stats, stmt_inclusive_stats, stmt_exclusive_stats, stmt_callgrind_out):
        self.task_spec, self.number_per_run = task_spec, number_per_run
        self.built_with_debug_symbols = built_with_debug_symbols
        self.baseline_inclusive_stats = baseline_inclusive_stats
        self.baseline_exclusive_stats = baseline_exclusive_stats
        self.stmt_inclusive_stats, self.stmt_exclusive_stats = stmt_inclusive_stats, stmt_exclusive_stats
        self.stmt_callgrind_out = stmt_callgrind_out

    def __repr__(self):
        base = self.baseline_exclusive_stats
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"{'':>25}All{'':>10}Noisy symbols removed",
                 f"    Instructions: {self.counts(denoise=False):>12}{'':>15}{self.counts(denoise=True):>12}",
                 f"    Baseline:     {base.sum():>12}{'':>15}{base.denoise().sum():>12}",
                 f"{self.number_per_run} runs per measurement, {self.task_spec.num_threads} thread"
                 f"{'s' if self.task_spec.num_threads > 1 else ''}"]
        return "\n".join(lines)

    def stats(self, inclusive=False):
        return self.stmt_inclusive_stats if inclusive else self.stmt_exclusive_stats

    def counts(self, *, denoise=False):
        stats = self.stmt_exclusive_stats
        return (stats.denoise() if denoise else stats).sum()

    def delta(self, other, inclusive=False):
        return self.stats(inclusive=inclusive) - other.stats(inclusive=inclusive)

    def as_standardized(self):
        """Function names with install prefixes stripped, so profiles from two trees can be diffed."""
        def strip(stats):
            rules = ((r"^.+/site-packages/", "site-packages/"), (r"^.+/Python-3\.\d+\.\d+/", "Python/"),
                     (r"^.+/lib/python3\.\d+/", "Python/"), (r"^.+/core/csrc/", "ember/csrc/"))

            def clean(fn):
                fn = re.sub(r"\s*\[[^\[\]]*\]$", "", fn)  # the " [/path/lib.so]" suffix
                path, sep, name = fn.rpartition(":")
                for pattern, repl in rules:
                    path = re.sub(pattern, repl, path)
                return path + sep + name
            return stats.transform(clean)

        return CallgrindStats(self.task_spec, self.number_per_run, self.built_with_debug_symbols,
                              strip(self.baseline_inclusive_stats), strip(self.baseline_exclusive_stats),
                              strip(self.stmt_inclusive_stats), strip(self.stmt_exclusive_stats), None)


_CHILD = """
import pickle, sys
import ember
with open(sys.argv[1], "rb") as f:
    _globals = pickle.load(f)
_globals.setdefault("torch", ember)
_globals.setdefault("ember", ember)
ember.set_num_threads({num_threads})
exec(compile({setup!r}, "<setup>", "exec"), _globals)
exec(compile({loops!r}, "<stmt>", "exec"), _globals)
_globals["_ember_stmt_loop"]()  # warm-up outside the counted region: first-call costs are not the statement's
ember._C._callgrind_region(_globals["_ember_baseline_loop"])
for _ in range({repeats}):
    ember._C._callgrind_region(_globals["_ember_stmt_loop"])
"""


def _loops_source(stmt, number):
    body = textwrap.indent(stmt, "        ")
    return (f"def _ember_stmt_loop():\n    for _ in range({number}):\n{body}\n"
            f"def _ember_baseline_loop():\n    for _ in range({number}):\n        pass\n")


def _has_debug_symbols():
    import ember
    with open(ember._C.__file__, "rb") as f:
        return b".debug_info" in f.read()


def _parse_profile(path):
    """(inclusive, exclusive) FunctionCounts of one callgrind dump, read from its documented format
    (written uncompressed). A cost line after `calls=` is the call's inclusive cost, charged to the
    caller's inclusive count only. Read directly rather than through callgrind_annotate, which charges
    the whole region to every frame above it in dumps after the first."""
    self_cost, call_cost = collections.defaultdict(int), collections.defaultdict(int)
    obj = file = fn = None
    after_calls = False
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                cost = int(line.split()[-1]) if len(line.split()) > 1 else 0
                key = f"{file}:{fn} [{obj}]"
                (call_cost if after_calls else self_cost)[key] += cost
                after_calls = False
                continue
            tag, _, value = line.rstrip("\n").partition("=")
            if tag == "ob":
                obj = value
            elif tag == "fl":
                file = value
            elif tag == "fn":
                fn = value
            elif tag == "calls":
                after_calls = True
    keys = set(self_cost) | set(call_cost)
    inclusive = {k: self_cost[k] + call_cost[k] for k in keys}
    return FunctionCounts._from_dict(inclusive, True), FunctionCounts._from_dict(dict(self_cost), False)


def collect_callgrind(task_spec, globals, number, repeats, retain_out_file=False):
    """CallgrindStats for each of `repeats` collections of `number` runs of task_spec.stmt."""
    if shutil.which("valgrind") is None:
        raise OSError("collect_callgrind needs valgrind installed (`valgrind` not found on PATH)")
    shared = {k: v for k, v in globals.items() if k not in ("torch", "ember") and not k.startswith("__")}
    try:
        blob = pickle.dumps(shared)
    except Exception as e:
        raise ValueError(f"collect_callgrind passes globals to a child process by pickle, and one of "
                         f"{sorted(shared)} cannot be pickled: {e}") from e
    work = tempfile.mkdtemp(prefix="ember_callgrind_")
    try:
        gpath, spath = os.path.join(work, "globals.pkl"), os.path.join(work, "child.py")
        with open(gpath, "wb") as f:
            f.write(blob)
        with open(spath, "w") as f:
            f.write(_CHILD.format(num_threads=task_spec.num_threads, setup=task_spec.setup,
                                  loops=_loops_source(task_spec.stmt, number), repeats=repeats))
        out = os.path.join(work, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", f"--toggle-collect={_REGION}",
               f"--dump-after={_REGION}", "--dump-instr=no", "--collect-atstart=no",
               "--compress-strings=no", "--compress-pos=no", sys.executable, spath, gpath]
        # a fixed hash seed: str hashes decide dict probe lengths, and so instruction counts
        env = dict(os.environ, PYTHONHASHSEED="0")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode:
            raise RuntimeError(f"collect_callgrind: the child process failed (exit {proc.returncode}):\n"
                               f"{proc.stderr[-3000:]}")
        dumps = sorted((p for p in os.listdir(work) if p.startswith("callgrind.out.")),
                       key=lambda p: int(p.rsplit(".", 1)[1]))
        if len(dumps) != repeats + 1:
            raise RuntimeError(f"collect_callgrind: expected {repeats + 1} profile dumps, found {len(dumps)}")
        paths = [os.path.join(work, d) for d in dumps]
        base_inc, base_exc = _parse_profile(paths[0])
        results = []
        for p in paths[1:]:
            kept = None
            if retain_out_file:
                kept = os.path.join(tempfile.gettempdir(), f"ember_callgrind_{os.getpid()}_{os.path.basename(p)}")
                shutil.copy(p, kept)
            results.append(CallgrindStats(task_spec, number, _has_debug_symbols(), base_inc, base_exc,
                                          *_parse_profile(p), kept))
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)
