"""OpInfos for core/ops/index.yaml: index_select, gather, scatter*, index_add/copy/fill/put, put, take,
take_along_dim, masked_*, nonzero against np.take, np.take_along_axis, np.put_along_axis-style
assignment, np.add.at / np.multiply.at / np.maximum.at / np.minimum.at, np.argwhere and boolean indexing.
Index tensors are passed as int64 ember tensors (samples keep them out of the dtype under test);
several samples use non-contiguous (transposed or strided) inputs."""
import numpy as np

import ember
from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _arr(dtype, rng, shape):
    return np.asarray(random_array(dtype, shape, rng, (-3.0, 3.0), (-9, 10)))


def _idx(a):
    return ember.tensor(np.asarray(a, dtype=np.int64))


def _mask(a):
    return ember.tensor(np.asarray(a, dtype=bool))


def _noncontig(x):
    """The same values as x, as a transposed view of a fresh array (so the tensor is not contiguous)."""
    return np.ascontiguousarray(x.T).T if x.ndim >= 2 else x


def _cut(a, shape, dim):
    """a restricted to shape outside dim (gather/scatter use only the leading part of other dims)."""
    return a[tuple(slice(None) if k == dim else slice(0, s) for k, s in enumerate(shape))]


def _coords(idx, dim):
    """The full coordinates gather/scatter address: idx along dim, the position elsewhere."""
    if idx.ndim == 0:
        return (idx.reshape(1),)
    c = list(np.indices(idx.shape, sparse=False))
    c[dim] = idx
    return tuple(c)


# ---- references ----

def _index_select(a, dim, idx):
    if a.ndim == 0:
        return a.copy()
    return np.take(a, idx.reshape(-1), axis=dim)


def _gather(a, dim, idx, sparse_grad=False):
    a1 = a.reshape(1) if a.ndim == 0 else a
    out = a1[_coords(idx, dim % a1.ndim)]
    return out.reshape(idx.shape)


def _take_along_dim(a, idx, dim=None):
    if dim is None:
        return a.reshape(-1)[idx.reshape(-1)]
    return np.take_along_axis(a, idx, axis=dim)


_UFUNC = {"add": np.add, "multiply": np.multiply, "sum": np.add, "prod": np.multiply, "amax": np.maximum,
          "amin": np.minimum}


def _ufunc_at(fn, out, coords, vals):
    if out.dtype == np.bool_ and fn is np.multiply:
        fn = np.logical_and
    if out.dtype == np.bool_ and fn is np.add:
        fn = np.logical_or
    fn.at(out, coords, vals)


def _scatter(a, dim, idx, src, reduce=None):
    out = a.copy()
    o1 = out.reshape(1) if out.ndim == 0 else out
    coords = _coords(idx, dim % max(a.ndim, 1))
    if isinstance(src, np.ndarray):
        vals = src.reshape(1) if src.ndim == 0 else src
        vals = vals[tuple(slice(0, s) for s in idx.shape)]
    else:  # a Python number
        vals = np.full(idx.shape, src, dtype=a.dtype)
    if reduce is None:
        o1[coords] = vals
    else:
        _ufunc_at(_UFUNC[reduce], o1, coords, vals)
    return out


def _scatter_add(a, dim, idx, src):
    return _scatter(a, dim, idx, src, "add")


