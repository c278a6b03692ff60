"""The interpreter's run time (core/csrc/jit/plan.*, interpreter.cpp): register moves on a last read,
loop-carried values, pre-boxed constant arguments and the unboxed op path, each against the same
function run as Python."""
import threading

import numpy as np

import ember
import ember.jit


def check_same(fn, *args):
    scripted = ember.jit.script(fn)
    for _ in range(3):  # repeated runs reuse frames and the plan: nothing may leak between them
        got, want = scripted(*args), fn(*args)
        if isinstance(want, tuple):
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
        else:
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_loop_carried_values_swap_each_iteration():
    def swap(a, b):
        for _ in range(3):
            a, b = b, a + 1.0
        return a, b
    check_same(swap, ember.tensor([1.0]), ember.tensor([10.0]))


def test_value_read_twice_by_one_op_and_later():
    def reuse(x):
        y = x.sin()
        z = y * y
        return z + y
    check_same(reuse, ember.tensor([0.3, -1.2]))


def test_loop_reads_outer_value_every_iteration():
    def outer(x, w):
        acc = x
        for _ in range(4):
            acc = acc * w + 0.5
        return acc, w
    check_same(outer, ember.tensor([1.0, 2.0]), ember.tensor([0.5, 3.0]))


def test_if_returning_a_value_defined_outside():
    def pick(x, flag: bool):
        y = x.cos()
        if flag:
            z = y
        else:
            z = x * 2.0
        return z + y
    check_same(pick, ember.tensor([0.1, 0.2]), True)
    check_same(pick, ember.tensor([0.1, 0.2]), False)


def test_constant_operand_survives_in_place_change_of_a_result():
    def scale(x):
        y = ember.mul(2.0, x)
        y.add_(100.0)
        return y
    s = ember.jit.script(scale)
    x = ember.tensor([1.0, 2.0])
    for _ in range(3):
        np.testing.assert_array_equal(s(x).numpy(), np.array([102.0, 104.0], np.float32))


def test_number_constant_promotes_as_eager_does():
    def f(x):
        return x * 1.5 + 2
    check_same(f, ember.tensor([1, 2, 3]))  # int tensor and float constant: float result
    assert ember.jit.script(f)(ember.tensor([1, 2])).dtype == ember.float32


def test_list_arguments_take_the_boxed_path():
    def cat_sum(a, b):
        return ember.cat([a, b], 0).sum(0)
    check_same(cat_sum, ember.ones(2, 3), ember.zeros(1, 3))


def test_ops_recorded_by_the_profiler_when_scripted():
    from ember.profiler import ProfilerActivity, profile

    s = ember.jit.script(lambda_free)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        s(ember.tensor([1.0]))
    names = [e.name for e in prof.events()]
    assert "aten::sin" in names and "aten::mul" in names


def lambda_free(x):
    return x.sin() * 3.0


def test_threads_share_one_scripted_function():
    s = ember.jit.script(lambda_free)
    xs = [ember.tensor([float(i)]) for i in range(8)]
    out = [None] * 8

    def work(k):
        for _ in range(50):
            out[k] = s(xs[k])
    ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for k in range(8):
        np.testing.assert_allclose(out[k].numpy(), np.sin(np.float32(k)) * 3.0, rtol=1e-6)
