"""The direct convolution's two schedules: small output planes (under 128 positions) run on the
columns of a chunk of images at a time, larger ones an image at a time in blocks of output lines
whose columns stay within about 1 MB. Checked against float64 NumPy references for the forward,
the input gradient and the weight gradient, with strides, groups, bias, a batch that does not fill
its last chunk, and images of several line blocks with a partial last one."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


def windows(x, k, stride, pad):
    """(n, c, oh, ow, kh, kw) views of x zero-padded by pad, every stride-th window."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    return xp, np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]


def conv_and_grads(x, w, b, g, stride, pad, groups):
    """The convolution of x with w (plus b), and the gradients of <g, it> by x, w and b."""
    k = w.shape[2]
    xp, win = windows(x, k, stride, pad)
    cg, kg = x.shape[1] // groups, w.shape[0] // groups
    y = np.concatenate([np.einsum("nchwab,kcab->nkhw", win[:, i * cg:(i + 1) * cg], w[i * kg:(i + 1) * kg])
                        for i in range(groups)], axis=1) + b[None, :, None, None]
    gw = np.concatenate([np.einsum("nchwab,nkhw->kcab", win[:, i * cg:(i + 1) * cg], g[:, i * kg:(i + 1) * kg])
                         for i in range(groups)])
    gxp = np.zeros_like(xp)
    oh, ow = g.shape[2:]
    for i in range(groups):
        for a in range(k):
            for c in range(k):
                gxp[:, i * cg:(i + 1) * cg, a:a + stride * oh:stride, c:c + stride * ow:stride] += np.einsum(
                    "nkhw,kc->nchw", g[:, i * kg:(i + 1) * kg], w[i * kg:(i + 1) * kg, :, a, c])
    gx = gxp[:, :, pad:pad + x.shape[2], pad:pad + x.shape[3]]
    return y, gx, gw, g.sum(axis=(0, 2, 3))


CASES = [
    # n, c, k, size, kernel, stride, padding, groups, dtype
    (3, 16, 24, 9, 3, 2, 1, 2, "float32"),    # groups, stride 2 (ResNet's downsampling 3x3)
    (4, 32, 48, 14, 1, 2, 0, 1, "float32"),   # 1x1 stride 2 (its shortcut)
    (5, 512, 8, 10, 3, 1, 1, 1, "float64"),   # columns of 4 images per chunk: chunks of 4 and 1
    (2, 6, 4, 5, 2, 1, 0, 1, "float64"),
    # an image at a time, in blocks of lines: 576 column rows x 40 per line -> blocks of 11 lines
    (2, 64, 8, 40, 3, 1, 1, 1, "float64"),
    (2, 256, 8, 40, 3, 2, 1, 2, "float32"),  # groups of 128: 20 lines of 20 -> blocks of 11 and 9
    (1, 3, 16, 224, 7, 2, 3, 1, "float32"),  # ResNet's 7x7 stride-2 stem: blocks of 15 lines of 112
]


@pytest.mark.parametrize("n,c,k,size,kernel,stride,pad,groups,dtype", CASES)
def test_direct_matches_numpy(n, c, k, size, kernel, stride, pad, groups, dtype):
    rng = np.random.default_rng(n + c + k)
    x = rng.standard_normal((n, c, size, size))
    w = rng.standard_normal((k, c // groups, kernel, kernel)) * 0.1
    b = rng.standard_normal(k)
    dt = getattr(ember, dtype)
    xe = ember.tensor(x, dtype=dt, requires_grad=True)
    we = ember.tensor(w, dtype=dt, requires_grad=True)
    be = ember.tensor(b, dtype=dt, requires_grad=True)
    y = F.conv2d(xe, we, be, stride=stride, padding=pad, groups=groups)
    g = rng.standard_normal(tuple(y.shape))
    ref, gx, gw, gb = conv_and_grads(x, w, b, g, stride, pad, groups)
    assert y.shape == ref.shape
    y.backward(ember.tensor(g, dtype=dt))
    tol = 1e-5 if dtype == "float32" else 1e-12
    for got, want in ((y.detach(), ref), (xe.grad, gx), (we.grad, gw), (be.grad, gb)):
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * np.abs(want).max())
