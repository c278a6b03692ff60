"""max_pool2d's vectorized float32 paths against a NumPy reference: 2x2 windows with stride 2 (taken
when an output row has 8 or more values) and ResNet's 3x3 windows with stride 2 and padding 1
(rows of 19 or more inputs). Values and flat indices, ties (the first wins), NaNs (the last one
wins), windows of -inf, partial last steps, windows clipped at every edge, odd sizes, non-contiguous
input and the gradient."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

WINDOWS = [(2, 2, 0), (3, 2, 1)]  # kernel, stride, padding


def reference(x, k, s, p):
    """Values and flat indices of k x k / stride-s / padding-p maxima (floor mode), each window
    clipped to the plane and read in row-major order."""
    n, c, h, w = x.shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    vals = np.empty((n, c, oh, ow), x.dtype)
    idx = np.empty((n, c, oh, ow), np.int64)
    for oy in range(oh):
        y0, y1 = max(0, oy * s - p), min(h, oy * s - p + k)
        for ox in range(ow):
            x0, x1 = max(0, ox * s - p), min(w, ox * s - p + k)
            win = x[:, :, y0:y1, x0:x1].reshape(n, c, -1)
            nan = np.isnan(win)
            m = win.shape[-1]
            pick = np.where(nan.any(-1), m - 1 - np.argmax(nan[..., ::-1], -1),
                            np.argmax(np.where(nan, -np.inf, win), -1))
            vals[:, :, oy, ox] = np.take_along_axis(win, pick[..., None], -1)[..., 0]
            idx[:, :, oy, ox] = (y0 + pick // (x1 - x0)) * w + x0 + pick % (x1 - x0)
    return vals, idx


def check_against_reference(x, window):
    k, s, p = window
    out, idx = F.max_pool2d(ember.tensor(x), k, stride=s, padding=p, return_indices=True)
    vals, ref_idx = reference(x, k, s, p)
    np.testing.assert_array_equal(out.numpy(), vals)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)


SHAPES = {
    (2, 2, 0): [(2, 3, 16, 16), (1, 2, 5, 17), (3, 1, 24, 26), (1, 1, 2, 46), (2, 2, 7, 9)],
    (3, 2, 1): [(2, 3, 20, 19), (1, 2, 7, 40), (2, 2, 24, 37), (1, 1, 9, 64), (1, 2, 16, 18)],
}


@pytest.mark.parametrize("window,shape", [(wd, sh) for wd in WINDOWS for sh in SHAPES[wd]])
def test_values_and_indices_match_numpy(window, shape):
    rng = np.random.default_rng(0)
    check_against_reference(rng.integers(-3, 4, shape).astype(np.float32), window)  # small integers: many ties


def test_resnet_stem_sized_planes():
    rng = np.random.default_rng(3)
    check_against_reference(rng.standard_normal((1, 2, 112, 112)).astype(np.float32), (3, 2, 1))


@pytest.mark.parametrize("window", WINDOWS)
def test_nans_win_their_window_the_last_one_first(window):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 9, 41)).astype(np.float32)
    x[rng.random(x.shape) < 0.15] = np.nan
    x[0, 0, 0, :2] = [np.nan, np.inf]
    check_against_reference(x, window)


@pytest.mark.parametrize("window", WINDOWS)
def test_windows_of_minus_infinity_pick_their_first_element(window):
    x = np.full((1, 1, 6, 30), -np.inf, dtype=np.float32)
    x[0, 0, 3, 7] = 2.0
    check_against_reference(x, window)


@pytest.mark.parametrize("window", WINDOWS)
def test_non_contiguous_input_and_gradient(window):
    k, s, p = window
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 12, 26)).astype(np.float32)
    t = ember.tensor(x.transpose(1, 0, 2, 3).copy()).permute(1, 0, 2, 3).requires_grad_()
    out = F.max_pool2d(t, k, stride=s, padding=p)
    vals, ref_idx = reference(x, k, s, p)
    np.testing.assert_array_equal(out.detach().numpy(), vals)
    g = rng.standard_normal(vals.shape).astype(np.float32)
    out.backward(ember.tensor(g))
    expected = np.zeros(x.shape, np.float32).reshape(4, 3, -1)
    for n in range(4):
        for c in range(3):
            np.add.at(expected[n, c], ref_idx[n, c].ravel(), g[n, c].ravel())
    np.testing.assert_allclose(t.grad.numpy(), expected.reshape(x.shape), rtol=1e-6, atol=1e-6)
