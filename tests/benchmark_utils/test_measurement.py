"""Measurement's statistics against NumPy, its repr in PyTorch's layout, merge, and the helpers."""
import pickle

import numpy as np
import pytest

from ember.utils.benchmark import Measurement, TaskSpec, select_unit, trim_sigfig

SPEC = TaskSpec(stmt="x + y", setup="pass", label="add", sub_label="float", description="n=4")


def test_statistics_match_numpy():
    rng = np.random.default_rng(0)
    raw = list(rng.uniform(1e-3, 2e-3, size=37))
    m = Measurement(number_per_run=10, raw_times=raw, task_spec=SPEC)
    per_run = np.array(raw) / 10
    assert m.times == pytest.approx(per_run.tolist())
    assert m.median == pytest.approx(np.median(per_run))
    assert m.mean == pytest.approx(per_run.mean())
    assert m.iqr == pytest.approx(np.quantile(per_run, 0.75) - np.quantile(per_run, 0.25))


def test_significant_figures_reference():
    raw = [1.0 + 0.001 * i for i in range(100)]
    m = Measurement(1, raw, SPEC)
    s = np.sort(raw)
    middle = s[25:75]
    ci = 1.645 * middle.std() / np.sqrt(len(middle))
    assert m.significant_figures == min(max(int(np.floor(np.log10(np.median(s) / ci))), 1), 4)
    assert Measurement(1, [5e-6] * 8, SPEC).significant_figures == 2  # spread below 25 ns: the floor decides


def test_warnings_for_spread_and_for_contention():
    steady = Measurement(1, [1.0, 1.01, 0.99, 1.0, 1.0], SPEC)
    assert not steady.has_warnings
    noisy = Measurement(1, [1.0, 2.0, 0.5, 1.5, 3.0], SPEC)
    assert noisy.has_warnings and "significant environmental influence" in repr(noisy)
    loaded = Measurement(1, [1.0, 1.0, 1.0, 1.0], SPEC, contention=0.6)
    assert loaded.has_warnings and loaded.contended and "Other processes used 60% of the CPU" in repr(loaded)


def test_repr_layout():
    m = Measurement(100, [5.0e-4, 5.2e-4, 5.1e-4, 5.3e-4, 5.0e-4], SPEC)
    lines = repr(m).splitlines()
    assert lines[0].startswith("<ember.utils.benchmark.utils.common.Measurement object at 0x")
    assert lines[1:3] == ["add: float", "n=4"]
    assert lines[3] == "  Median: 5.10 us"
    assert lines[4] == "  IQR:    0.20 us (5.00 to 5.20)"
    assert lines[5] == "  5 measurements, 100 runs per measurement, 1 thread"
    single = Measurement(1000, [2.5e-3], TaskSpec("f()", "pass", num_threads=2))
    assert repr(single).splitlines()[1:] == ["f()", "  2.50 us", "  1 measurement, 1000 runs , 2 threads"]


def test_task_fields_read_through_and_pickle():
    m = Measurement(1, [1.0, 2.0], SPEC, metadata={"k": 1})
    assert (m.label, m.sub_label, m.stmt, m.num_threads, m.env) == ("add", "float", "x + y", 1, "Unspecified env")
    assert m.title == "add: float" and m.as_row_name == "float"
    back = pickle.loads(pickle.dumps(m))
    assert back.median == m.median and back.metadata == {"k": 1}
    with pytest.raises(AttributeError):
        m.no_such_field


def test_merge_pools_replicates_per_task():
    other = TaskSpec(stmt="x * y", setup="pass")
    a = Measurement(10, [1.0, 2.0], SPEC, contention=0.05)
    b = Measurement(5, [1.0], SPEC, contention=0.3)
    c = Measurement(1, [7.0], other)
    merged = Measurement.merge([a, b, c])
    assert [m.task_spec for m in merged] == [SPEC, other]
    assert merged[0].number_per_run == 1 and merged[0].raw_times == pytest.approx([0.1, 0.2, 0.2])
    assert merged[0].contention == 0.3 and merged[0].metadata is None


@pytest.mark.parametrize("t, unit", [(3e-9, "ns"), (4.5e-7, "ns"), (2e-6, "us"), (0.02, "ms"), (3.0, "s"), (5e3, "s")])
def test_select_unit(t, unit):
    assert select_unit(t)[0] == unit


def test_trim_sigfig():
    assert trim_sigfig(3.14159, 2) == pytest.approx(3.1)
    assert trim_sigfig(123456.0, 3) == pytest.approx(123000.0)
    assert trim_sigfig(0.00098765, 2) == pytest.approx(0.00099)
    with pytest.raises(ValueError):
        trim_sigfig(1.0, 1.5)
