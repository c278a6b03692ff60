"""Timer: how many times each method runs the statement (counted, not timed), thread settings,
globals, the known-cost agreement with the stdlib's timeit, the contention meter and ratio_to."""
import time
import timeit

import pytest

import ember
from ember.utils.benchmark import Measurement, Timer
from ember.utils.benchmark.utils.contention import ContentionMeter


class Counter:
    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1


def test_timeit_runs_number_plus_warmup():
    c = Counter()
    m = Timer("c()", globals={"c": c}).timeit(500)
    assert c.n == 500 + 5  # the warm-up runs number // 100 times
    assert isinstance(m, Measurement) and m.number_per_run == 500 and len(m.raw_times) == 1


def test_repeat_and_autorange_counts():
    c = Counter()
    m = Timer("c()", globals={"c": c}).repeat(repeat=4, number=25)
    assert c.n == 100 and len(m.raw_times) == 4 and m.number_per_run == 25
    c2 = Counter()
    tries = []
    m = Timer("c()", globals={"c": c2}).autorange(callback=lambda n, t: tries.append((n, t)))
    assert [n for n, _ in tries] == [10 ** k * s for k in range(12) for s in (1, 2, 5)][:len(tries)]
    assert c2.n == sum(n for n, _ in tries)
    assert tries[-1][1] >= 0.2 and all(t < 0.2 for _, t in tries[:-1])
    assert m.number_per_run == tries[-1][0] and m.raw_times == [tries[-1][1]]


def test_blocked_autorange_spends_min_run_time():
    blocks = []
    m = Timer("sum(range(50))").blocked_autorange(callback=lambda n, t: blocks.append((n, t)), min_run_time=0.1)
    assert sum(t for _, t in blocks) >= 0.1
    assert len(m.raw_times) == len(blocks) and all(n == m.number_per_run for n, _ in blocks)


def test_adaptive_autorange_stops_on_confidence_or_time():
    m = Timer("sum(range(50))").adaptive_autorange(threshold=0.5, max_run_time=2.0)
    assert len(m.raw_times) > 3 or sum(m.raw_times) > 2.0


def test_known_cost_agrees_with_stdlib_timeit():
    stmt = "sorted(data)"
    data = list(range(2000, 0, -1))
    ours = Timer(stmt, globals={"data": data}).blocked_autorange(min_run_time=0.3).median
    reference = min(timeit.repeat(stmt, globals={"data": data}, number=200, repeat=5)) / 200
    assert reference / 3 < ours < reference * 3  # both are the same work; a loaded machine skews either


def test_num_threads_set_inside_and_restored():
    seen = []
    before = ember.get_num_threads()
    Timer("seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=2).timeit(3)
    assert set(seen) == {2} and ember.get_num_threads() == before


def test_globals_setup_and_callables():
    t = Timer("y = x * 2", setup="x = ember.ones(3)")
    assert t.timeit(10).number_per_run == 10
    c = Counter()
    m = Timer(c, setup=lambda: None).timeit(20)
    assert c.n == 22 and m.stmt.endswith("Counter()")


@pytest.mark.parametrize("kwargs, error", [
    ({"stmt": 3}, ValueError), ({"language": "c++"}, NotImplementedError), ({"language": "rust"}, ValueError),
    ({"global_setup": "#include <x>"}, ValueError), ({"num_threads": 0}, ValueError),
])
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        Timer(**kwargs)


def test_bad_numbers():
    t = Timer("pass")
    for call in (lambda: t.timeit(0), lambda: t.repeat(0, 1), lambda: t.repeat(2, -5)):
        with pytest.raises(ValueError, match="positive integer"):
            call()


def test_contention_meter_sees_a_busy_peer():
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    stop = ctx.Event()

    def spin(ev):
        while not ev.is_set():
            pass

    peers = [ctx.Process(target=spin, args=(stop,)) for _ in range(2)]
    for p in peers:
        p.start()
    try:
        time.sleep(0.2)
        meter = ContentionMeter()
        meter.start()
        time.sleep(0.5)  # we sleep: nearly all the busy time is the peers'
        share = meter.stop()
    finally:
        stop.set()
        for p in peers:
            p.join()
    assert share is not None and share > 0.5


def test_ratio_to_alternates_blocks():
    fast = Timer("sum(range(10))")
    slow = Timer("sum(range(1000))")
    r = fast.ratio_to(slow, min_run_time=0.2)
    assert len(r.ratios) >= 4 and len(r.first.raw_times) == len(r.second.raw_times)
    assert r.median < 0.5  # 10 items vs 1000 items: clearly cheaper per run, whatever the load
    with pytest.raises(TypeError):
        fast.ratio_to("sum(range(3))")
