"""Compare's tables: grouping by label, rows by (threads, sub_label), columns by description, merged
replicates, units, trimmed figures, colours and warning marks (PyTorch's layout, written out here)."""
import pytest

from ember.utils.benchmark import Compare, Measurement, TaskSpec
from ember.utils.benchmark.utils.compare import BEST, VERY_BAD


def m(label, sub, desc, t, threads=1, env=None, n=8, contention=None):
    spec = TaskSpec(stmt="f()", setup="pass", label=label, sub_label=sub, description=desc, num_threads=threads,
                    env=env)
    return Measurement(1, [t * (1 + 0.001 * i) for i in range(n)], spec, contention=contention)


def test_table_layout():
    results = [m("add", "float", "n=1", 1.5e-6), m("add", "float", "n=4", 3.0e-6),
               m("add", "int", "n=1", 2.0e-6), m("add", "float", "n=1", 1.6e-6, threads=4)]
    lines = str(Compare(results)).splitlines()
    assert lines[0].startswith("[") and " add " in lines[0] and lines[0].endswith("]")
    assert lines[1].split("|")[1].strip() == "n=1" and lines[1].split("|")[2].strip() == "n=4"
    assert lines[2].startswith("1 threads: ") and set(lines[2][len("1 threads: "):]) == {"-"}
    assert [c.strip() for c in lines[3].split("|")] == ["float", "1.5", "3.0"]
    assert [c.strip() for c in lines[4].split("|")] == ["int", "2.0", ""]
    assert lines[5].startswith("4 threads: ")
    assert [c.strip() for c in lines[6].split("|")][:2] == ["float", "1.6"]
    assert lines[-1] == "Times are in microseconds (us)."


def test_labels_make_tables_and_replicates_merge():
    a1, a2 = m("a", "x", "d", 1e-3, n=4), m("a", "x", "d", 3e-3, n=4)
    out = str(Compare([a1, a2, m("b", "y", "d", 2e-3)]))
    assert out.count("Times are in milliseconds (ms).") == 2
    row = [line for line in out.splitlines() if line.strip().startswith("x")][0]
    assert float(row.split("|")[1]) == pytest.approx(2.0, abs=1.0)  # the pooled median of 1 and 3 ms


def test_trim_colour_and_warnings():
    results = [m("op", "fast", "c", 1.0e-6), m("op", "slow", "c", 6.0e-6)]
    noisy = TaskSpec(stmt="g()", setup="pass", label="op", sub_label="noisy", description="c")
    results.append(Measurement(1, [1e-6, 3e-6, 9e-6, 2e-6], noisy))
    c = Compare(results)
    c.trim_significant_figures()
    c.colorize()
    c.highlight_warnings()
    out = str(c)
    fast = [line for line in out.splitlines() if "fast" in line][0]
    slow = [line for line in out.splitlines() if "slow" in line][0]
    assert BEST in fast and VERY_BAD in slow
    assert "(! " in [line for line in out.splitlines() if "noisy" in line][0]
    assert "Measurement has high variance" in out


def test_envs_and_contention_are_reported():
    out = str(Compare([m("op", "x", "c", 1e-6, env="old"), m("op", "x", "c", 1.2e-6, env="new", contention=0.5)]))
    assert "(old)" in out and "(new)" in out
    assert "1 of 2 measurements ran while other processes used up to 50% of the CPU." in out


def test_only_measurements():
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        Compare([1.0])
