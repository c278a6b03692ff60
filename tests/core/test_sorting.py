"""Behaviour of the sort family beyond the generic opdb tests: named tuples, out=, non-contiguous
inputs, long rows (radix passes, threads), unique/unique_consecutive against NumPy, searchsorted's
sorter, bincount weights, and bad arguments raising PyTorch's exception types."""
import numpy as np
import pytest

import ember


def _np(t):
    return t.numpy()


def _stable_order(a, descending=False):
    a = np.asarray(a, np.float64)
    if descending:
        nan = np.isnan(a)
        return np.lexsort((np.where(nan, 0.0, -a), ~nan))
    return np.argsort(a, kind="stable")


# ---- sort / argsort ------------------------------------------------------------------------------

def test_sort_returns_named_tuple():
    r = ember.sort(ember.tensor([3.0, 1.0, 2.0]))
    assert type(r).__name__ == "sort" and r.values is r[0] and r.indices is r[1]
    np.testing.assert_array_equal(_np(r.values), [1, 2, 3])
    np.testing.assert_array_equal(_np(r.indices), [1, 2, 0])
    assert r.indices.dtype == ember.int64
    v, i = ember.tensor([2, 1]).sort(descending=True)
    np.testing.assert_array_equal(_np(v), [2, 1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int16, np.uint8, np.int8])
