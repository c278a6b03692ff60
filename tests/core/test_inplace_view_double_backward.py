"""Second derivatives through an in-place op on a view whose gradient formula reads the op's result (exp_,
sigmoid_, tanh_, sqrt_, reciprocal_): the saved result is unpacked as a view of the base after the op (through
its CopySlices), so the result's own dependence on the input reaches the second derivative. gradgradcheck
compares against finite differences; a closed form checks one case by hand. Before, the result was unpacked
with the op's own node, whose first edge is CopySlices' sentinel, and the second derivative came out 0."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

RESULT_READERS = ["exp_", "sigmoid_", "tanh_", "sqrt_", "reciprocal_"]
VIEWS = {
    "reshape": lambda y: y.view(6),
    "row": lambda y: y[1],
    "column": lambda y: y[:, 2],
    "strided": lambda y: y[:, ::2],
    "transpose": lambda y: y.t(),
}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("name", RESULT_READERS)
def test_second_derivative_through_inplace_op_on_a_view(name, view):
    ember.manual_seed(0)
    x = (ember.rand(2, 3, dtype=ember.float64) + 0.5).requires_grad_()

    def f(x):
        y = x * 1.5
        getattr(VIEWS[view](y), name)()
        return y * x
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_exp_on_a_row_matches_the_closed_form_second_derivative():
    xs = np.array([[0.1, -0.3, 0.7], [0.2, 0.5, -0.4]])
    x = ember.tensor(xs, requires_grad=True)
    y = x * 1.0
    y[0].exp_()
    (g,) = ember.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = ember.autograd.grad(g.sum(), x)
    # d/dx exp(x) = exp(x), and again exp(x), on row 0; row 1 is the identity (second derivative 0)
    want = np.zeros_like(xs)
    want[0] = np.exp(xs[0])
    np.testing.assert_allclose(g.detach().numpy(), np.where(np.arange(2)[:, None] == 0, np.exp(xs), 1.0))
    np.testing.assert_allclose(gg.numpy(), want)


def test_the_view_may_die_before_backward():
    x = ember.rand(4, dtype=ember.float64, requires_grad=True)

    def f(x):
        y = x * 2.0
        y[1:3].sigmoid_()  # the view is a temporary: the saved result still finds its base's history
        return (y * y).sum()
    assert gradgradcheck(f, (x,))


def test_overlapping_inplace_views_still_raise_the_version_error():
    x = ember.rand(2, 3, dtype=ember.float64, requires_grad=True)
    y = x * 1.0
    y[:, 1].sigmoid_()
    y[1].tanh_()  # overwrites an element sigmoid_'s saved result holds
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (y * y).sum().backward()
