"""ember.jit.fork / wait: results (against the same calls made directly), exceptions carried to wait,
scripted functions forked from eager code, nested fork/wait inside forked tasks (no deadlock however
many tasks wait on others). Timing is measured in tools/bench/jit_fork.py, not asserted here."""
import numpy as np
import pytest

import ember
import ember.jit
from ember.futures import Future


def work(x, k: int):
    for _ in range(k):
        x = x.sin() + 1.0
    return x


def test_fork_returns_a_future_of_the_result():
    x = ember.randn(5)
    fut = ember.jit.fork(work, x, 3)
    assert isinstance(fut, Future)
    np.testing.assert_allclose(ember.jit.wait(fut).numpy(), work(x, 3).numpy(), rtol=1e-6)


def test_forked_scripted_calls_give_their_results():
    s = ember.jit.script(work)
    xs = [ember.randn(4) for _ in range(6)]
    futs = [ember.jit.fork(s, x, 20) for x in xs]
    for x, f in zip(xs, futs):
        np.testing.assert_allclose(ember.jit.wait(f).numpy(), work(x, 20).numpy(), rtol=1e-5)


def test_exception_of_the_task_is_raised_by_wait():
    def bad(x):
        raise ValueError("bad input")
    fut = ember.jit.fork(bad, 1)
    with pytest.raises(ValueError, match="bad input"):
        ember.jit.wait(fut)


def test_nested_forks_do_not_deadlock():
    def tree(depth, x):
        if depth == 0:
            return x + 1
        a = ember.jit.fork(tree, depth - 1, x)
        b = ember.jit.fork(tree, depth - 1, x)
        return ember.jit.wait(a) + ember.jit.wait(b)
    out = ember.jit.wait(ember.jit.fork(tree, 5, ember.zeros(1)))
    assert out.item() == 32.0  # 2**5 leaves, each 0 + 1


def test_wait_and_fork_refuse_wrong_arguments():
    with pytest.raises(TypeError, match="Future"):
        ember.jit.wait(3)
    with pytest.raises(TypeError, match="callable"):
        ember.jit.fork(3)
