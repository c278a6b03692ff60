"""collect_callgrind: instruction counts are the same for two runs of the same statement (each in
its own valgrind process), grow with the work done, and split per function."""
import shutil

import pytest

import ember
from ember.utils.benchmark import CallgrindStats, FunctionCounts, Timer

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")]


@pytest.fixture(scope="module")
def stats():
    t = Timer("x + x", globals={"x": ember.ones(100)})
    first = t.collect_callgrind(number=20)
    second = t.collect_callgrind(number=20)
    bigger = Timer("x + x; x * x", globals={"x": ember.ones(100)}).collect_callgrind(number=20)
    return first, second, bigger


def test_identical_counts_for_two_runs(stats):
    first, second, _ = stats
    assert isinstance(first, CallgrindStats) and first.counts() > 0
    assert first.counts() == second.counts()
    assert len(first.delta(second)) == 0


def test_counts_follow_the_work(stats):
    first, _, bigger = stats
    assert bigger.counts() > 1.5 * first.counts()
    assert first.baseline_exclusive_stats.sum() < first.counts() / 5  # an empty loop costs far less
    d = bigger.delta(first)
    assert d.sum() == bigger.counts() - first.counts()
    assert any("ember" in fn for _, fn in d)


def test_function_counts(stats):
    first = stats[0]
    exc, inc = first.stats(), first.stats(inclusive=True)
    assert isinstance(exc, FunctionCounts) and not exc.inclusive and inc.inclusive
    assert exc.sum() == first.counts() and max(c for c, _ in inc) >= max(c for c, _ in exc)
    counts = [c for c, _ in exc]
    assert counts == sorted(counts, reverse=True)
    top = exc[:3]
    assert isinstance(top, FunctionCounts) and len(top) == 3
    assert (exc * 2).sum() == 2 * exc.sum() and (exc - exc).sum() == 0
    assert exc.filter(lambda fn: "ember" in fn).sum() + exc.filter(lambda fn: "ember" not in fn).sum() == exc.sum()
    std = first.as_standardized().stats()
    assert std.sum() == exc.sum() and not any("/site-packages/" in fn and fn.startswith("/") for _, fn in std)
    assert "Instructions:" in repr(first)


def test_unpicklable_globals_are_refused():
    with pytest.raises(ValueError, match="cannot be pickled"):
        Timer("f()", globals={"f": lambda: None}).collect_callgrind(number=1)
