"""Second derivatives through in-place ops whose gradient formula reads the input they overwrite (sin_, cos_,
log_, reciprocal_, ...): the saved copy of the input keeps its history, so gradgradcheck (finite differences)
agrees. Before, the copy was saved without history and the second derivative came out 0."""
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

INPLACE = ["sin_", "cos_", "log_", "reciprocal_", "atan_", "erf_", "sigmoid_", "tanh_", "exp_", "sqrt_"]


@pytest.mark.parametrize("name", INPLACE)
def test_second_derivative_through_inplace_op(name):
    ember.manual_seed(0)
    x = (ember.rand(2, 3, dtype=ember.float64) + 0.5).requires_grad_()

    def f(x):
        y = x * 1.5
        getattr(y, name)()
        return y * y
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_inplace_on_a_copy_then_further_ops():
    x = ember.rand(4, dtype=ember.float64, requires_grad=True)

    def f(x):
        y = x * 2.0
        y.sin_()
        y.cos_()
        return (y * x).sum()
    assert gradgradcheck(f, (x,))
