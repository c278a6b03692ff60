"""Benchmark runner: times cases for ember and its peers (NumPy, and PyTorch when importable in
this interpreter) and prints medians and ratios in a table."""
from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Callable

try:
    import torch  # only ever in a side-by-side virtual environment
except ImportError:
    torch = None


@dataclasses.dataclass
class Case:
    name: str
    unit: str                         # e.g. "us/call", "GB/s", "ns/elem", "s"
    higher_is_better: bool
    impls: dict[str, Callable[[], float]]  # library -> a function returning one measurement
    target: str = ""                  # the goal, as the issue states it
    # a check of ember's median against the goal: fn(ember, peers) -> bool
    meets: Callable[[float, dict], bool] | None = None


def impls(factory: Callable[[str], Callable[[], float]]) -> dict[str, Callable[[], float]]:
    """factory(lib) for ember, NumPy and (when importable) PyTorch: a case's measurements by library."""
    libs = {"ember": factory("ember"), "numpy": factory("numpy")}
    if torch is not None:
        libs["torch"] = factory("torch")
    return libs


def ember_and_torch(factory: Callable[[str], Callable[[], float]]) -> dict[str, Callable[[], float]]:
    """factory(lib) for ember and (when importable) PyTorch, for cases NumPy has no counterpart of."""
    libs = {"ember": factory("ember")}
    if torch is not None:
        libs["torch"] = factory("torch")
    return libs


def median_of(fn: Callable[[], float], runs: int) -> float:
    return statistics.median(fn() for _ in range(runs))


def per_call(fn: Callable[[], object], min_time: float = 0.2) -> float:
    """Seconds per call of fn, from a loop long enough to swamp the timer."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / n
        n *= 2 if dt < min_time / 10 else 4


def best_of(fn: Callable[[], object], reps: int = 5) -> float:
    """Seconds for one call: the fastest of reps (after one warm-up)."""
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(cases: list[Case], runs: int = 3) -> list[dict]:
    """Each case's median per library. The libraries take turns run by run, so that a change in the
    machine's load (it is shared) falls on all of them rather than on whichever ran last."""
    rows = []
    for case in cases:
        samples: dict[str, list[float]] = {lib: [] for lib in case.impls}
        failed: dict[str, Exception] = {}
        for _ in range(runs):
            for lib, fn in case.impls.items():
                if lib in failed:
                    continue
                try:
                    samples[lib].append(fn())
                except Exception as exc:  # a peer missing a feature should not stop the table
                    failed[lib] = exc
        results = {lib: failed[lib] if lib in failed else statistics.median(samples[lib]) for lib in case.impls}
        rows.append({"case": case, "results": results})
    return rows


def fmt(v) -> str:
    if isinstance(v, Exception):
        return f"error: {type(v).__name__}"
    if v is None:
        return "-"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def print_table(rows: list[dict]) -> bool:
    """The table; peers beyond NumPy and PyTorch (e.g. OpenSSL for csprng) get columns when a case has them."""
    peers = ["numpy", "torch"]
    for row in rows:
        peers += [lib for lib in row["results"] if lib != "ember" and lib not in peers]
    libs = ["ember"] + peers
    header = f"{'case':34} {'unit':8} " + " ".join(f"{lib:>9}" for lib in libs) + \
             " " + " ".join(f"{'vs ' + p:>9}" for p in peers) + f"  {'goal':>4}  target"
    print(header)
    print("-" * len(header))
    all_met = True
    for row in rows:
        case, res = row["case"], row["results"]
        e = res.get("ember")
        ratios = []
        for peer in peers:
            p = res.get(peer)
            if isinstance(e, float) and isinstance(p, float) and e > 0 and p > 0:
                ratios.append(f"{(e / p if case.higher_is_better else p / e):.2f}x")
            else:
                ratios.append("-")
        met = "-"
        if case.meets and isinstance(e, float):
            ok = case.meets(e, {k: v for k, v in res.items() if isinstance(v, float)})
            met = "yes" if ok else "NO"
            all_met = all_met and ok
        print(f"{case.name:34} {case.unit:8} " + " ".join(f"{fmt(res.get(lib)):>9}" for lib in libs) +
              " " + " ".join(f"{r:>9}" for r in ratios) + f"  {met:>4}  {case.target}")
    print("(ratios: how many times better ember is than the peer; medians of the runs)")
    return all_met
