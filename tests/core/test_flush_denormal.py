"""ember.set_flush_denormal: FTZ/DAZ on the calling thread and on the pool's workers (core/csrc/device/denormal.cpp),
checked by the results of float arithmetic on subnormal numbers (NumPy's float64 smallest normal is the reference)."""
import platform
import threading

import numpy as np
import pytest

import ember

TINY = np.finfo(np.float64).smallest_normal / 1e6  # a subnormal float64
x86 = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64", "i686"), reason="MXCSR is x86's")


@pytest.fixture
def restore():
    threads = ember.get_num_threads()
    yield
    ember.set_flush_denormal(False)
    ember.set_num_threads(threads)


@x86
def test_flushes_on_the_calling_thread_and_the_pool(restore):
    ember.set_num_threads(2)
    x = ember.full((1 << 20,), TINY, dtype=ember.float64)
    warm = x * 1.0  # the workers exist (and ran) before the mode changes
    assert int((warm != 0).sum()) == x.numel()
    jobs = ember._C._parallel_jobs_run()
    assert ember.set_flush_denormal(True) is True
    flushed = x * 1.0
    assert ember._C._parallel_jobs_run() > jobs  # the multiply did split across the pool
    assert int((flushed != 0).sum()) == 0  # every share, the workers' included, flushed
    assert float((ember.tensor([TINY], dtype=ember.float64) * 3.0)[0]) == 0.0
    assert ember.set_flush_denormal(False) is True
    again = x * 1.0
    assert int((again != 0).sum()) == x.numel()
    np.testing.assert_array_equal(again[:4].numpy(), np.full(4, TINY))


@x86
def test_float32_too(restore):
    tiny32 = np.float32(np.finfo(np.float32).smallest_normal / 1e3)
    x = ember.full((4,), float(tiny32), dtype=ember.float32)
    assert ember.set_flush_denormal(True)
    assert int(((x * 1.0) != 0).sum()) == 0
    ember.set_flush_denormal(False)
    np.testing.assert_array_equal((x * 1.0).numpy(), np.full(4, tiny32))


def test_bool_only_as_pytorch():
    for bad in (1, "x", None):
        with pytest.raises(RuntimeError, match=f"flush_denormal expects a bool, but got {type(bad).__name__}"):
            ember.set_flush_denormal(bad)


@x86
def test_other_python_threads_keep_their_own_mode(restore):
    # PyTorch's mode is the calling thread's: a thread that did not set it still keeps subnormals
    assert ember.set_flush_denormal(True)
    seen = []
    t = threading.Thread(target=lambda: seen.append(float(np.float64(TINY) * np.float64(1.0))))
    t.start()
    t.join()
    assert seen == [TINY]
