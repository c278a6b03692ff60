"""OpInfos of the remaining top-level Python-written ops with a value to check (unique, unique_consecutive,
index_reduce, as_strided_scatter, norm_except_dim) against NumPy references written here."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def _unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
    out = [values] + ([inverse.reshape(x.shape if dim is None else -1)] if return_inverse else []) + (
        [counts] if return_counts else [])
    return out[0] if len(out) == 1 else tuple(out)


def _unique_consecutive(x, return_inverse=False, return_counts=False, dim=None):
    flat = x.reshape(-1) if dim is None else np.moveaxis(x, dim, 0)
    starts = [0] + [i for i in range(1, len(flat)) if not np.array_equal(flat[i], flat[i - 1])]
    values = flat[starts] if dim is None else np.moveaxis(flat[starts], 0, dim)
    counts = np.diff(starts + [len(flat)])
    inverse = np.repeat(np.arange(len(starts)), counts)
    out = [values] + ([inverse.reshape(x.shape) if dim is None else inverse] if return_inverse else []) + (
        [counts] if return_counts else [])
    return out[0] if len(out) == 1 else tuple(out)


def _rounded(rng, *shape):
    return np.round(rng.uniform(-2, 2, shape))


_REDUCERS = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _index_reduce(x, dim, index, source, reduce, include_self=True):
    out = np.moveaxis(x.copy(), dim, 0)
    src = np.moveaxis(source, dim, 0)
    idx = np.asarray(index)
    if not include_self:
        for i in set(idx.tolist()):
            out[i] = src[idx == i][0]
            rest = src[idx == i][1:]
            for r in rest:
                out[i] = _REDUCERS[reduce](out[i], r) if reduce != "mean" else out[i] + r
        if reduce == "mean":
            for i in set(idx.tolist()):
                out[i] = out[i] / (idx == i).sum()
        return np.moveaxis(out, 0, dim)
    if reduce == "mean":
        for i in set(idx.tolist()):
            out[i] = (out[i] + src[idx == i].sum(0)) / ((idx == i).sum() + 1)
        return np.moveaxis(out, 0, dim)
    for i, r in zip(idx, src):
        out[i] = _REDUCERS[reduce](out[i], r)
    return np.moveaxis(out, 0, dim)


def _index_reduce_samples(dtype, rng):
    idx = ember.tensor([0, 2, 0, 3])
    return [Sample((rng.uniform(-2, 2, (4, 3)), 0, idx, rng.uniform(-2, 2, (4, 3)), r), {"include_self": inc})
            for r in ("prod", "mean", "amax", "amin") for inc in (True, False)] + [
        Sample((rng.uniform(-2, 2, (2, 4)), 1, idx, rng.uniform(-2, 2, (2, 4)), "amax"))]


def _as_strided_scatter(x, src, size, stride, storage_offset=None):
    out = x.copy()
    flat = out.reshape(-1)
    view = as_strided(flat[storage_offset or 0:], size, [s * flat.itemsize for s in stride], writeable=True)
    view[...] = src
    return out


def _norm_except_dim(v, pow=2, dim=0):
    if dim == -1:
        return np.sum(np.abs(v) ** pow) ** (1 / pow)
    axes = tuple(i for i in range(v.ndim) if i != dim)
    return np.sum(np.abs(v) ** pow, axis=axes, keepdims=True) ** (1 / pow)


register(
    python_opinfo("unique", _unique, lambda dtype, rng: [
        Sample((_rounded(rng, 10),)), Sample((_rounded(rng, 3, 4),), {"return_inverse": True, "return_counts": True}),
        Sample((np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]]),), {"dim": 0, "return_inverse": True,
                                                                    "return_counts": True})],
                  dtypes=("float32", "float64", "int64"), method=True, grad=False),
    python_opinfo("unique_consecutive", _unique_consecutive, lambda dtype, rng: [
        Sample((np.array([1.0, 1.0, 2.0, 2.0, 3.0, 1.0, 1.0, 2.0]),)),
        Sample((np.array([[1.0, 1.0], [2.0, 2.0], [2.0, 3.0]]),), {"return_inverse": True, "return_counts": True}),
        Sample((np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0], [1.0, 2.0]]),), {"dim": 0, "return_counts": True})],
                  dtypes=("float32", "float64", "int64"), method=True, grad=False),
    python_opinfo("index_reduce", _index_reduce, _index_reduce_samples, method=True, grad=False),
    python_opinfo("as_strided_scatter", _as_strided_scatter, lambda dtype, rng: [
        Sample((rng.uniform(-1, 1, (4, 4)), rng.uniform(-1, 1, (2, 2)), (2, 2), (4, 1))),
        Sample((rng.uniform(-1, 1, (3, 5)), rng.uniform(-1, 1, (3,)), (3,), (6,), 1))], method=True),
    python_opinfo("norm_except_dim", _norm_except_dim, lambda dtype, rng: [
        Sample((rng.uniform(-1, 1, (3, 4, 2)),)), Sample((rng.uniform(-1, 1, (3, 4)), 3, 1)),
        Sample((rng.uniform(-1, 1, (3, 4)), 2, -1))]),
)
