"""The worker pool under many short back-to-back jobs at changing thread counts, every loop split
(grain cap 1): each result is checked against NumPy, and the whole run sits in a child process with a
time limit, so a lost wake-up or a miscounted job fails the test instead of hanging the suite."""
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import numpy as np
    import ember
    ember._C._set_parallel_grain_cap(1)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(257).astype(np.float32)
    x, y = ember.tensor(a), ember.tensor(a[::-1].copy())
    for i in range(6000):
        ember.set_num_threads(2 + i % 3)
        n = 1 + i % 257
        got = (x[:n] + y[:n]).numpy()
        assert np.array_equal(got, a[:n] + a[::-1][:n]), i
    print("ok")
""")


def test_many_short_jobs_at_changing_thread_counts():
    run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"
