"""Common-subexpression elimination across blocks (the scoped walk of jit/passes.cpp): an op inside an if or
loop merges with the same op before it, an op inside a branch stays apart from the same op after the branch
or in the other branch (neither dominates the other), and a merged value is read correctly by every later
use, in nested blocks and in a block's returns."""
import numpy as np

import ember


def test_branch_op_merges_with_the_one_before_it():
    def f(x, flag: bool):
        a = ember.sin(x)
        if flag:
            b = ember.sin(x) * 2
        else:
            b = ember.sin(x) * 3
        return a + b

    s = ember.jit.script(f)
    assert s.graph.count("aten::sin(") == 1
    x = ember.tensor([0.5, -1.0])
    np.testing.assert_allclose(s(x, True).numpy(), np.sin([0.5, -1.0]) * 3, rtol=1e-6)
    np.testing.assert_allclose(s(x, False).numpy(), np.sin([0.5, -1.0]) * 4, rtol=1e-6)


def test_branch_op_stays_apart_from_the_one_after_and_the_other_branch():
    def f(x, flag: bool):
        if flag:
            b = ember.cos(x) + 1
        else:
            b = ember.cos(x) + 2
        return b * ember.cos(x)

    s = ember.jit.script(f)
    assert s.graph.count("aten::cos(") == 3
    x = ember.tensor([0.25, 2.0])
    c = np.cos([0.25, 2.0])
    np.testing.assert_allclose(s(x, True).numpy(), (c + 1) * c, rtol=1e-6)
    np.testing.assert_allclose(s(x, False).numpy(), (c + 2) * c, rtol=1e-6)


def test_merged_values_reach_nested_uses_and_block_returns():
    def f(x, n: int):
        y = ember.exp(x) - ember.exp(x)  # the second exp merges into the first
        acc = ember.exp(x)
        for _ in range(n):
            if n > 1:
                acc = acc + ember.exp(x) + y
            else:
                acc = ember.exp(x)
        return acc

    s = ember.jit.script(f)
    assert s.graph.count("aten::exp(") == 1
    x = ember.tensor([0.1, 0.7])
    e = np.exp([0.1, 0.7])
    np.testing.assert_allclose(s(x, 3).numpy(), 4 * e, rtol=1e-6)
    np.testing.assert_allclose(s(x, 1).numpy(), e, rtol=1e-6)
    np.testing.assert_allclose(s(x, 0).numpy(), e, rtol=1e-6)
