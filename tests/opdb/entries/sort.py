"""OpInfos for core/ops/sort.yaml: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode,
quantile, nanquantile, searchsorted, bucketize, histc, bincount and isin against NumPy (stable
argsort for ties and PyTorch's index conventions, NaN sorted as the largest value)."""
import numpy as np

from ember.testing.opinfo import FLOATS, OpInfo, Sample, random_array, register

SHAPES_DIMS = [((), 0), ((), -1), ((9,), 0), ((4, 7), 1), ((4, 7), 0), ((2, 3, 5), 1), ((2, 3, 5), -1),
               ((0,), 0), ((2, 0, 3), 2), ((300,), 0)]


def _arr(dtype, rng, shape, nan=False, int_domain=(-9, 10)):
    a = np.asarray(random_array(dtype, shape, rng, (-3.0, 3.0), int_domain))
    if dtype in FLOATS and a.size:
        a = np.asarray(np.round(a.astype(np.float64) * 2) / 2)  # repeated values: ties must keep index order
        if nan:
            a.flat[rng.integers(0, a.size, size=max(1, a.size // 4))] = np.nan
    return a


def _hi(a):
    a = np.asarray(a)
    return a.astype(np.float64)


def _order(a, axis, descending):
    """PyTorch's stable order along axis: NaN largest (last ascending, first descending), ties by index."""
    a = _hi(a)
    if a.ndim == 0:
        return np.zeros((), np.int64)
    m = np.moveaxis(a, axis, -1)
    if descending:
        nan = np.isnan(m)
        idx = np.lexsort((np.where(nan, 0.0, -m), ~nan), axis=-1) if m.size else np.zeros(m.shape, np.int64)
    else:
        idx = np.argsort(m, axis=-1, kind="stable")
    return np.moveaxis(idx, -1, axis).astype(np.int64)


def _take(a, idx, axis):
    a = np.asarray(a)
    return a if a.ndim == 0 else np.take_along_axis(a, idx, axis)


def _sort(a, dim=-1, descending=False, stable=False):
    idx = _order(a, dim, descending)
    return _take(a, idx, dim), idx


def _argsort(a, dim=-1, descending=False, stable=False):
    return _order(a, dim, descending)


def _sort_samples(dtype, rng):
    out = []
    for shape, dim in SHAPES_DIMS:
        for desc in (False, True):
            out.append(Sample(args=(_arr(dtype, rng, shape),), kwargs={"dim": dim, "descending": desc}))
    out.append(Sample(args=(_arr(dtype, rng, (5, 6), nan=True),), kwargs={"dim": 1}))
    out.append(
        Sample(args=(_arr(dtype, rng, (5, 6), nan=True),), kwargs={"dim": 0, "descending": True, "stable": True})
    )
    out.append(Sample(args=(_arr(dtype, rng, (3, 4)), 0, True)))
    out.append(Sample(args=(_arr(dtype, rng, (3, 4)),)))
    return out


def _topk(a, k, dim=-1, largest=True, sorted=True):
    idx = _order(a, dim, largest)
    if np.ndim(a) == 0:
        return (np.asarray(a), idx) if k else (np.asarray(a)[None][:0].reshape(()), idx)
    idx = np.take(idx, np.arange(k), axis=dim)
    return _take(a, idx, dim), idx


def _topk_samples(dtype, rng):
    cases = [((9,), 3, {}), ((9,), 9, {}), ((9,), 0, {}), ((4, 7), 2, {"dim": 0}), ((4, 7), 5, {"largest": False}),
             ((2, 3, 5), 1, {"dim": 1}), ((2, 3, 5), 2, {"dim": -1, "largest": False}), ((), 1, {}),
             ((200,), 7, {}), ((3, 0), 0, {"dim": 1}), ((0, 4), 2, {})]
    out = [Sample(args=(_arr(dtype, rng, s), k), kwargs=kw) for s, k, kw in cases]
    out.append(Sample(args=(_arr(dtype, rng, (4, 8), nan=True), 3)))
    out.append(Sample(args=(_arr(dtype, rng, (4, 8), nan=True), 3), kwargs={"largest": False}))
    return out


def _kthvalue(a, k, dim=-1, keepdim=False):
    idx = _order(a, dim, False)
    if np.ndim(a) == 0:
        return np.asarray(a), idx
    i = np.take(idx, [k - 1], axis=dim)
    v = _take(a, i, dim)
    return (v, i) if keepdim else (np.squeeze(v, dim), np.squeeze(i, dim))


def _kth_samples(dtype, rng):
    cases = [((9,), 1, {}), ((9,), 5, {}), ((9,), 9, {}), ((4, 7), 2, {"dim": 0}), ((4, 7), 3, {"keepdim": True}),
             ((2, 3, 5), 2, {"dim": 1, "keepdim": True}), ((), 1, {}), ((0, 3), 2, {})]
    out = [Sample(args=(_arr(dtype, rng, s), k), kwargs=kw) for s, k, kw in cases]
    out.append(Sample(args=(_arr(dtype, rng, (4, 8), nan=True), 8)))
    return out


def _row_median(row, ignore_nan):
    """(value, index) of the lower median of a 1-D row, by PyTorch's rules."""
    nan = np.isnan(row)
    if nan.any() and (not ignore_nan or nan.all()):
        i = int(np.argmax(nan))
        return row[i], i
    order = np.argsort(row, kind="stable")
    i = int(order[(row.size - int(nan.sum()) - 1) // 2])
    return row[i], i


def _along(a, dim, keepdim, f):
    """Applies f(row) -> (value, index) to each row of a along dim."""
    a = _hi(a)
    if a.ndim == 0:
        v, i = f(a.reshape(1))
        return np.asarray(v), np.asarray(i, np.int64)
    m = np.moveaxis(a, dim, -1)
    vals = np.empty(m.shape[:-1]), np.empty(m.shape[:-1], np.int64)
    for pos in np.ndindex(*m.shape[:-1]):
        vals[0][pos], vals[1][pos] = f(m[pos])
    if keepdim:
        return tuple(np.expand_dims(x, dim) for x in vals)
    return vals


def _median_dim(a, dim, keepdim=False):
    return _along(a, dim, keepdim, lambda r: _row_median(r, False))


def _nanmedian_dim(a, dim, keepdim=False):
    return _along(a, dim, keepdim, lambda r: _row_median(r, True))


def _median_all(a, ignore):
    return np.asarray(_row_median(_hi(a).reshape(-1), ignore)[0])


def _median_samples(with_dim):
    def make(dtype, rng):
        shapes = [((9,), 0), ((8,), 0), ((4, 7), 1), ((4, 6), 0), ((2, 3, 5), 1), ((), 0), ((1,), 0)]
        out = []
        for s, d in shapes:
            kw = {"dim": d} if with_dim else {}
            out.append(Sample(args=(_arr(dtype, rng, s),), kwargs=kw))
            out.append(Sample(args=(_arr(dtype, rng, s, nan=True),), kwargs=kw))
        if with_dim:
            out.append(Sample(args=(_arr(dtype, rng, (3, 4)),), kwargs={"dim": -1, "keepdim": True}))
            out.append(Sample(args=(_arr(dtype, rng, (0, 4)),), kwargs={"dim": 1}))
            if dtype in FLOATS:
                out.append(Sample(args=(np.full((2, 3), np.nan),), kwargs={"dim": 1}))
        return out
    return make


def _row_mode(row):
    vals, counts = np.unique(row, return_counts=True, equal_nan=True)
    v = vals[int(np.argmax(counts))]
    hit = np.isnan(row) if np.isnan(v) else row == v
    return v, int(np.nonzero(hit)[0][-1])


def _mode(a, dim=-1, keepdim=False):
    return _along(a, dim, keepdim, _row_mode)


def _mode_samples(dtype, rng):
    cases = [((9,), {}), ((4, 7), {"dim": 0}), ((4, 7), {"keepdim": True}), ((2, 3, 5), {"dim": 1}), ((), {}),
             ((3, 40), {})]
    out = [Sample(args=(_arr(dtype, rng, s),), kwargs=kw) for s, kw in cases]
    out.append(Sample(args=(_arr(dtype, rng, (4, 8), nan=True),)))
    out.append(Sample(args=(np.array([3, 1, 3, 1, 2]),)))  # tie in frequency: the smaller value wins
    return out


def _quantile(f):
    def ref(a, q, dim=None, keepdim=False, interpolation="linear"):
        a = _hi(a)
        q = _hi(q) if isinstance(q, np.ndarray) else q
        if a.ndim == 0 and dim is not None:
            a, dim = a.reshape(1), 0
            r = f(a, q, axis=dim, keepdims=False, method=interpolation)
            return np.asarray(r)
        return np.asarray(f(a, q, axis=dim, keepdims=keepdim, method=interpolation))
    return ref


def _quantile_samples(dtype, rng):
    out = []
    for how in ("linear", "lower", "higher", "midpoint", "nearest"):
        out.append(Sample(args=(_arr(dtype, rng, (4, 7)), 0.3), kwargs={"dim": 1, "interpolation": how}))
        out.append(Sample(args=(_arr(dtype, rng, (4, 7)), np.array([0.0, 0.25, 0.5, 1.0])),
                          kwargs={"dim": 0, "interpolation": how}))
        out.append(Sample(args=(_arr(dtype, rng, (6,)), np.array([0.125, 0.375, 0.625, 0.875])),
                          kwargs={"interpolation": how}))
    out += [Sample(args=(_arr(dtype, rng, (2, 3, 5)), 0.5)),
            Sample(args=(_arr(dtype, rng, (2, 3, 5)), 0.9), kwargs={"keepdim": True}),
            Sample(args=(_arr(dtype, rng, (2, 3, 5)), np.array([0.1, 0.9])), kwargs={"dim": -1, "keepdim": True}),
            Sample(args=(_arr(dtype, rng, (5, 6), nan=True), 0.4), kwargs={"dim": 1}),
            Sample(args=(_arr(dtype, rng, (5, 6), nan=True), np.array([0.2, 0.7])), kwargs={"dim": 0}),
            Sample(args=(_arr(dtype, rng, ()), 0.5)),
            Sample(args=(_arr(dtype, rng, (7,)), np.array(0.5))),
            Sample(args=(_arr(dtype, rng, (3, 1)), 1.0), kwargs={"dim": 1})]
    return out


def _search_ref(seq, v, out_int32=False, right=False, side=None, sorter=None):
    side = side or ("right" if right else "left")
    seq = _hi(seq)
    v = _hi(v) if isinstance(v, np.ndarray) else float(v)
    dt = np.int32 if out_int32 else np.int64
    if seq.ndim == 1:
        return np.asarray(np.searchsorted(seq, v, side=side, sorter=sorter)).astype(dt)
    out = np.empty(np.shape(v), dt)
    for pos in np.ndindex(*seq.shape[:-1]):
        s = seq[pos] if sorter is None else seq[pos][sorter[pos]]
        out[pos] = np.searchsorted(s, v[pos], side=side)
    return out


def _sorted(dtype, rng, shape):
    return np.sort(_arr(dtype, rng, shape), axis=-1)


def _searchsorted_samples(dtype, rng):
    out = []
    for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}):
        out.append(Sample(args=(_sorted(dtype, rng, (10,)), _arr(dtype, rng, (3, 4))), kwargs=kw))
        out.append(Sample(args=(_sorted(dtype, rng, (2, 3, 6)), _arr(dtype, rng, (2, 3, 4))), kwargs=kw))
    out.append(Sample(args=(_sorted(dtype, rng, (10,)), 1), kwargs={}))
    out.append(Sample(args=(_sorted(dtype, rng, (10,)), _arr(dtype, rng, ())), kwargs={"right": True}))
    out.append(Sample(args=(_sorted(dtype, rng, (0,)), _arr(dtype, rng, (3,))), kwargs={}))
    out.append(Sample(args=(_sorted(dtype, rng, (5,)), _arr(dtype, rng, (0,))), kwargs={}))
    return out


def _bucketize_ref(v, boundaries, out_int32=False, right=False):
    # PyTorch's right=False is boundaries[i-1] < x <= boundaries[i], i.e. NumPy's side="left".
    return _search_ref(boundaries, v, out_int32=out_int32, side="right" if right else "left")


def _bucketize_samples(dtype, rng):
    out = []
    for kw in ({}, {"right": True}, {"out_int32": True}):
        out.append(Sample(args=(_arr(dtype, rng, (3, 4)), _sorted(dtype, rng, (6,))), kwargs=kw))
        out.append(Sample(args=(_arr(dtype, rng, ()), _sorted(dtype, rng, (6,))), kwargs=kw))
    out.append(Sample(args=(2, _sorted(dtype, rng, (6,)))))
    return out


def _histc_ref(a, bins=100, min=0, max=0):
    a = _hi(a).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = a.min(), a.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(a, bins=bins, range=(lo, hi))[0].astype(np.float64)


def _histc_samples(dtype, rng):
    return [Sample(args=(_arr(dtype, rng, (50,)),), kwargs={"bins": 7}),
            Sample(args=(_arr(dtype, rng, (4, 25)),), kwargs={"bins": 5, "min": -1, "max": 2}),
            Sample(args=(_arr(dtype, rng, (30,)), 4, -10, 10)),
            Sample(args=(_arr(dtype, rng, (30,)),)),
            Sample(args=(np.full((6,), 2.0),), kwargs={"bins": 4}),   # min == max: range [1, 3]
            Sample(args=(_arr(dtype, rng, (0,)),), kwargs={"bins": 3}),
            Sample(args=(np.array([0.0, 1.0, 2.0, 3.0, 4.0]),), kwargs={"bins": 4, "min": 0, "max": 4})]


def _bincount_ref(a, weights=None, minlength=0):
    w = None if weights is None else _hi(weights)
    r = np.bincount(np.asarray(a, np.int64), weights=w, minlength=minlength)
    return r if w is None else r.astype(np.float64)


def _bincount_samples(dtype, rng):
    lo_hi = (0, 12) if dtype != "bool" else (0, 2)
    a = lambda n: random_array(dtype, (n,), rng, (0, 1), lo_hi)
    return [Sample(args=(a(30),)), Sample(args=(a(30),), kwargs={"minlength": 20}),
            Sample(args=(a(0),)), Sample(args=(a(0),), kwargs={"minlength": 3}),
            Sample(args=(a(10), a(10)))]  # weights of the input's dtype (float weights: tests/core/test_sorting.py)


def _isin_ref(e, t, assume_unique=False, invert=False):
    e = _hi(e) if isinstance(e, np.ndarray) else e
    t = _hi(t) if isinstance(t, np.ndarray) else t
    return np.asarray(np.isin(e, t, invert=invert))


def _isin_samples(dtype, rng):
    return [Sample(args=(_arr(dtype, rng, (4, 5)), _arr(dtype, rng, (6,)))),
            Sample(args=(_arr(dtype, rng, (4, 5)), _arr(dtype, rng, (2, 3))), kwargs={"invert": True}),
            Sample(args=(_arr(dtype, rng, (30,)), _arr(dtype, rng, (40,))), kwargs={"assume_unique": False}),
            Sample(args=(_arr(dtype, rng, (5,)), 1)),
            Sample(args=(1, _arr(dtype, rng, (5,)))),
            Sample(args=(_arr(dtype, rng, ()), _arr(dtype, rng, (0,)))),
            Sample(args=(_arr(dtype, rng, (6,), nan=True), _arr(dtype, rng, (6,), nan=True)))]


DATA_DEPENDENT = "the output size depends on the data"
register(
    OpInfo("sort", ref=_sort, sample_inputs=_sort_samples),
    OpInfo("argsort", ref=_argsort, sample_inputs=_sort_samples),
    OpInfo("msort", ref=lambda a: _sort(a, 0)[0], sample_inputs=lambda d, rng: [
        Sample(args=(_arr(d, rng, s),)) for s in [(), (7,), (4, 5), (2, 3, 4), (0, 3)]] +
        [Sample(args=(_arr(d, rng, (6, 3), nan=True),))]),
    OpInfo("topk", ref=_topk, sample_inputs=_topk_samples),
    OpInfo("kthvalue", ref=_kthvalue, sample_inputs=_kth_samples),
    OpInfo("median", ref=lambda a: _median_all(a, False), sample_inputs=_median_samples(False)),
    OpInfo("median_dim", ref=_median_dim, sample_inputs=_median_samples(True)),
    OpInfo("nanmedian", ref=lambda a: _median_all(a, True), sample_inputs=_median_samples(False)),
    OpInfo("nanmedian_dim", ref=_nanmedian_dim, sample_inputs=_median_samples(True)),
    OpInfo("mode", ref=_mode, sample_inputs=_mode_samples),
    OpInfo("quantile", ref=_quantile(np.quantile), sample_inputs=_quantile_samples,
           tol={"float32": (1e-5, 1e-5)}),
    OpInfo("nanquantile", ref=_quantile(np.nanquantile), sample_inputs=_quantile_samples,
           tol={"float32": (1e-5, 1e-5)}),
    OpInfo("searchsorted", ref=_search_ref, sample_inputs=_searchsorted_samples),
    OpInfo("bucketize", ref=_bucketize_ref, sample_inputs=_bucketize_samples),
    OpInfo("histc", ref=_histc_ref, sample_inputs=_histc_samples),
    OpInfo("bincount", ref=_bincount_ref, sample_inputs=_bincount_samples, skips={"meta": DATA_DEPENDENT}),
    OpInfo("isin", ref=_isin_ref, sample_inputs=_isin_samples),
)
