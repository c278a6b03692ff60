"""OpInfos of the top-level shape, index and histogram helpers written in Python (atleast_nd, meshgrid,
broadcast_*, h/v/dsplit, the unsafe splits, tril/triu_indices, unravel_index, argwhere, histogram(dd), trapz)
against NumPy."""
import numpy as np

from ember.testing.opinfo import Sample, register, to_ember, to_numpy

from ._python_level import python_opinfo


def _r(rng, *shape):
    return rng.uniform(-2, 2, shape)


def _atleast(np_fn):
    """PyTorch's atleast_nd: one tensor for one argument (also a one-element list), else a tuple."""
    def ref(*arrays):
        if len(arrays) == 1 and isinstance(arrays[0], list):
            return tuple(np_fn(a) for a in arrays[0])
        out = np_fn(*arrays)
        return tuple(out) if isinstance(out, list) else out
    return ref


def _atleast_samples(dtype, rng):
    return [Sample((rng.uniform(-2, 2, ()),)), Sample((_r(rng, 3),)), Sample((_r(rng, 2, 3),)),
            Sample((_r(rng, 2, 1, 3, 2),)), Sample((_r(rng, 2), _r(rng, 2, 2), rng.uniform(-2, 2, ()))),
            Sample(([_r(rng, 3), _r(rng, 1, 2)],))]


def _meshgrid(*xs, indexing="ij"):
    return tuple(np.meshgrid(*xs, indexing=indexing))


def _np(x):
    """A keyword argument's tensors (a sample's kwargs are passed as they are) as NumPy arrays."""
    if isinstance(x, (list, tuple)):
        return type(x)(_np(i) for i in x)
    return to_numpy(x) if hasattr(x, "numpy") else x


def _histogramdd(x, bins=10, range=None, weight=None, density=False):
    bins, weight = _np(bins), _np(weight)
    if range is not None:  # PyTorch: a flat (min0, max0, min1, max1, ...) sequence
        range = [range[i:i + 2] for i in np.arange(0, len(range), 2)]
    hist, edges = np.histogramdd(x, bins, range=range, weights=weight, density=density)
    return hist, tuple(edges)


def _histogram(x, bins, range=None, weight=None, density=False):
    weight = _np(weight)
    return np.histogram(x, bins, range=range, weights=weight, density=density)


def _split_ref(np_fn):
    def ref(x, sections):
        return tuple(np_fn(x, sections))
    return ref


def _unsafe_split(x, split_size, dim=0):
    return tuple(np.split(x, range(split_size, x.shape[dim], split_size), axis=dim))


def _unsafe_split_with_sizes(x, sizes, dim=0):
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=dim))


