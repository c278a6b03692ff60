"""Pointwise convolutions (1x1 kernels, stride 1, no padding) on planes of 128 outputs or more, which run as one
product per (image, group) straight on the input (conv_pointwise.cpp), against a NumPy reference: 1-, 2- and
3-D, groups, bias, float32/float64, batch 1 (products split across threads) and several images (whole
products per thread), a non-contiguous input, narrow planes (the chunked path), the column path the
EMBER_CONV_POINTWISE=0 switch selects, and gradients through the convolution's backward ops."""
import os

import numpy as np
import pytest

import ember
import ember.nn.functional as F


def reference(x, w, b, groups):
    """1x1 convolution in NumPy: per group, out[n, o, ...] = sum_c w[o, c] x[n, c, ...] (+ b[o])."""
    n, c = x.shape[:2]
    o = w.shape[0]
    cg, og = c // groups, o // groups
    spatial = x.shape[2:]
    xs = x.reshape(n, groups, cg, -1)
    ws = w.reshape(groups, og, cg)
    out = np.einsum("goc,ngcl->ngol", ws, xs).reshape(n, o, *spatial)
    return out if b is None else out + b.reshape(1, o, *([1] * len(spatial)))


CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
SHAPES = {1: (300,), 2: (16, 12), 3: (4, 8, 9)}  # 300, 192 and 288 outputs per plane


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("batch", [1, 5])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("with_bias", [False, True])
def test_pointwise_matches_numpy(nd, groups, batch, dtype, with_bias):
    rng = np.random.default_rng(nd * 10 + groups + batch)
    cin, cout = 6 * groups, 4 * groups
    x = rng.standard_normal((batch, cin, *SHAPES[nd]))
    w = rng.standard_normal((cout, cin // groups) + (1,) * nd)
    b = rng.standard_normal(cout) if with_bias else None
    out = CONV[nd](ember.tensor(x, dtype=dtype), ember.tensor(w, dtype=dtype),
                   None if b is None else ember.tensor(b, dtype=dtype), groups=groups)
    assert out.dtype == dtype and tuple(out.shape) == (batch, cout, *SHAPES[nd])
    tol = 1e-5 if dtype == ember.float32 else 1e-12
    np.testing.assert_allclose(out.numpy(), reference(x, w, b, groups), rtol=tol, atol=tol)


def test_mobilenet_shapes_and_the_column_path_agree():
    rng = np.random.default_rng(0)
    for cin, cout, hw in ((16, 64, 24), (72, 24, 20), (120, 40, 14), (24, 72, 12)):
        x = ember.tensor(rng.standard_normal((3, cin, hw, hw)), dtype=ember.float32)
        w = ember.tensor(rng.standard_normal((cout, cin, 1, 1)), dtype=ember.float32)
        b = ember.tensor(rng.standard_normal(cout), dtype=ember.float32)
        direct = F.conv2d(x, w, b)
        os.environ["EMBER_CONV_POINTWISE"] = "0"
        try:
            columns = F.conv2d(x, w, b)
        finally:
            del os.environ["EMBER_CONV_POINTWISE"]
        expected = reference(x.numpy().astype(np.float64), w.numpy().astype(np.float64), b.numpy(), 1)
        np.testing.assert_allclose(direct.numpy(), expected, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(columns.numpy(), direct.numpy(), rtol=1e-5, atol=1e-5)


def test_non_contiguous_input_and_narrow_planes():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 20, 16, 16))
    w = rng.standard_normal((6, 8, 1, 1))
    base = ember.tensor(x).permute(0, 1, 3, 2)[:, ::2]  # 10 channels, strided, transposed planes
    assert not base.is_contiguous()
    xs = np.ascontiguousarray(x.transpose(0, 1, 3, 2)[:, ::2])
    w10 = rng.standard_normal((6, 10, 1, 1))
    np.testing.assert_allclose(F.conv2d(base, ember.tensor(w10)).numpy(), reference(xs, w10, None, 1), rtol=1e-12,
                               atol=1e-12)
    narrow = rng.standard_normal((3, 8, 7, 7))  # 49 outputs a plane: the chunked path
    np.testing.assert_allclose(F.conv2d(ember.tensor(narrow), ember.tensor(w)).numpy(), reference(narrow, w, None, 1),
                               rtol=1e-12, atol=1e-12)


def test_strided_or_padded_1x1_is_not_a_pointwise_product():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 16, 16))
    w = rng.standard_normal((3, 4, 1, 1))
    strided = F.conv2d(ember.tensor(x), ember.tensor(w), stride=2).numpy()
    np.testing.assert_allclose(strided, reference(x[:, :, ::2, ::2], w, None, 1), rtol=1e-12, atol=1e-12)
    padded = F.conv2d(ember.tensor(x), ember.tensor(w), padding=1).numpy()
    expected = reference(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), w, None, 1)
    np.testing.assert_allclose(padded, expected, rtol=1e-12, atol=1e-12)


def test_gradients_against_numpy():
    rng = np.random.default_rng(3)
    x = ember.tensor(rng.standard_normal((2, 6, 12, 12)), requires_grad=True)
    w = ember.tensor(rng.standard_normal((4, 3, 1, 1)), requires_grad=True)
    b = ember.tensor(rng.standard_normal(4), requires_grad=True)
    g = rng.standard_normal((2, 4, 12, 12))
    F.conv2d(x, w, b, groups=2).backward(ember.tensor(g))
    xn, wn = x.detach().numpy(), w.detach().numpy()
    gx = np.concatenate([np.einsum("oc,nohw->nchw", wn[2 * k:2 * k + 2, :, 0, 0], g[:, 2 * k:2 * k + 2])
                         for k in range(2)], axis=1)
    gw = np.concatenate([np.einsum("nohw,nchw->oc", g[:, 2 * k:2 * k + 2], xn[:, 3 * k:3 * k + 3])
                         for k in range(2)], axis=0)[:, :, None, None]
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(axis=(0, 2, 3)), rtol=1e-10, atol=1e-10)
