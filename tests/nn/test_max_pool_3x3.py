"""max_pool2d with ResNet's 3x3 windows, stride 2 and padding 1 on float32 (the vectorized path,
taken when rows have 19 or more inputs) against a NumPy reference: values and flat indices, ties
(the first wins), NaNs (the last one wins), windows clipped at every edge, odd and even sizes, and
the gradient."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


def reference(x):
    """Values and flat indices of 3x3 / stride-2 / padding-1 maxima, each window clipped to the
    plane and read in row-major order."""
    n, c, h, w = x.shape
    oh, ow = (h - 1) // 2 + 1, (w - 1) // 2 + 1
    vals = np.empty((n, c, oh, ow), x.dtype)
    idx = np.empty((n, c, oh, ow), np.int64)
    for oy in range(oh):
        y0, y1 = max(0, 2 * oy - 1), min(h, 2 * oy + 2)
        for ox in range(ow):
            x0, x1 = max(0, 2 * ox - 1), min(w, 2 * ox + 2)
            win = x[:, :, y0:y1, x0:x1].reshape(n, c, -1)
            nan = np.isnan(win)
            k = win.shape[-1]
            pick = np.where(nan.any(-1), k - 1 - np.argmax(nan[..., ::-1], -1),
                            np.argmax(np.where(nan, -np.inf, win), -1))
            vals[:, :, oy, ox] = np.take_along_axis(win, pick[..., None], -1)[..., 0]
            idx[:, :, oy, ox] = (y0 + pick // (x1 - x0)) * w + x0 + pick % (x1 - x0)
    return vals, idx


def check_against_reference(x):
    out, idx = F.max_pool2d(ember.tensor(x), 3, stride=2, padding=1, return_indices=True)
    vals, ref_idx = reference(x)
    np.testing.assert_array_equal(out.numpy(), vals)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)


@pytest.mark.parametrize("shape", [(2, 3, 20, 19), (1, 2, 7, 40), (2, 2, 24, 37), (1, 1, 9, 64), (1, 2, 16, 18)])
def test_values_and_indices_match_numpy(shape):
    rng = np.random.default_rng(0)
    check_against_reference(rng.integers(-3, 4, shape).astype(np.float32))  # small integers: many ties


def test_resnet_stem_sized_planes():
    rng = np.random.default_rng(3)
    check_against_reference(rng.standard_normal((1, 2, 112, 112)).astype(np.float32))


def test_nans_win_their_window_the_last_one_first():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 9, 41)).astype(np.float32)
    x[rng.random(x.shape) < 0.15] = np.nan
    x[0, 0, 0, :2] = [np.nan, np.inf]
    check_against_reference(x)


def test_windows_of_minus_infinity_pick_their_first_element():
    x = np.full((1, 1, 6, 30), -np.inf, dtype=np.float32)
    x[0, 0, 3, 7] = 2.0
    check_against_reference(x)


def test_gradient_goes_to_the_maxima():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 11, 26)).astype(np.float32)
    t = ember.tensor(x, requires_grad=True)
    out = F.max_pool2d(t, 3, stride=2, padding=1)
    _, ref_idx = reference(x)
    g = rng.standard_normal(ref_idx.shape).astype(np.float32)
    out.backward(ember.tensor(g))
    expected = np.zeros(x.shape, np.float32).reshape(2, 3, -1)
    for n in range(2):
        for c in range(3):
            np.add.at(expected[n, c], ref_idx[n, c].ravel(), g[n, c].ravel())
    np.testing.assert_allclose(t.grad.numpy(), expected.reshape(x.shape), rtol=1e-6, atol=1e-6)
