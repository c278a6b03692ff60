"""ember.futures.Future, collect_all, wait_all and the eager ember.fork / ember.wait (core/ember/futures.py), with
PyTorch's documented behaviour and messages written out."""
import threading

import pytest

import ember
from ember.futures import Future, collect_all, wait_all


def test_fork_runs_now_and_wait_returns_the_value():
    calls = []

    def double(x, *, scale=2):
        calls.append(threading.current_thread())
        return x * scale
    fut = ember.fork(double, ember.ones(2), scale=3)
    assert calls == [threading.current_thread()] and fut.done()
    assert ember.wait(fut).tolist() == [3.0, 3.0]
    assert fut.value().tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match="boom"):
        ember.fork(lambda: (_ for _ in ()).throw(ValueError("boom")))
    with pytest.raises(TypeError, match="wait\\(\\): incompatible function arguments"):
        ember.wait(3)


def test_set_result_then_and_errors():
    f = Future()
    assert not f.done()
    with pytest.raises(RuntimeError, match="before the Future completed"):
        f.value()
    chained = f.then(lambda fut: fut.wait() * 2)
    seen = []
    f.add_done_callback(lambda fut: seen.append(fut.value()))
    f.set_result(3)
    assert chained.wait() == 6 and seen == [3]
    with pytest.raises(RuntimeError, match="Attempting to mark a completed Future as complete again"):
        f.set_result(4)
    failing = f.then(lambda fut: 1 / 0)
    with pytest.raises(RuntimeError, match="Got the following error when running the callback: ZeroDivisionError"):
        failing.wait()
    g = Future()
    g.set_exception(ValueError("x"))
    with pytest.raises(ValueError, match="x"):
        g.wait()
    assert g.then(lambda fut: 1).wait() == 1  # a callback that ignores the error completes normally


def test_wait_from_another_thread_and_collect_all():
    a, b = Future(), Future()
    everything = collect_all([a, b])
    got = []
    waiter = threading.Thread(target=lambda: got.append(wait_all(everything.wait())))
    waiter.start()
    a.set_result(1)
    assert not everything.done()
    b.set_result(2)
    waiter.join(timeout=10)
    assert got == [[1, 2]]
    assert collect_all([]).wait() == []
