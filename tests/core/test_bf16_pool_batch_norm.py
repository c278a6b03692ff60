"""16-bit max_pool2d (ResNet's 3x3 windows, stride 2, padding 1, which take the float32 vector
kernel on widened planes) and batch norm on NCHW bfloat16/float16 input (a channel at a time,
rounded once), against NumPy references written here: the pool's values and indices (NaN wins, the
last one; among equal values the first), batch norm's output, running statistics and gradients
from float64 formulas."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

RNG = np.random.default_rng(2023)
DTYPES = {"bfloat16": (ember.bfloat16, 8), "float16": (ember.float16, 11)}  # significant bits


def exact_values(rng, shape, dtype, levels=None):
    """A 16-bit tensor and its exact values (float64). levels: draw from few values (many ties)."""
    raw = rng.integers(-levels, levels + 1, size=shape) / 4 if levels else rng.standard_normal(shape)
    t = ember.tensor(raw.astype(np.float32)).to(dtype)
    return t, t.float().numpy().astype(np.float64)


def pool_reference(x):
    """max_pool2d(kernel 3, stride 2, padding 1) of (n, c, h, w) x: values and flat indices."""
    n, c, h, w = x.shape
    oh, ow = (h - 1) // 2 + 1, (w - 1) // 2 + 1
    vals, idx = np.empty((n, c, oh, ow)), np.empty((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            rows = range(max(2 * i - 1, 0), min(2 * i + 2, h))
            cols = range(max(2 * j - 1, 0), min(2 * j + 2, w))
            flat = [r * w + q for r in rows for q in cols]  # window order: row by row
            win = x.reshape(n, c, h * w)[:, :, flat]
            first_max = np.argmax(win, axis=2)  # the first of equal maxima
            nan = np.isnan(win)
            last_nan = win.shape[2] - 1 - np.argmax(nan[:, :, ::-1], axis=2)
            pick = np.where(nan.any(axis=2), last_nan, first_max)
            idx[:, :, i, j] = np.asarray(flat)[pick]
            vals[:, :, i, j] = np.take_along_axis(win, pick[..., None], axis=2)[..., 0]
    return vals, idx


@pytest.mark.parametrize("dtype_name", sorted(DTYPES))
@pytest.mark.parametrize("shape", [(2, 3, 24, 21), (1, 2, 37, 40)])
def test_max_pool_3x3_stride_2_values_and_indices(dtype_name, shape):
    dtype, _ = DTYPES[dtype_name]
    x, xn = exact_values(RNG, shape, dtype, levels=3)  # few values: ties in most windows
    x[0, 0, 4, 5] = float("nan")
    x[0, 1, 10, 10] = float("nan")
    x[0, 1, 10, 11] = float("nan")  # two NaN in some windows: the last wins
    x[-1, -1, 0, 0] = float("-inf")
    xn = x.float().numpy().astype(np.float64)
    values, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    ref_v, ref_i = pool_reference(xn)
    assert values.dtype == dtype
    np.testing.assert_array_equal(indices.numpy(), ref_i)
    np.testing.assert_array_equal(values.float().numpy(), ref_v)  # NaN positions equal too


@pytest.mark.parametrize("dtype_name", sorted(DTYPES))
def test_max_pool_backward_sums_overlapping_windows_then_rounds_once(dtype_name):
    dtype, bits = DTYPES[dtype_name]
    x, xn = exact_values(RNG, (2, 3, 23, 26), dtype, levels=2)  # ties: a position wins several windows
    x.requires_grad_(True)
    y, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    g, gn = exact_values(RNG, tuple(y.shape), dtype)
    y.backward(g)
    planes = 2 * 3
    ref, terms = np.zeros((planes, 23 * 26)), np.zeros((planes, 23 * 26))
    flat_idx, flat_g = idx.numpy().reshape(planes, -1), gn.reshape(planes, -1)
    for p in range(planes):
        np.add.at(ref[p], flat_idx[p], flat_g[p])
        np.add.at(terms[p], flat_idx[p], np.abs(flat_g[p]))
    assert x.grad.dtype == dtype
    assert_rounded_once(x.grad, ref.reshape(xn.shape), bits, 4 * 2.0**-24 * terms.reshape(xn.shape))
    assert np.count_nonzero(np.bincount(flat_idx[0]) > 2)  # the case checked: several windows add up


def ulp(x, bits):
    """The spacing of floats with `bits` significant bits at |x|."""
    e = np.floor(np.log2(np.maximum(np.abs(x), 2.0**-100)))
    return np.exp2(e - (bits - 1))


def assert_rounded_once(got, exact, bits, slack):
    """got (16-bit) is exact rounded to `bits` bits, allowing float32 working error `slack`
    (absolute) before the rounding."""
    g = got.float().numpy().astype(np.float64)
    bound = 0.5 * ulp(np.abs(exact) + slack, bits) + slack
    err = np.abs(g - exact)
    assert np.all(err <= bound), f"max error {err.max()}, bound there {bound.flat[np.argmax(err - bound)]}"


def bn_reference(x, w, b, eps, mean=None, var=None):
    axes = (0,) + tuple(range(2, x.ndim))
    if mean is None:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    inv = 1 / np.sqrt(var + eps)
    return (x - mean.reshape(shape)) * inv.reshape(shape) * w.reshape(shape) + b.reshape(shape), mean, var, inv


@pytest.mark.parametrize("dtype_name", sorted(DTYPES))
@pytest.mark.parametrize("shape", [(4, 5, 9, 7), (3, 6, 50)])
def test_batch_norm_training_forward_backward(dtype_name, shape):
    dtype, bits = DTYPES[dtype_name]
    x, xn = exact_values(RNG, shape, dtype)
    x = (x * 3 + 1).requires_grad_(True)  # an offset mean: the variance pass subtracts it
    xn = x.detach().float().numpy().astype(np.float64)
    c = shape[1]
    wn, bn = RNG.uniform(0.5, 2, c), RNG.standard_normal(c)
    w = ember.tensor(wn.astype(np.float32)).requires_grad_(True)
    b = ember.tensor(bn.astype(np.float32)).requires_grad_(True)
    wn, bn = w.detach().numpy().astype(np.float64), b.detach().numpy().astype(np.float64)
    rm, rv = ember.zeros(c), ember.ones(c)
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.25, eps=1e-5)
    ref, mean, var, inv = bn_reference(xn, wn, bn, 1e-5)
    assert y.dtype == dtype
    assert_rounded_once(y, ref, bits, 1e-5 * (np.abs(ref) + 1))
    count = xn.size // c
    np.testing.assert_allclose(rm.numpy(), 0.25 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * var * count / (count - 1), rtol=1e-5)

    g, gn = exact_values(RNG, tuple(y.shape), dtype)
    y.backward(g)
    axes = (0,) + tuple(range(2, xn.ndim))
    shape_c = (1, -1) + (1,) * (xn.ndim - 2)
    xhat = (xn - mean.reshape(shape_c)) * inv.reshape(shape_c)
    sum_g, sum_gx = gn.sum(axis=axes), (gn * xhat).sum(axis=axes)
    centred = gn - (sum_g / count).reshape(shape_c) - xhat * (sum_gx / count).reshape(shape_c)
    dx = (wn * inv).reshape(shape_c) * centred
    assert x.grad.dtype == dtype
    assert_rounded_once(x.grad, dx, bits, 1e-4 * (np.abs(gn).max() * (wn * inv).max()))
    np.testing.assert_allclose(w.grad.numpy(), sum_gx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b.grad.numpy(), sum_g, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype_name", sorted(DTYPES))
def test_batch_norm_evaluation_uses_running_statistics(dtype_name):
    dtype, bits = DTYPES[dtype_name]
    x, xn = exact_values(RNG, (3, 4, 6, 5), dtype)
    x.requires_grad_(True)
    mean, var = RNG.standard_normal(4), RNG.uniform(0.5, 2, 4)
    wn, bn = RNG.uniform(0.5, 2, 4), RNG.standard_normal(4)
    rm, rv = ember.tensor(mean.astype(np.float32)), ember.tensor(var.astype(np.float32))
    w, b = ember.tensor(wn.astype(np.float32)), ember.tensor(bn.astype(np.float32))
    mean, var = rm.numpy().astype(np.float64), rv.numpy().astype(np.float64)
    wn, bn = w.numpy().astype(np.float64), b.numpy().astype(np.float64)
    y = F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3)
    ref, _, _, inv = bn_reference(xn, wn, bn, 1e-3, mean, var)
    assert_rounded_once(y, ref, bits, 1e-5 * (np.abs(ref) + 1))
    np.testing.assert_array_equal(rm.numpy().astype(np.float64), mean)  # not updated
    g, gn = exact_values(RNG, tuple(y.shape), dtype)
    y.backward(g)
    assert_rounded_once(x.grad, gn * (wn * inv).reshape(1, -1, 1, 1), bits, 1e-5 * np.abs(gn).max() * 4)
