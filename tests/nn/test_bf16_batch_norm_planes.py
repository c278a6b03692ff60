"""bfloat16 batch norm on NCHW planes (autocast's batch norms; on AVX-512 the planes are read and written
in 16-bit, 16 values at a time, with a scalar tail): every output rounded to the nearest bfloat16 of
the exact result (within half an ulp plus float32 slack, so truncation or double rounding shows), for
plane sizes with and without a tail, in training and evaluation, forward and backward, with a NaN
or an infinity confined to its own channel. The reference is NumPy in float64 from the exact bf16
values (bf16-rounded inputs, float32 parameters)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

RNG = np.random.default_rng(2025)
EPS = 1e-5
SLACK = 2.0**-20  # float32 arithmetic before the one rounding


def half_ulp(ref):
    """Half the spacing of bfloat16 (8 significant bits) at each |ref|."""
    with np.errstate(divide="ignore"):
        return np.where(ref == 0, 0.0, np.exp2(np.floor(np.log2(np.abs(ref))) - 8))


def exact(t):
    return t.float().numpy().astype(np.float64)


def bf16_input(shape, scale=1.0, shift=0.0):
    t = ember.tensor((RNG.standard_normal(shape) * scale + shift).astype(np.float32)).to(ember.bfloat16)
    return t, exact(t)


def params(c):
    w = ember.tensor(RNG.uniform(0.5, 2.0, c).astype(np.float32))
    b = ember.tensor(RNG.uniform(-1.0, 1.0, c).astype(np.float32))
    return w, b, exact(w), exact(b)


def assert_rounded_once(got, ref, atol):
    """got (bf16) is ref rounded to nearest: within half an ulp of ref (truncation can miss by a whole
    one), plus float32 slack."""
    g = exact(got)
    assert g.shape == ref.shape
    err = np.abs(g - ref)
    bound = half_ulp(ref) + SLACK * np.abs(ref) + atol
    worst = np.argmax(err - bound)
    assert np.all(err <= bound), f"error {err.flat[worst]} at {worst} where the bound is {bound.flat[worst]}"


def reference(xn, wn, bn):
    mean, var = xn.mean(axis=(0, 2, 3)), xn.var(axis=(0, 2, 3))
    invstd = 1.0 / np.sqrt(var + EPS)
    s = (1, -1, 1, 1)
    xhat = (xn - mean.reshape(s)) * invstd.reshape(s)
    return xhat * wn.reshape(s) + bn.reshape(s), xhat, invstd


# plane sizes: a single value, exactly one vector of 16, vectors and a tail (7x7, 5x6), ResNet's 14x14
@pytest.mark.parametrize("shape", [(3, 4, 1, 1), (2, 3, 4, 4), (4, 5, 7, 7), (2, 6, 5, 6), (2, 3, 14, 14)])
def test_training_forward_rounds_once(shape):
    x, xn = bf16_input(shape, scale=3.0, shift=0.7)
    w, b, wn, bn = params(shape[1])
    rm, rv = ember.zeros(shape[1]), ember.ones(shape[1])
    y = F.batch_norm(x, rm, rv, w, b, True, 0.1, EPS)
    assert y.dtype == ember.bfloat16
    ref, _, _ = reference(xn, wn, bn)
    assert_rounded_once(y, ref, 1e-6)
    n = xn.size // shape[1]
    np.testing.assert_allclose(rm.numpy(), 0.1 * xn.mean(axis=(0, 2, 3)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * xn.var(axis=(0, 2, 3)) * n / (n - 1), rtol=1e-5)


def test_evaluation_forward_uses_the_running_statistics():
    x, xn = bf16_input((3, 4, 9, 9), scale=2.0)
    w, b, wn, bn = params(4)
    rm_n, rv_n = RNG.uniform(-0.5, 0.5, 4), RNG.uniform(0.5, 3.0, 4)
    rm, rv = ember.tensor(rm_n.astype(np.float32)), ember.tensor(rv_n.astype(np.float32))
    y = F.batch_norm(x, rm, rv, w, b, False, 0.1, EPS)
    s = (1, -1, 1, 1)
    mean, var = exact(rm), exact(rv)
    ref = (xn - mean.reshape(s)) / np.sqrt(var.reshape(s) + EPS) * wn.reshape(s) + bn.reshape(s)
    assert_rounded_once(y, ref, 1e-6)


@pytest.mark.parametrize("shape", [(3, 4, 1, 1), (2, 3, 4, 4), (4, 5, 7, 7), (2, 3, 14, 14)])
def test_backward_gives_the_input_and_parameter_gradients(shape):
    x, xn = bf16_input(shape, scale=1.5, shift=-0.3)
    g, gn = bf16_input(shape)
    w, b, wn, _ = params(shape[1])
    w.requires_grad_()
    b.requires_grad_()
    x.requires_grad_()
    F.batch_norm(x, ember.zeros(shape[1]), ember.ones(shape[1]), w, b, True, 0.1, EPS).backward(g)
    _, xhat, invstd = reference(xn, wn, np.zeros_like(wn))
    s = (1, -1, 1, 1)
    mg, mgx = gn.mean(axis=(0, 2, 3)), (gn * xhat).mean(axis=(0, 2, 3))
    gi = (wn * invstd).reshape(s) * (gn - mg.reshape(s) - xhat * mgx.reshape(s))
    assert x.grad.dtype == ember.bfloat16 and w.grad.dtype == ember.float32
    # the input gradient subtracts terms of the size of (w invstd) |g|: float32 slack on those
    spread = np.abs(gn) + np.abs(xhat) * np.abs(mgx).reshape(s) + np.abs(mg).reshape(s)
    terms = np.abs(wn * invstd).reshape(s) * spread
    g_err = np.abs(exact(x.grad) - gi)
    assert np.all(g_err <= half_ulp(gi) + 4 * SLACK * terms)
    np.testing.assert_allclose(w.grad.numpy(), (gn * xhat).sum(axis=(0, 2, 3)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), gn.sum(axis=(0, 2, 3)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_non_finite_value_stays_in_its_channel(bad):
    x, xn = bf16_input((2, 3, 6, 6))
    xn[1, 1, 2, 5] = bad
    x = ember.tensor(xn.astype(np.float32)).to(ember.bfloat16)
    w, b, wn, bn = params(3)
    y = F.batch_norm(x, ember.zeros(3), ember.ones(3), w, b, True, 0.1, EPS)
    yn = exact(y)
    assert np.isnan(yn[:, 1]).all()  # the channel's mean (or variance) is not finite
    keep = [0, 2]
    ref, _, _ = reference(xn[:, keep], wn[keep], bn[keep])
    assert_rounded_once(y[:, keep], ref, 1e-6)


def test_a_nan_in_the_gradient_stays_in_its_channel():
    x, xn = bf16_input((2, 3, 5, 5))
    g, gn = bf16_input((2, 3, 5, 5))
    gn[0, 2, 4, 4] = np.nan
    g = ember.tensor(gn.astype(np.float32)).to(ember.bfloat16)
    x.requires_grad_()
    F.batch_norm(x, None, None, None, None, True, 0.1, EPS).backward(g)
    gi = exact(x.grad)
    assert np.isnan(gi[:, 2]).all()
    assert np.isfinite(gi[:, :2]).all()
