"""batch_norm on float32 planes long enough for the vectorized sums and gradient pass (with tails
of every length), on data far from zero mean, against the closed-form NumPy formulas in float64."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


def reference(x, w, b, g, eps):
    dims = (0,) + tuple(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    x, g = x.astype(np.float64), g.astype(np.float64)
    mean, var = x.mean(dims), x.var(dims)
    inv = 1 / np.sqrt(var + eps)
    xhat = (x - mean.reshape(shape)) * inv.reshape(shape)
    y = xhat * w.reshape(shape) + b.reshape(shape)
    count = x.size / x.shape[1]
    gb, gw = g.sum(dims), (g * xhat).sum(dims)
    gx = (w * inv).reshape(shape) * (g - gb.reshape(shape) / count - xhat * gw.reshape(shape) / count)
    return y, gx, gw, gb


@pytest.mark.parametrize("shape", [(3, 5, 7, 11), (2, 9, 17), (4, 8, 16, 16), (2, 3, 5, 3)])
def test_training_forward_and_gradients(shape):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 3 + 100).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    w = rng.uniform(0.5, 2, shape[1]).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    xt, wt, bt = (ember.tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.batch_norm(xt, None, None, wt, bt, training=True, eps=1e-5)
    y.backward(ember.tensor(g))
    for got, want in zip((y.detach(), xt.grad, wt.grad, bt.grad), reference(x, w, b, g, 1e-5)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=2e-5 * np.abs(want).max())


def test_running_statistics_and_evaluation():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((4, 6, 9, 10)) - 20).astype(np.float32)
    rm, rv = ember.zeros(6), ember.ones(6)
    F.batch_norm(ember.tensor(x), rm, rv, training=True, momentum=0.5)
    dims = (0, 2, 3)
    np.testing.assert_allclose(rm.numpy(), 0.5 * x.astype(np.float64).mean(dims), rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), 0.5 + 0.5 * x.astype(np.float64).var(dims, ddof=1), rtol=1e-5)
    y = F.batch_norm(ember.tensor(x), rm, rv, training=False)
    want = (x - rm.numpy()[None, :, None, None]) / np.sqrt(rv.numpy()[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