def _scatter_reduce(a, dim, idx, src, reduce, include_self=True):
    out = a.copy()
    coords = _coords(idx, dim % a.ndim)
    vals = src[tuple(slice(0, s) for s in idx.shape)]
    if reduce == "mean":
        acc = out.astype(np.float64 if out.dtype.kind != "c" else np.complex128)
        cnt = np.ones(out.shape) if include_self else np.zeros(out.shape)
        if not include_self:
            acc[coords] = 0
        np.add.at(acc, coords, vals)
        np.add.at(cnt, coords, 1)
        hit = cnt > 0
        if out.dtype.kind in "iu":
            out[hit] = np.floor_divide(acc[hit], cnt[hit]).astype(out.dtype)
        else:
            out[hit] = (acc[hit] / cnt[hit]).astype(out.dtype)
        return out
    if not include_self:
        ident = {"sum": 0, "prod": 1}.get(reduce)
        if ident is None:
            if out.dtype == np.bool_:
                ident = reduce == "amin"
            elif out.dtype.kind in "iu":
                info = np.iinfo(out.dtype)
                ident = info.min if reduce == "amax" else info.max
            else:
                ident = -np.inf if reduce == "amax" else np.inf
        out[coords] = ident
    _ufunc_at(_UFUNC[reduce], out, coords, vals)
    return out


def _along(a, dim, idx):
    return (slice(None),) * (dim % max(a.ndim, 1)) + (idx,)


def _index_add(a, dim, idx, src, alpha=1):
    out = a.copy()
    o1, s1 = (out.reshape(1), src.reshape(1)) if out.ndim == 0 else (out, src)
    vals = s1 * alpha if alpha != 1 else s1
    _ufunc_at(np.add, o1, _along(o1, dim, idx.reshape(-1)), vals.astype(out.dtype))
    return out


def _index_copy(a, dim, idx, src):
    out = a.copy()
    o1, s1 = (out.reshape(1), src.reshape(1)) if out.ndim == 0 else (out, src)
    o1[_along(o1, dim, idx.reshape(-1))] = s1
    return out


def _index_fill(a, dim, idx, value):
    out = a.copy()
    o1 = out.reshape(1) if out.ndim == 0 else out
    o1[_along(o1, dim, idx.reshape(-1))] = value
    return out


def _index_put(a, indices, values, accumulate=False):
    out = a.copy()
    idx = tuple(np.asarray(i) for i in indices)
    if accumulate:
        _ufunc_at(np.add, out, idx, np.broadcast_to(values, out[idx].shape))
    else:
        out[idx] = values
    return out


def _put(a, idx, src, accumulate=False):
    out = a.copy().reshape(-1)
    if accumulate:
        _ufunc_at(np.add, out, idx.reshape(-1), src.reshape(-1))
    else:
        out[idx.reshape(-1)] = src.reshape(-1)
    return out.reshape(a.shape)


def _masked_fill(a, mask, value):
    return np.where(mask, np.asarray(value).astype(a.dtype), a)


def _masked_select(a, mask):
    ab, mb = np.broadcast_arrays(a, mask)
    return ab[mb]


def _masked_scatter(a, mask, src):
    ab, mb = np.broadcast_arrays(a, mask)
    out = ab.copy()
    out[mb] = src.reshape(-1)[:int(mb.sum())]
    return out


# ---- samples ----

def _value(dtype):
    return {"bool": True, "complex64": 1.5 - 2j, "complex128": 1.5 - 2j}.get(
        dtype, 2.5 if dtype in ("float16", "bfloat16", "float32", "float64") else 3)


def _index_select_samples(dtype, rng):
    a = _arr(dtype, rng, (4, 5, 3))
    return [
        Sample((a, 0, _idx([3, 0, 0, -1]))),
        Sample((a, 1, _idx([4, 2]))),
        Sample((a, -1, _idx(np.array([2, 1, 0], dtype=np.int32)))),  # int32 index
        Sample((_noncontig(_arr(dtype, rng, (5, 6))), 1, _idx([5, 0, 3]))),
        Sample((a, 2, _idx(1))),  # 0-dim index
        Sample((a, 1, _idx(np.zeros(0)))),
        Sample((_arr(dtype, rng, ()), 0, _idx([0]))),
    ]


