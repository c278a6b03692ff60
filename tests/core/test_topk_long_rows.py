"""topk of a small k from a long row takes a thresholded single pass: compared with NumPy's stable
ordering (ties to the smaller index) at row lengths around the prefix the threshold comes from,
for several dtypes, both directions, NaN counted as the largest value as PyTorch does."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int8])
def test_small_k_of_long_rows_matches_numpy(dtype):
    rng = np.random.default_rng(0)
    for n in (4095, 4097, 40000, 300001):
        a = (rng.standard_normal(n) * 1000).astype(dtype)  # int8 wraps: many ties
        x = ember.from_numpy(a)
        for k in (1, 7, 100, 300):
            for largest in (True, False):
                v, i = x.topk(k, largest=largest)
                key = -a.astype(np.float64) if largest else a.astype(np.float64)
                want = np.lexsort((np.arange(n), key))[:k]
                np.testing.assert_array_equal(v.numpy(), a[want])
                np.testing.assert_array_equal(a[i.numpy()], a[want])


def test_nan_is_largest_and_rows_are_independent():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 50000)).astype(np.float32)
    a[1, [10, 49999]] = np.nan
    v, i = ember.from_numpy(a).topk(4, dim=1)
    assert np.isnan(v.numpy()[1, :2]).all() and sorted(i.numpy()[1, :2]) == [10, 49999]
    for r in (0, 2):
        np.testing.assert_array_equal(v.numpy()[r], np.sort(a[r])[::-1][:4])
    v, _ = ember.from_numpy(a).topk(4, dim=1, largest=False)
    np.testing.assert_array_equal(v.numpy()[1], np.sort(a[1][~np.isnan(a[1])])[:4])
