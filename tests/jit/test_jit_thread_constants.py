"""Scripted graphs run on several threads at once (fork, or plain threads) keep per-thread copies of their
number constants: results equal eager ones for float, int and bool constants, in every thread, and an op's
result never aliases a constant another run could see."""
import threading

import numpy as np

import ember
import ember.jit


def numbers(x, n: int):
    for _ in range(n):
        x = (x * 0.5 + 3) % 7.0 - (x > 2.5).to(x.dtype) * 2
    return x


def reference(x0: float, n: int) -> float:
    x = np.float32(x0)
    for _ in range(n):
        x = np.float32(np.fmod(x * np.float32(0.5) + np.float32(3), np.float32(7.0))) - np.float32(x > 2.5) * 2
    return float(x)


def test_forked_and_threaded_runs_agree_with_the_reference():
    fn = ember.jit.script(numbers)
    starts = [0.25, 1.5, 4.0, 6.5]
    with ember.no_grad():
        futs = [ember.jit.fork(fn, ember.tensor([s]), 200) for s in starts]
        got = [ember.jit.wait(f).item() for f in futs]
    assert got == [reference(s, 200) for s in starts]

    results = {}

    def run(s):
        results[s] = fn(ember.tensor([s]), 300).item()
    threads = [threading.Thread(target=run, args=(s,)) for s in starts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {s: reference(s, 300) for s in starts}


def test_a_result_never_aliases_a_constant():
    @ember.jit.script
    def add_zero(x):
        y = ember.add(x, 2.0)
        return y.add_(1.0)
    for _ in range(3):  # an in-place write to a result must not reach the next run's constants
        assert add_zero(ember.tensor([1.0])).tolist() == [4.0]
