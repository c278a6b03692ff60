"""max_pool2d with 2x2 windows and stride 2 on float32 (the vectorized path, taken when an output
row has 8 or more values) against a NumPy reference: values and flat indices, ties (the first
wins), NaNs (the last one wins), partial last steps, odd sizes and the gradient."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


def reference(x):
    """Values and flat indices of 2x2 / stride-2 maxima, each window read in row-major order."""
    n, c, h, w = x.shape
    oh, ow = h // 2, w // 2
    win = x[:, :, :2 * oh, :2 * ow].reshape(n, c, oh, 2, ow, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh, ow, 4)
    nan = np.isnan(win)
    pick = np.where(nan.any(-1), 3 - np.argmax(nan[..., ::-1], -1), np.argmax(np.where(nan, -np.inf, win), -1))
    vals = np.take_along_axis(win, pick[..., None], -1)[..., 0]
    rows = 2 * np.arange(oh)[:, None] + pick // 2
    cols = 2 * np.arange(ow)[None, :] + pick % 2
    return vals, rows * w + cols


def check_against_reference(x):
    out, idx = F.max_pool2d(ember.tensor(x), 2, return_indices=True)
    vals, ref_idx = reference(x)
    np.testing.assert_array_equal(out.numpy(), vals)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)


@pytest.mark.parametrize("shape", [(2, 3, 16, 16), (1, 2, 5, 17), (3, 1, 24, 26), (1, 1, 2, 46), (2, 2, 7, 9)])
def test_values_and_indices_match_numpy(shape):
    rng = np.random.default_rng(0)
    check_against_reference(rng.integers(-3, 4, shape).astype(np.float32))  # small integers: many ties


def test_nans_win_their_window_the_last_one_first():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 6, 20)).astype(np.float32)
    x[rng.random(x.shape) < 0.15] = np.nan
    x[0, 0, 0, :2] = [np.nan, np.inf]
    check_against_reference(x)


def test_windows_of_minus_infinity_pick_their_first_element():
    x = np.full((1, 1, 4, 18), -np.inf, dtype=np.float32)
    x[0, 0, 1, 3] = 2.0
    check_against_reference(x)


def test_non_contiguous_input_and_gradient():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 12, 18)).astype(np.float32)
    t = ember.tensor(x.transpose(1, 0, 2, 3).copy()).permute(1, 0, 2, 3).requires_grad_()
    out, idx = F.max_pool2d(t, 2, return_indices=True)
    vals, ref_idx = reference(x)
    np.testing.assert_array_equal(out.numpy(), vals)
    g = rng.standard_normal(vals.shape).astype(np.float32)
    out.backward(ember.tensor(g))
    expected = np.zeros(x.shape, np.float32)
    n, c = np.indices(vals.shape[:2])
    for (i, j), _ in np.ndenumerate(vals[0, 0]):
        flat = ref_idx[:, :, i, j]
        expected.reshape(4, 3, -1)[n, c, flat] += g[:, :, i, j]
    np.testing.assert_array_equal(t.grad.numpy(), expected)
