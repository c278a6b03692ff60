"""An in-place op on a view that reshapes its whole dense base (a linear layer's 3-d output passed to
ReLU(inplace=True)) takes its gradient to the base by a reshape instead of the generic scatter through position
tables; the gradients equal the out-of-place computation's, and views that are not such reshapes keep the generic
path's results."""
import numpy as np

import ember
from ember.autograd import gradcheck


def _data(*shape, seed=0):
    return ember.from_numpy(np.random.default_rng(seed).normal(size=shape))


def test_relu_inplace_on_reshaped_linear_output():
    x = _data(3, 5, 4).requires_grad_(True)
    w = _data(6, 4, seed=1).requires_grad_(True)
    upstream = _data(3, 5, 6, seed=2)

    def run(inplace):
        y = (x.reshape(15, 4) @ w.t()).reshape(3, 5, 6)  # a view of the product, as linear's 3-d output
        y = ember.relu_(y) if inplace else ember.relu(y)
        return ember.autograd.grad((y * upstream).sum(), (x, w))

    got, want = run(True), run(False)
    assert ember.equal(got[0], want[0]) and ember.equal(got[1], want[1])


def test_inplace_on_reshape_passes_gradcheck():
    def f(a):
        v = (a * 1.0).reshape(2, 6)
        v.mul_(a.reshape(2, 6).sin())  # in place on the reshaped view, depending on a again
        return v

    a = _data(3, 4).requires_grad_(True)
    assert gradcheck(f, (a,))


def test_views_that_are_not_whole_reshapes_keep_their_gradients():
    base = _data(4, 6).requires_grad_(True)
    for make in (lambda b: b[1:3], lambda b: b.t(), lambda b: b.reshape(24)[2:14].reshape(3, 4),
                 lambda b: b[:, ::2], lambda b: b.reshape(24)):
        b = base * 1.0
        make(b).mul_(2.0)
        (grad,) = ember.autograd.grad((b * b.detach()).sum(), base)
        scale = ember.ones(4, 6, dtype=base.dtype)
        make(scale).mul_(2.0)  # 2 where the view reaches, 1 elsewhere
        np.testing.assert_allclose(grad.numpy(), (scale * base.detach() * scale).numpy(), rtol=1e-12)