def _gather_samples(dtype, rng):
    a = _arr(dtype, rng, (4, 5))
    return [
        Sample((a, 0, _idx(rng.integers(-4, 4, (3, 5))))),
        Sample((a, 1, _idx(rng.integers(0, 5, (4, 7))))),
        Sample((a, 1, _idx(rng.integers(0, 5, (2, 3))))),  # smaller than input outside dim
        Sample((_noncontig(_arr(dtype, rng, (3, 4, 5))), -1, _idx(rng.integers(0, 5, (3, 4, 2))))),
        Sample((a, 0, _idx(np.zeros((0, 5))))),
        Sample((_arr(dtype, rng, (6,)), 0, _idx([5, 0, 5, 1])), {"sparse_grad": False}),
    ]


def _take_along_dim_samples(dtype, rng):
    a = _arr(dtype, rng, (4, 5))
    return [
        Sample((a, _idx(rng.integers(0, 4, (2, 5))), 0)),
        Sample((a, _idx(rng.integers(-5, 5, (4, 3)))), {"dim": 1}),
        Sample((a, _idx(rng.integers(0, 5, (1, 3))), 1)),  # broadcast outside dim
        Sample((_arr(dtype, rng, (1, 5)), _idx(rng.integers(0, 5, (3, 2))), 1)),
        Sample((_noncontig(a), _idx(rng.integers(0, 20, (7,))))),  # dim=None: flattened
    ]


def _take_samples(dtype, rng):
    a = _arr(dtype, rng, (3, 4))
    return [
        Sample((a, _idx([[0, 11], [-1, 5]]))),
        Sample((_noncontig(a), _idx(rng.integers(-12, 12, (6,))))),
        Sample((a, _idx(7))),
        Sample((a, _idx(np.zeros((0, 2))))),
    ]


def _unique_rows(rng, n, size, cols):
    """(n, cols) int64 with distinct values in each column (scatter with assign needs no duplicates)."""
    return np.stack([rng.permutation(size)[:n] for _ in range(cols)], axis=1)


def _scatter_samples(dtype, rng):
    a = _arr(dtype, rng, (5, 4))
    src = _arr(dtype, rng, (4, 6))
    samples = [
        Sample((a, 0, _idx(_unique_rows(rng, 3, 5, 4)), src)),
        Sample((a, 1, _idx(_unique_rows(rng, 3, 4, 5).T), _arr(dtype, rng, (5, 3)))),
        Sample((_noncontig(a), -2, _idx(_unique_rows(rng, 2, 5, 3)), src)),
        Sample((a, 0, _idx(_unique_rows(rng, 2, 5, 4)), _value(dtype))),  # a Python number
        Sample((a, 0, _idx(np.zeros((0, 4))), src)),
        Sample((a, 0, _idx(rng.integers(0, 5, (6, 4))), _arr(dtype, rng, (6, 4))), {"reduce": "add"}),
    ]
    if dtype not in ("float16", "bfloat16"):  # products of several values round differently in 16 bits
        samples.append(Sample((a, 1, _idx(rng.integers(0, 4, (5, 3))), _arr(dtype, rng, (5, 3))),
                              {"reduce": "multiply"}))
    return samples


def _scatter_add_samples(dtype, rng):
    a = _arr(dtype, rng, (5, 4))
    return [
        Sample((a, 0, _idx(rng.integers(0, 5, (8, 4))), _arr(dtype, rng, (8, 4)))),
        Sample((_noncontig(a), 1, _idx(rng.integers(-4, 4, (5, 2))), _arr(dtype, rng, (5, 3)))),
        Sample((_arr(dtype, rng, (7,)), 0, _idx([0, 0, 0, 6, 6]), _arr(dtype, rng, (5,)))),
    ]


