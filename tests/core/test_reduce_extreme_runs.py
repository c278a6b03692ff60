"""max/min/amax/amin over long contiguous runs take a vectorised path (values only, no indices):
compared with NumPy at lengths around the vector widths and the 16384-element chunks, for every
real dtype, with NaN (anywhere: it wins) and infinities."""
import numpy as np
import pytest

import ember

LENGTHS = (63, 64, 65, 127, 128, 129, 1000, 16384, 16385, 100003)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_long_runs_match_numpy(dtype):
    rng = np.random.default_rng(1)
    for n in LENGTHS:
        a = (rng.standard_normal(n) * 100).astype(dtype)
        x = ember.from_numpy(a)
        assert x.max().item() == a.max() and x.amax().item() == a.max(), n
        assert x.min().item() == a.min() and x.amin().item() == a.min(), n
        rows = ember.from_numpy(a[: n - n % 4].reshape(4, -1))
        np.testing.assert_array_equal(rows.amax(1).numpy(), a[: n - n % 4].reshape(4, -1).max(1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_anywhere_wins_and_infinities_count(dtype):
    rng = np.random.default_rng(2)
    for n in LENGTHS:
        a = rng.standard_normal(n).astype(dtype)
        for pos in (0, 1, n // 2, n - 1):
            b = a.copy()
            b[pos] = np.nan
            x = ember.from_numpy(b)
            assert np.isnan(x.max().item()) and np.isnan(x.amin().item()), (n, pos)
        b = a.copy()
        b[n // 3] = np.inf
        b[n // 5] = -np.inf
        x = ember.from_numpy(b)
        assert x.max().item() == np.inf and x.min().item() == -np.inf


def test_strided_and_index_paths_agree_with_numpy():
    a = np.random.default_rng(3).standard_normal((300, 257)).astype(np.float32)
    x = ember.from_numpy(a)
    assert x.t().max().item() == a.max()
    v, i = x.max(1)
    np.testing.assert_array_equal(v.numpy(), a.max(1))
    np.testing.assert_array_equal(i.numpy(), a.argmax(1))
