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


def test_fork_and_wait_in_scripted_code():
    def both(x, n: int):
        a = ember.jit.fork(work, x, n)
        b = ember.jit.fork(work, x * 2.0, n)
        return ember.jit.wait(a) + ember.jit.wait(b)
    s = ember.jit.script(both)
    assert "prim::fork" in s.graph and "Future[Tensor]" in s.graph and "prim::wait" in s.graph
    x = ember.randn(3)
    np.testing.assert_allclose(s(x, 7).numpy(), (work(x, 7) + work(x * 2.0, 7)).numpy(), rtol=1e-5)


def test_scripted_fork_reads_outer_values_and_survives_save_load():
    import io

    def scaled(x, k: float):
        return x * k

    def f(x):
        k = 3.0
        fut = ember.jit.fork(scaled, x + 1.0, k)
        return ember.jit.wait(fut) - x
    s = ember.jit.script(f)
    buf = io.BytesIO()
    ember.jit.save(s, buf)
    buf.seek(0)
    loaded = ember.jit.load(buf)
    x = ember.tensor([1.0, 2.0])
    np.testing.assert_allclose(loaded(x).numpy(), ((x + 1.0) * 3.0 - x).numpy())


def test_exception_in_a_scripted_fork_is_raised_by_wait():
    def check(x):
        if x.sum() > 0:
            raise ValueError("positive")
        return x

    def f(x):
        return ember.jit.wait(ember.jit.fork(check, x))
    s = ember.jit.script(f)
    np.testing.assert_array_equal(s(-ember.ones(2)).numpy(), -np.ones(2, np.float32))
    with pytest.raises(ValueError, match="positive"):
        s(ember.ones(2))


def test_wait_of_a_non_future_is_a_compile_error():
    def f(x):
        return ember.jit.wait(x)
    with pytest.raises(ember.jit.FrontendError, match="expects a Future"):
        ember.jit.script(f)
