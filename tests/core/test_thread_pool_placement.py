"""The worker pool's placement step (core/csrc/device/thread_pool.cpp: a worker woken on its caller's CPU
narrows its CPU set to leave that CPU and widens it again). The cases that change CPU sets run in a child
process with a time limit: results are checked against NumPy, and every worker's CPU set must come back to
what it was (the pool moves its workers but never pins them)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember

linux_affinity = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs Linux CPU sets")

PREAMBLE = textwrap.dedent("""
    import os
    import threading
    import time
    import numpy as np
    import ember

    def thread_cpu_sets():
        return {int(t): frozenset(os.sched_getaffinity(int(t))) for t in os.listdir("/proc/self/task")}

    def check_sums(rounds):
        rng = np.random.default_rng(0)
        a = rng.standard_normal(1 << 20).astype(np.float32)
        b = rng.standard_normal(1 << 20).astype(np.float32)
        x, y = ember.tensor(a), ember.tensor(b)
        for i in range(rounds):
            n = (1 << 20) - 7 * i
            assert np.array_equal((x[:n] + y[:n]).numpy(), a[:n] + b[:n]), i
""")


def run_child(body):
    run = subprocess.run([sys.executable, "-c", PREAMBLE + textwrap.dedent(body)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().endswith("ok"), run.stdout[-2000:]


@linux_affinity
def test_one_cpu_for_caller_and_workers():
    # Nowhere to move to: the workers stay beside the caller and every job still finishes right.
    run_child("""
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        earlier = set(thread_cpu_sets())  # threads the libraries started at import keep their own sets
        ember.set_num_threads(3)
        check_sums(40)
        workers = {t: s for t, s in thread_cpu_sets().items() if t not in earlier}
        assert workers and all(s == {cpu} for s in workers.values()), workers
        print("ok")
    """)


@linux_affinity
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 if hasattr(os, "sched_getaffinity") else True,
                    reason="needs two CPUs")
def test_workers_started_on_the_callers_cpu_keep_their_cpu_set():
    # The workers start on the caller's one CPU (a new thread inherits its creator's set), then get
    # every CPU back while the caller stays on its one, so a worker woken where it last ran is beside
    # the caller and moves off (when the scheduler has not moved it first). Whatever moves happen,
    # every worker's set afterwards is the full one it was given, and the sums are right.
    run_child("""
        full = os.sched_getaffinity(0)
        cpu = min(full)
        os.sched_setaffinity(0, {cpu})
        me = threading.get_native_id()
        earlier = set(thread_cpu_sets())
        ember.set_num_threads(2)
        check_sums(2)
        workers = [t for t in thread_cpu_sets() if t not in earlier]
        assert workers
        for t in workers:
            os.sched_setaffinity(t, full)
        check_sums(60)
        # A worker woken late for the last job (its share already done by others) may still be between
        # narrowing and widening its set when the job returns: wait for that moment to pass.
        deadline = time.monotonic() + 10
        while True:
            sets = thread_cpu_sets()
            if all(sets[t] == frozenset(full) for t in workers if t in sets) or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert all(sets[t] == frozenset(full) for t in workers if t in sets), sets
        assert sets[me] == {cpu}
        print("ok")
    """)


@pytest.mark.parametrize("threads", [2, 3])
def test_elementwise_pieces_cover_strided_and_broadcast_inputs(threads):
    # Past the grain (32768 elements) an elementwise op splits over the threads, workers moved or not;
    # the pieces of a many-dimensional iteration start mid-row, so a transposed and a broadcast operand
    # check that each piece finds its own position.
    rng = np.random.default_rng(1)
    a = rng.standard_normal((517, 389)).astype(np.float32)
    row = rng.standard_normal(517).astype(np.float32)
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(threads)
        jobs = ember._C._parallel_jobs_run()
        got = ember.tensor(a).t() * ember.tensor(row) - 1.5
        assert ember._C._parallel_jobs_run() > jobs
    finally:
        ember.set_num_threads(before)
    np.testing.assert_array_equal(got.numpy(), a.T * row - np.float32(1.5))