@pytest.mark.parametrize("n", [5, 191, 192, 1000, 70000, 400000])  # 400000: MSD buckets of 16K+ items
@pytest.mark.parametrize("descending", [False, True])
def test_sort_long_rows_match_numpy_stable(dtype, n, descending):
    rng = np.random.default_rng(n)
    if np.dtype(dtype).kind == "f":
        a = rng.standard_normal(n).astype(dtype)
        a[rng.integers(0, n, n // 10)] = 0.5   # ties
        a[rng.integers(0, n, n // 50)] = np.nan
        a[rng.integers(0, n, n // 50)] = -0.0
        a[rng.integers(0, n, n // 50)] = np.inf
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64).astype(dtype)
    v, i = ember.sort(ember.tensor(a), descending=descending)
    want = _stable_order(a, descending)
    np.testing.assert_array_equal(_np(i), want)
    np.testing.assert_array_equal(_np(v), a[want])
    np.testing.assert_array_equal(_np(ember.argsort(ember.tensor(a), descending=descending)), want)


@pytest.mark.parametrize("high", [2**31 - 1, 2**26, 2**20])
def test_long_int32_rows_of_every_spread(high):
    # The fused MSD pass splits on 8, 10 or 12 top bits by how spread the keys are: the full range
    # takes 8, [0, 2^26) 10 (8 bits would leave 4 buckets of 50K), [0, 2^20) 12.
    rng = np.random.default_rng(high)
    a = rng.integers(0, high, 200000).astype(np.int32)
    v, i = ember.sort(ember.tensor(a))
    want = _stable_order(a, False)
    np.testing.assert_array_equal(_np(i), want)
    np.testing.assert_array_equal(_np(v), a[want])


def test_sort_keeps_negative_zero_and_nan_payloads():
    a = np.array([0.0, -0.0, np.nan, -np.nan, -1.0, 0.0, -0.0], np.float32)
    v, i = ember.sort(ember.tensor(a), stable=True)
    np.testing.assert_array_equal(_np(i), [4, 0, 1, 5, 6, 2, 3])  # -0.0 == 0.0 keeps input order; NaN last
    assert np.signbit(_np(v)[:5]).tolist() == [True, False, True, False, True]


def test_sort_rows_in_parallel_match_single_thread():
    rng = np.random.default_rng(0)
    a = rng.integers(-50, 50, (64, 3000)).astype(np.float32)
    t = ember.tensor(a)
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        v1, i1 = ember.sort(t, dim=1)
        ember.set_num_threads(max(2, old))
        v2, i2 = ember.sort(t, dim=1)
        big = ember.tensor(rng.standard_normal(300000).astype(np.float32))
        ember.set_num_threads(1)
        b1 = ember.argsort(big)
        ember.set_num_threads(max(2, old))
        b2 = ember.argsort(big)
    finally:
        ember.set_num_threads(old)
    np.testing.assert_array_equal(_np(i1), _np(i2))
    np.testing.assert_array_equal(_np(b1), _np(b2))
    np.testing.assert_array_equal(_np(i1), np.argsort(a, axis=1, kind="stable"))


def test_sort_noncontiguous_and_other_dims():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 5, (6, 8, 4)).astype(np.float64)
    t = ember.tensor(a)
    for view, ref in [(t.transpose(0, 2), a.swapaxes(0, 2)), (t[:, ::2], a[:, ::2]), (t[1], a[1])]:
        for dim in range(ref.ndim):
            v, i = ember.sort(view, dim=dim)
            want = np.argsort(ref, axis=dim, kind="stable")
            np.testing.assert_array_equal(_np(i), want)
            np.testing.assert_array_equal(_np(v), np.take_along_axis(ref, want, dim))


def test_sort_out_and_errors():
    t = ember.tensor([[3, 1, 2], [0, 5, 4]])
    v, i = ember.empty(0, dtype=ember.int64), ember.empty(0, dtype=ember.int64)
    r = ember.sort(t, 1, out=(v, i))
    assert r[0] is v and r[1] is i
    np.testing.assert_array_equal(_np(v), [[1, 2, 3], [0, 4, 5]])
    np.testing.assert_array_equal(_np(i), [[1, 2, 0], [0, 2, 1]])
    with pytest.raises(RuntimeError, match="dtype"):
        ember.sort(t, out=(ember.empty(0, dtype=ember.int64), ember.empty(0, dtype=ember.int32)))
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.sort(t, dim=2)
    with pytest.raises(IndexError):
        ember.argsort(t, dim=-3)
    with pytest.raises(TypeError, match="complex"):
        ember.sort(ember.tensor([1 + 1j]))
    with pytest.raises(TypeError):
        ember.sort(t, dim="x")


def test_msort():
    a = np.array([[3, 1], [1, 2], [2, 0]], np.float32)
    np.testing.assert_array_equal(_np(ember.msort(ember.tensor(a))), np.sort(a, axis=0))
    np.testing.assert_array_equal(_np(ember.tensor(a).t().msort()), np.sort(a.T, axis=0))


# ---- topk / kthvalue / median / mode -------------------------------------------------------------

def test_topk_named_tuple_noncontiguous_and_errors():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::-1].copy()
    t = ember.tensor(a).t()  # non-contiguous
    r = ember.topk(t, 2, dim=0)
    assert type(r).__name__ == "topk"
    np.testing.assert_array_equal(_np(r.values), -np.sort(-a.T, axis=0)[:2])
    with pytest.raises(RuntimeError, match="k"):
        ember.topk(t, 7, dim=0)
    with pytest.raises(RuntimeError):
        ember.topk(t, -1)
    with pytest.raises(IndexError):
        ember.topk(t, 1, dim=5)


def test_topk_large_rows_partial_selection():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1000, (3, 20000)).astype(np.int32)
    v, i = ember.topk(ember.tensor(a), 10)
    want = np.argsort(-a.astype(np.int64), axis=1, kind="stable")[:, :10]
    np.testing.assert_array_equal(_np(i), want)
    v, i = ember.topk(ember.tensor(a), 10, largest=False)
    want = np.argsort(a, axis=1, kind="stable")[:, :10]
    np.testing.assert_array_equal(_np(i), want)


def test_kthvalue_errors_and_out():
    t = ember.tensor([[5.0, 1.0, 3.0]])
    with pytest.raises(IndexError, match="k"):
        ember.kthvalue(t, 4)
    with pytest.raises(IndexError):
        ember.kthvalue(t, 0)
    v, i = ember.empty(0), ember.empty(0, dtype=ember.int64)
    ember.kthvalue(t, 2, 1, True, out=(v, i))
    assert v.shape == (1, 1) and v.item() == 3.0 and i.item() == 2


def test_median_forms():
    t = ember.tensor([[1.0, 4.0, 2.0, 3.0], [7.0, 5.0, 6.0, 8.0]])
    m = ember.median(t)
    assert m.dim() == 0 and m.item() == 4.0  # lower median of 8 values
    r = t.median(1)
    assert type(r).__name__ == "median"
    np.testing.assert_array_equal(_np(r.values), [2.0, 6.0])
    np.testing.assert_array_equal(_np(r.indices), [2, 2])
    r = ember.median(t, dim=0, keepdim=True)
    assert r.values.shape == (1, 4)
    assert np.isnan(ember.median(ember.tensor([1.0, float("nan")])).item())
    assert ember.nanmedian(ember.tensor([1.0, float("nan"), 3.0])).item() == 1.0
    assert np.isnan(ember.median(ember.tensor([])).item())
    with pytest.raises(IndexError, match="non-zero size"):
        ember.median(ember.empty(2, 0), 1)
    with pytest.raises(IndexError):
        ember.median(t, 2)


def test_mode_ties_and_index():
    v, i = ember.mode(ember.tensor([[2, 2, 1, 1, 3], [0, 4, 4, 0, 4]]))
    np.testing.assert_array_equal(_np(v), [1, 4])
    np.testing.assert_array_equal(_np(i), [3, 4])  # last occurrence of the mode
    with pytest.raises(IndexError):
        ember.mode(ember.empty(3, 0))


# ---- quantile -------------------------------------------------------------------------------------

def test_quantile_against_numpy_and_errors():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((5, 9))
    t = ember.tensor(a)
    q = ember.tensor([0.1, 0.5, 0.95], dtype=ember.float64)
    for how in ("linear", "lower", "higher", "midpoint", "nearest"):
        np.testing.assert_allclose(_np(ember.quantile(t, q, dim=1, interpolation=how)),
                                   np.quantile(a, [0.1, 0.5, 0.95], axis=1, method=how), rtol=1e-12)
        np.testing.assert_allclose(_np(t.t().quantile(0.3, dim=0, keepdim=True, interpolation=how)),
                                   np.quantile(a.T, 0.3, axis=0, keepdims=True, method=how), rtol=1e-12)
    with pytest.raises(RuntimeError, match="range"):
        ember.quantile(t, 1.5)
    with pytest.raises(RuntimeError, match="range"):
        ember.quantile(t, ember.tensor([0.5, -0.1], dtype=ember.float64))
    with pytest.raises(RuntimeError, match="float or double"):
        ember.quantile(ember.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.quantile(t, ember.tensor([0.5], dtype=ember.float32))
    with pytest.raises(RuntimeError, match="scalar or 1D"):
        ember.quantile(t, ember.tensor([[0.5]], dtype=ember.float64))
    with pytest.raises(RuntimeError, match="interpolation"):
        ember.quantile(t, 0.5, interpolation="cubic")
    with pytest.raises(RuntimeError, match="non-empty"):
        ember.quantile(ember.tensor([], dtype=ember.float64), 0.5)
    with pytest.raises(IndexError):
        ember.quantile(t, 0.5, dim=2)


# ---- unique / unique_consecutive -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.uint8, np.bool_])
def test_unique_against_numpy(dtype):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 6, (4, 7)).astype(dtype)
    t = ember.tensor(a)
    u = ember.unique(t)
    np.testing.assert_array_equal(_np(u), np.unique(a))
    u, inv, cnt = ember.unique(t, return_inverse=True, return_counts=True)
    wu, winv, wcnt = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(_np(u), wu)
    np.testing.assert_array_equal(_np(inv), winv.reshape(a.shape))
    np.testing.assert_array_equal(_np(cnt), wcnt)
    u, cnt = t.unique(return_counts=True)
    np.testing.assert_array_equal(_np(cnt), wcnt)
    u, inv = t.t().unique(return_inverse=True)  # non-contiguous
    np.testing.assert_array_equal(_np(inv), np.unique(a.T, return_inverse=True)[1].reshape(a.T.shape))


def test_unique_nan_stays_distinct_and_zero_sizes():
    u = ember.unique(ember.tensor([1.0, float("nan"), 1.0, float("nan")]))
    assert _np(u)[0] == 1.0 and np.isnan(_np(u)[1:]).all() and u.shape == (3,)  # PyTorch keeps NaNs apart
    assert ember.unique(ember.tensor([], dtype=ember.int64)).shape == (0,)
    assert ember.unique(ember.tensor(3)).shape == (1,)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim_against_numpy(dim):
    rng = np.random.default_rng(8)
    a = rng.integers(0, 2, (6, 5, 3)).astype(np.int32)
    a = np.concatenate([a, np.take(a, [0, 1], axis=dim)], axis=dim)  # guaranteed repeats
    u, inv, cnt = ember.unique(ember.tensor(a), dim=dim, return_inverse=True, return_counts=True)
    wu, winv, wcnt = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(_np(u), wu)
    np.testing.assert_array_equal(_np(inv), winv.reshape(-1))
    np.testing.assert_array_equal(_np(cnt), wcnt)


def _np_unique_consecutive(a):
    keep = np.ones(a.size, bool)
    keep[1:] = a[1:] != a[:-1]
    starts = np.nonzero(keep)[0]
    counts = np.diff(np.append(starts, a.size))
    return a[starts], np.cumsum(keep) - 1, counts


def test_unique_consecutive():
    a = np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int64)
    u, inv, cnt = ember.unique_consecutive(ember.tensor(a), return_inverse=True, return_counts=True)
    wu, winv, wcnt = _np_unique_consecutive(a)
    np.testing.assert_array_equal(_np(u), wu)
    np.testing.assert_array_equal(_np(inv), winv)
    np.testing.assert_array_equal(_np(cnt), wcnt)
    m = np.array([[1, 1, 2, 2], [3, 3, 4, 3]])
    u, cnt = ember.unique_consecutive(ember.tensor(m), return_counts=True, dim=1)
    np.testing.assert_array_equal(_np(u), [[1, 2, 2], [3, 4, 3]])
    np.testing.assert_array_equal(_np(cnt), [2, 1, 1])
    u = ember.tensor(m).unique_consecutive()
    np.testing.assert_array_equal(_np(u), [1, 2, 3, 4, 3])
    with pytest.raises(IndexError):
        ember.unique_consecutive(ember.tensor(m), dim=2)


# ---- searchsorted / bucketize / histc / bincount / isin ------------------------------------------

def test_searchsorted_sorter_scalar_and_errors():
    seq = np.array([5.0, 1.0, 3.0, 9.0, 7.0])
    sorter = np.argsort(seq)
    v = np.array([0.0, 3.0, 4.0, 9.0, 10.0])
    got = ember.searchsorted(ember.tensor(seq), ember.tensor(v), sorter=ember.tensor(sorter))
    np.testing.assert_array_equal(_np(got), np.searchsorted(seq, v, sorter=sorter))
    got = ember.searchsorted(ember.tensor(seq), ember.tensor(v), side="right", sorter=ember.tensor(sorter))
    np.testing.assert_array_equal(_np(got), np.searchsorted(seq, v, side="right", sorter=sorter))
    s = ember.searchsorted(ember.tensor([1, 3, 5]), 4)
    assert s.dim() == 0 and s.item() == 2 and s.dtype == ember.int64
    assert ember.searchsorted(ember.tensor([1, 3, 5]), 3, out_int32=True, right=True).dtype == ember.int32
    with pytest.raises(RuntimeError, match="opposites"):
        ember.searchsorted(ember.tensor([1, 3]), 2, right=True, side="left")
    with pytest.raises(RuntimeError, match="side"):
        ember.searchsorted(ember.tensor([1, 3]), 2, side="middle")
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        ember.searchsorted(ember.tensor([[1, 3], [2, 4]]), ember.tensor([[1], [2], [3]]))
    with pytest.raises(RuntimeError, match="scalar"):
        ember.searchsorted(ember.tensor([[1, 3], [2, 4]]), 2)
    with pytest.raises(RuntimeError, match="long"):
        ember.searchsorted(ember.tensor([1, 3]), 2, sorter=ember.tensor([0, 1], dtype=ember.int32))
    with pytest.raises(RuntimeError, match="size"):
        ember.searchsorted(ember.tensor([1, 3]), 2, sorter=ember.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="out of range"):
        ember.searchsorted(ember.tensor([1, 3]), 2, sorter=ember.tensor([0, 2]))


def test_searchsorted_mixed_dtypes_promote():
    got = ember.searchsorted(ember.tensor([1, 2, 3]), ember.tensor([1.5, 2.5]))
    np.testing.assert_array_equal(_np(got), [1, 2])


def test_bucketize_errors():
    with pytest.raises(RuntimeError, match="1 dimension"):
        ember.bucketize(ember.tensor([1.0]), ember.tensor([[1.0, 2.0]]))
    r = ember.bucketize(ember.tensor([1, 5, 9]), ember.tensor([1, 5, 9]), right=True)
    np.testing.assert_array_equal(_np(r), [1, 2, 3])


def test_histc_behaviour_and_errors():
    t = ember.tensor([1.0, 2.0, 1.0, 4.0, 10.0, -3.0, float("nan")])
    np.testing.assert_array_equal(_np(ember.histc(t, bins=4, min=0, max=4)), [0, 2, 1, 1])
    np.testing.assert_array_equal(_np(t[:6].histc(bins=2)), [4, 2])  # range from the data: [-3, 10]
    with pytest.raises(RuntimeError, match="bins"):
        ember.histc(t, bins=0)
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        ember.histc(t, bins=3, min=2, max=1)
    with pytest.raises(RuntimeError, match="not finite"):
        ember.histc(t, bins=3)  # the data range holds NaN
    with pytest.raises(TypeError):
        ember.histc(ember.tensor([1, 2]), bins=2)
    big = np.random.default_rng(2).standard_normal(200000).astype(np.float32)
    np.testing.assert_array_equal(_np(ember.histc(ember.tensor(big), bins=50, min=-2, max=2)),
                                  np.histogram(big.astype(np.float64), bins=50, range=(-2, 2))[0])


def test_bincount_weights_and_errors():
    x = ember.tensor([0, 1, 1, 3])
    np.testing.assert_array_equal(_np(ember.bincount(x)), [1, 2, 0, 1])
    w32 = ember.tensor([0.5, 1.0, 2.0, 0.25], dtype=ember.float32)
    r = ember.bincount(x, w32)
    assert r.dtype == ember.float32
    np.testing.assert_allclose(_np(r), [0.5, 3.0, 0.0, 0.25])
    r = x.bincount(weights=ember.tensor([1, 2, 3, 4]), minlength=6)
    assert r.dtype == ember.float64 and r.shape == (6,)
    np.testing.assert_array_equal(_np(r), [1, 5, 0, 4, 0, 0])
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.bincount(ember.tensor([1, -1]))
    with pytest.raises(RuntimeError, match="1-d"):
        ember.bincount(ember.tensor([[1]]))
    with pytest.raises(RuntimeError):
        ember.bincount(ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="minlength"):
        ember.bincount(x, minlength=-1)
    with pytest.raises(RuntimeError, match="same length"):
        ember.bincount(x, ember.tensor([1.0]))


def test_isin_forms():
    e = ember.tensor([[1, 2], [3, 4]])
    np.testing.assert_array_equal(_np(ember.isin(e, ember.tensor([2, 4, 9]))), [[False, True], [False, True]])
    np.testing.assert_array_equal(_np(ember.isin(e, 3, invert=True)), [[True, True], [False, True]])
    assert ember.isin(2, ember.tensor([1, 2])).item() is True
    np.testing.assert_array_equal(_np(ember.isin(ember.tensor([1.5, 2.0]), ember.tensor([2, 3]))), [False, True])
    with pytest.raises(TypeError):
        ember.isin(1, 2)
    nan = float("nan")
    np.testing.assert_array_equal(_np(ember.isin(ember.tensor([nan, 0.0]), ember.tensor([nan, -0.0]))), [False, True])
