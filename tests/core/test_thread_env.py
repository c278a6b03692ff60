"""The thread count as users control it, in fresh interpreters: MKL_NUM_THREADS, else OMP_NUM_THREADS,
set before import decide ember's intra-op thread count (PyTorch's rule in ATen's ParallelCommon.cpp:
both read, MKL_NUM_THREADS wins, an invalid value is ignored with a warning); that count is the
number of worker threads that really run; PyTorch's inter-op setters (settable once); and no OpenMP
runtime in the process for another library's to take over."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember

DEFAULT = os.cpu_count()


def run(code, **env):
    """Runs code in a fresh interpreter with only the given thread variables set; its stdout and stderr."""
    full = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    full.update(env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip(), r.stderr


def threads_with(**env):
    out, err = run("import warnings; warnings.simplefilter('always')\n"
                   "import ember; print(ember.get_num_threads())", **env)
    return int(out), err


@pytest.mark.parametrize("var", ["OMP_NUM_THREADS", "MKL_NUM_THREADS"])
@pytest.mark.parametrize("n", [1, 3])
def test_environment_sets_the_thread_count(var, n):
    assert threads_with(**{var: str(n)}) == (n, "")


def test_unset_means_one_thread_per_core():
    assert threads_with()[0] == DEFAULT


def test_mkl_num_threads_wins_over_omp_num_threads():
    assert threads_with(OMP_NUM_THREADS="1", MKL_NUM_THREADS="3")[0] == 3
    assert threads_with(OMP_NUM_THREADS="3", MKL_NUM_THREADS="1")[0] == 1


@pytest.mark.parametrize("value,want", [(" 4 ", 4), ("3,2", 3)])
def test_blanks_and_an_openmp_nesting_list_read_as_openmp_does(value, want):
    assert threads_with(OMP_NUM_THREADS=value) == (want, "")


@pytest.mark.parametrize("value", ["abc", "0", "-2", "", "4x", "2.5", "99999999999999999999"])
def test_invalid_value_is_ignored_with_a_warning(value):
    n, err = threads_with(OMP_NUM_THREADS=value)
    assert n == DEFAULT
    assert "RuntimeWarning" in err and f"ignoring OMP_NUM_THREADS='{value}'" in err and "positive integer" in err


def test_invalid_mkl_value_leaves_omp_num_threads_in_charge():
    n, err = threads_with(OMP_NUM_THREADS="3", MKL_NUM_THREADS="abc")
    assert n == 3 and "ignoring MKL_NUM_THREADS='abc'" in err


def test_set_num_threads_overrides_the_environment():
    out, _ = run("import ember; ember.set_num_threads(2); print(ember.get_num_threads())", OMP_NUM_THREADS="1")
    assert out == "2"


WORKERS = """
import os, ember
def threads():
    return len(os.listdir('/proc/self/task'))
before = threads()
x = ember.ones(4_000_000)
for _ in range(3):
    (x + 1).neg_()  # far past the elementwise grain: splits over every thread there is
print(threads() - before)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through Linux's /proc")
@pytest.mark.parametrize("n", [1, 3])
def test_the_count_is_the_number_of_threads_that_run(n):
    # n threads work on a loop: the caller and n - 1 workers (none at all for one thread).
    out, _ = run(WORKERS, OMP_NUM_THREADS=str(n))
    assert int(out) == n - 1


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads Linux's /proc/self/maps")
def test_no_openmp_runtime_is_loaded():
    # ember's loops run on its own threads: with no libgomp/libiomp of ember's in the process, a
    # library that brings its own (PyTorch ships libgomp.so.1) cannot take ember's loops over.
    out, _ = run("""
        import ember
        x = ember.ones(4_000_000)
        (x + 1).sum(); ember.fft.rfft(x); x.reshape(2000, 2000) @ x.reshape(2000, 2000)[:, :64]
        maps = open('/proc/self/maps').read()
        print([lib for lib in ('libgomp', 'libiomp', 'libomp') if lib in maps])
    """)
    assert out == "[]"


def test_interop_threads_default_and_set_once():
    out, _ = run("""
        import ember
        print(ember.get_num_interop_threads())
        for bad in (0, -1):
            try:
                ember.set_num_interop_threads(bad)
            except RuntimeError as e:
                print(e)
        ember.set_num_interop_threads(3)
        print(ember.get_num_interop_threads())
        try:
            ember.set_num_interop_threads(2)
        except RuntimeError as e:
            print(e)
        print(ember.get_num_interop_threads())
    """)
    assert out.splitlines() == [
        str(DEFAULT),
        "set_num_interop_threads expects a positive integer",
        "set_num_interop_threads expects a positive integer",
        "3",
        "Error: cannot set number of interop threads after parallel work has started or "
        "set_num_interop_threads called",
        "3"]


def test_interop_setter_rejects_non_integers():
    with pytest.raises(TypeError):
        ember.set_num_interop_threads("2")
    with pytest.raises(TypeError):
        ember.set_num_interop_threads(1.5)