def _scatter_reduce_samples(dtype, rng):
    a = _arr(dtype, rng, (5, 4))
    reduces = ["sum", "prod", "mean", "amax", "amin"]
    if dtype in ("complex64", "complex128"):
        reduces = ["sum", "prod", "mean"]
    if dtype == "bool":
        reduces = ["sum", "prod", "amax", "amin"]
    out = []
    for r in reduces:
        for inc in (True, False):
            n = 3 if r == "prod" and dtype in ("float16", "bfloat16") else 7
            out.append(Sample((a, 0, _idx(rng.integers(0, 5, (n, 4))), _arr(dtype, rng, (n, 4)), r),
                              {"include_self": inc}))
    out.append(Sample((_noncontig(a), 1, _idx(rng.integers(0, 4, (5, 6))), _arr(dtype, rng, (5, 6)), reduces[-1])))
    return out


def _index_add_samples(dtype, rng):
    a = _arr(dtype, rng, (5, 4))
    alpha = {"bool": True}.get(dtype, 2 if dtype in ("uint8", "int8", "int16", "int32", "int64") else 1.5)
    return [
        Sample((a, 0, _idx([0, 4, 0, 2]), _arr(dtype, rng, (4, 4)))),
        Sample((_noncontig(a), 1, _idx(np.array([3, 3, 1], dtype=np.int32)), _arr(dtype, rng, (5, 3)))),
        Sample((a, 0, _idx([1, 1]), _arr(dtype, rng, (2, 4))), {"alpha": alpha}),
        Sample((a, -1, _idx(2), _arr(dtype, rng, (5, 1)))),
    ]


def _index_copy_samples(dtype, rng):
    a = _arr(dtype, rng, (5, 4))
    return [
        Sample((a, 0, _idx([4, 0, 2]), _arr(dtype, rng, (3, 4)))),
        Sample((_noncontig(a), 1, _idx([-1, 1]), _arr(dtype, rng, (5, 2)))),
        Sample((a, 0, _idx(np.zeros(0)), _arr(dtype, rng, (0, 4)))),
    ]


def _index_fill_samples(dtype, rng):
    a = _arr(dtype, rng, (5, 4))
    return [
        Sample((a, 0, _idx([4, 0, 4]), _value(dtype))),
        Sample((_noncontig(a), 1, _idx([-1]), _value(dtype))),
        Sample((_arr(dtype, rng, (2, 3, 4)), 2, _idx(3), _value(dtype))),
    ]


def _index_put_samples(dtype, rng):
    a = _arr(dtype, rng, (5, 4))
    return [
        Sample((a, (_idx([0, 2, 4]), _idx([1, 1, 3])), _arr(dtype, rng, (3,)))),
        Sample((a, (_idx([[0], [3]]), _idx([1, 2, 0])), _arr(dtype, rng, (3,)))),  # broadcast values
        Sample((a, (_idx([1, 1, 1, 4]),), _arr(dtype, rng, (4, 4))), {"accumulate": True}),
        Sample((_noncontig(a), (_mask(rng.random((5, 4)) < 0.5),), _arr(dtype, rng, ()))),
        Sample((a, (_idx([-1, 0]), _idx([-4, 3])), _arr(dtype, rng, (2,))), {"accumulate": True}),
    ]


def _put_samples(dtype, rng):
    a = _arr(dtype, rng, (3, 4))
    return [
        Sample((a, _idx([0, 11, -2, 5]), _arr(dtype, rng, (2, 2)))),
        Sample((_noncontig(a), _idx([3, 7]), _arr(dtype, rng, (2,)))),
        Sample((a, _idx([1, 1, 1, 2]), _arr(dtype, rng, (4,)), True)),
        Sample((a, _idx([0, 0]), _arr(dtype, rng, (2,))), {"accumulate": True}),
    ]


def _masked_fill_samples(dtype, rng):
    a = _arr(dtype, rng, (4, 5))
    return [
        Sample((a, _mask(rng.random((4, 5)) < 0.5), _value(dtype))),
        Sample((_noncontig(a), _mask(rng.random((5,)) < 0.5), _value(dtype))),  # mask broadcasts
        Sample((a, _mask(rng.random((4, 1)) < 0.5), ember.tensor(np.asarray(_value(dtype))))),  # 0-dim tensor value
    ]