def _unsafe_chunk(x, chunks, dim=0):
    return _unsafe_split(x, -(-x.shape[dim] // chunks), dim)


def _tri_indices(np_fn):
    def ref(row, col, offset=0):
        return np.stack(np_fn(row, offset, col))
    return ref


def _index_samples(dtype, rng):
    return [Sample((3, 4)), Sample((4, 3, 1)), Sample((4, 4, -1)), Sample((3, 5, 2))]


register(
    python_opinfo("atleast_1d", _atleast(np.atleast_1d), _atleast_samples),
    python_opinfo("atleast_2d", _atleast(np.atleast_2d), _atleast_samples),
    python_opinfo("atleast_3d", _atleast(np.atleast_3d), _atleast_samples),
    python_opinfo("meshgrid", _meshgrid,
                  lambda dtype, rng: [Sample((_r(rng, 3), _r(rng, 2)), {"indexing": ix}) for ix in ("ij", "xy")]
                  + [Sample((_r(rng, 2), _r(rng, 3), _r(rng, 4)), {"indexing": "xy"}), Sample((_r(rng, 3),),
                                                                                            {"indexing": "ij"})]),
    python_opinfo("broadcast_to", np.broadcast_to,
                  lambda dtype, rng: [Sample((_r(rng, 3, 1), (2, 3, 4))), Sample((_r(rng, 3), (2, 3)))],
                  method=True),
    python_opinfo("broadcast_tensors", lambda *xs: tuple(np.broadcast_arrays(*xs)),
                  lambda dtype, rng: [Sample((_r(rng, 3, 1), _r(rng, 4), _r(rng, 2, 1, 1)))]),
    python_opinfo("hsplit", _split_ref(np.hsplit), lambda dtype, rng: [
        Sample((_r(rng, 2, 6), 3)), Sample((_r(rng, 2, 6), [1, 4])),
        Sample((_r(rng, 6), 2))], method=True),
    python_opinfo("vsplit", _split_ref(np.vsplit), lambda dtype, rng: [
        Sample((_r(rng, 6, 2), 3)), Sample((_r(rng, 6, 2), [2, 5]))], method=True),
    python_opinfo("dsplit", _split_ref(np.dsplit), lambda dtype, rng: [
        Sample((_r(rng, 2, 2, 6), 2)), Sample((_r(rng, 2, 2, 6), [1, 3]))], method=True),
    python_opinfo("unsafe_split", _unsafe_split, lambda dtype, rng: [
        Sample((_r(rng, 7, 2), 3)), Sample((_r(rng, 2, 6), 2, 1))], method=True),
    python_opinfo("unsafe_split_with_sizes", _unsafe_split_with_sizes, lambda dtype, rng: [
        Sample((_r(rng, 7, 2), [3, 4])), Sample((_r(rng, 2, 6), [1, 2, 3], 1))], method=True),
    python_opinfo("unsafe_chunk", _unsafe_chunk, lambda dtype, rng: [
        Sample((_r(rng, 7, 2), 3)), Sample((_r(rng, 2, 6), 4, 1))], method=True),
    python_opinfo("tril_indices", _tri_indices(np.tril_indices), _index_samples, grad=False),
    python_opinfo("triu_indices", _tri_indices(np.triu_indices), _index_samples, grad=False),
    python_opinfo("unravel_index", lambda i, shape: tuple(np.unravel_index(i.astype(np.int64), shape)),
                  lambda dtype, rng: [Sample((np.array([0, 5, 11, 7]), (3, 4))), Sample((np.array(13), (2, 3, 4)))],
                  dtypes=("int64",), grad=False),
    python_opinfo("argwhere", np.argwhere, lambda dtype, rng: [
        Sample((np.round(_r(rng, 3, 4)),)), Sample((np.round(_r(rng, 5)),)), Sample((np.zeros((2, 2)),))],
                  dtypes=("float32", "float64", "int64", "bool"), method=True, grad=False),
    python_opinfo("histogram", _histogram, lambda dtype, rng: [
        Sample((_r(rng, 50), 7)), Sample((_r(rng, 40), 5), {"range": (-1.0, 1.5), "density": True}),
        Sample((_r(rng, 30), 4), {"weight": to_ember(rng.uniform(0, 2, 30), dtype)}),
        Sample((_r(rng, 30), np.array([-2.0, -0.5, 0.0, 2.0])))], method=True, grad=False),
    python_opinfo("histogramdd", _histogramdd, lambda dtype, rng: [
        Sample((_r(rng, 40, 2),), {"bins": [3, 4]}), Sample((_r(rng, 30, 3),), {"bins": 2, "density": True}),
        Sample((_r(rng, 30, 2),), {"bins": [2, 3], "range": [-1.0, 1.0, -2.0, 2.0],
                                   "weight": to_ember(rng.uniform(0, 2, 30), dtype)}),
        Sample((_r(rng, 20, 2),), {"bins": [to_ember(np.array(e), dtype) for e in
                                                        ([-2.0, 0.0, 2.0], [-2.0, -1.0, 1.0, 2.0])]})],
                  grad=False),
    python_opinfo("trapz", lambda y, x=None, dx=None, dim=-1: np.trapezoid(y, x, dx if dx is not None else 1.0, dim),
                  lambda dtype, rng: [Sample((_r(rng, 3, 5),)), Sample((_r(rng, 3, 5), np.sort(_r(rng, 5)))),
                                      Sample((_r(rng, 4, 3),), {"dx": 0.5, "dim": 0})]),
)