def _masked_select_samples(dtype, rng):
    a = _arr(dtype, rng, (4, 5))
    return [
        Sample((a, _mask(rng.random((4, 5)) < 0.5))),
        Sample((_noncontig(a), _mask(rng.random((5,)) < 0.5))),
        Sample((_arr(dtype, rng, (5,)), _mask(rng.random((3, 5)) < 0.5))),  # input broadcasts too
        Sample((a, _mask(np.zeros((4, 5))))),
        Sample((_arr(dtype, rng, ()), _mask(True))),
    ]


def _masked_scatter_samples(dtype, rng):
    a = _arr(dtype, rng, (4, 5))
    return [
        Sample((a, _mask(rng.random((4, 5)) < 0.5), _arr(dtype, rng, (20,)))),
        Sample((_noncontig(a), _mask(rng.random((5,)) < 0.5), _arr(dtype, rng, (5, 5)))),
        Sample((a, _mask(np.zeros((4, 5))), _arr(dtype, rng, (2,)))),
    ]


def _nonzero_samples(dtype, rng):
    out = []
    for shape in [(4, 5), (7,), (2, 3, 4), (), (0, 3)]:
        a = _arr(dtype, rng, shape)
        a[rng.random(shape) < 0.4] = 0
        out.append(Sample((a,)))
    out.append(Sample((_noncontig(np.where(rng.random((3, 4)) < 0.5, _arr(dtype, rng, (3, 4)), 0)),)))
    return out


DATA_DEPENDENT = {"meta": "the result size depends on the values"}

register(
    OpInfo("index_select", ref=_index_select, sample_inputs=_index_select_samples),
    OpInfo("gather", ref=_gather, sample_inputs=_gather_samples),
    OpInfo("take_along_dim", ref=_take_along_dim, sample_inputs=_take_along_dim_samples),
    OpInfo("take", ref=lambda a, idx: a.reshape(-1)[idx], sample_inputs=_take_samples),
    OpInfo("scatter", ref=_scatter, sample_inputs=_scatter_samples,
           tol={"float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)}),
    OpInfo("scatter_add", ref=_scatter_add, sample_inputs=_scatter_add_samples,
           tol={"float16": (8e-3, 8e-3), "bfloat16": (6e-2, 6e-2)}),
    OpInfo("scatter_reduce", ref=_scatter_reduce, sample_inputs=_scatter_reduce_samples,
           tol={"float16": (1e-2, 1e-2), "bfloat16": (8e-2, 8e-2), "float32": (1e-5, 1e-5)}),
    OpInfo("index_add", ref=_index_add, sample_inputs=_index_add_samples,
           tol={"float16": (8e-3, 8e-3), "bfloat16": (6e-2, 6e-2)}),
    OpInfo("index_copy", ref=_index_copy, sample_inputs=_index_copy_samples),
    OpInfo("index_fill", ref=_index_fill, sample_inputs=_index_fill_samples),
    OpInfo("index_put", ref=_index_put, sample_inputs=_index_put_samples,
           tol={"float16": (8e-3, 8e-3), "bfloat16": (6e-2, 6e-2)}),
    OpInfo("put", ref=_put, sample_inputs=_put_samples, tol={"float16": (8e-3, 8e-3), "bfloat16": (6e-2, 6e-2)}),
    OpInfo("masked_fill", ref=_masked_fill, sample_inputs=_masked_fill_samples),
    OpInfo("masked_select", ref=_masked_select, sample_inputs=_masked_select_samples, skips=DATA_DEPENDENT),
    OpInfo("masked_scatter", ref=_masked_scatter, sample_inputs=_masked_scatter_samples),
    OpInfo("nonzero", ref=np.argwhere, sample_inputs=_nonzero_samples, skips=DATA_DEPENDENT),
)
