"""OpInfos for core/ops/views.yaml: sample shapes and arguments with NumPy references (reshape,
transpose, broadcast_to, diagonal, sliding_window_view, moveaxis, ...)."""
import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _arr(dtype, rng, shape):
    return np.asarray(random_array(dtype, shape, rng, (-3.0, 3.0), (-9, 10)))  # 0-D stays an array


def _samples(cases):
    """cases: (shapes of the array args, other args, kwargs) -> a sample_inputs function."""
    def make(dtype, rng):
        out = []
        for shapes, rest, kwargs in cases:
            arrays = tuple(_arr(dtype, rng, s) for s in shapes)
            out.append(Sample(args=arrays + tuple(rest), kwargs=dict(kwargs)))
        return out
    return make


def _resolve(shape, numel):
    shape = list(shape)
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        shape[shape.index(-1)] = numel // known
    return tuple(shape)


def _reshape(a, shape):
    return np.reshape(a, _resolve(shape, a.size))


def _swap(a, d0, d1):
    return a if a.ndim == 0 else np.swapaxes(a, d0, d1)


def _expand(a, size):
    size = list(size)
    lead = len(size) - a.ndim
    for i in range(len(size)):
        if size[i] == -1:
            size[i] = a.shape[i - lead]
    return np.broadcast_to(a, size)


def _squeeze(a, dim=None):
    if dim is None:
        return np.squeeze(a)
    dims = (dim,) if isinstance(dim, int) else dim
    if a.ndim == 0:
        return a
    axes = tuple(sorted({d % a.ndim for d in dims if a.shape[d] == 1}))
    return np.squeeze(a, axis=axes) if axes else a


def _flatten(a, start_dim=0, end_dim=-1):
    if a.ndim == 0:
        return a.reshape(1)
    s, e = start_dim % a.ndim, end_dim % a.ndim
    return a.reshape(a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:])


def _unflatten(a, dim, sizes):
    d = dim % a.ndim
    return a.reshape(a.shape[:d] + _resolve(sizes, a.shape[d]) + a.shape[d + 1:])


def _narrow(a, dim, start, length):
    if start < 0:
        start += a.shape[dim]
    return np.take(a, np.arange(start, start + length), axis=dim)


def _as_strided(a, size, stride, storage_offset=None):
    flat = np.ascontiguousarray(a).ravel()[storage_offset or 0:]
    return as_strided(flat, shape=size, strides=[s * flat.itemsize for s in stride]).copy()


def _unfold(a, dimension, size, step):
    if a.ndim == 0:
        return a.reshape(1)
    w = sliding_window_view(a, size, axis=dimension)
    return np.take(w, np.arange(0, w.shape[dimension], step), axis=dimension)


def _split(a, split_size, dim=0):
    if isinstance(split_size, (list, tuple)):
        return np.split(a, np.cumsum(split_size)[:-1], axis=dim)
    n = a.shape[dim]
    if n == 0:
        return [a]
    return [np.take(a, np.arange(i, min(i + split_size, n)), axis=dim) for i in range(0, n, split_size)]


def _chunk(a, chunks, dim=0):
    n = a.shape[dim]
    if n == 0:
        return [a] * chunks
    size = -(-n // chunks)  # ceil: PyTorch's chunk may return fewer than `chunks` pieces
    return _split(a, size, dim)


def _unbind(a, dim=0):
    return [np.take(a, i, axis=dim) for i in range(a.shape[dim])]


def _view_as_complex_samples(dtype, rng):
    return [Sample(args=(rng.uniform(-3, 3, s),)) for s in [(2,), (4, 2), (2, 3, 2), (0, 2)]]


def _view_as_real_samples(dtype, rng):
    return [Sample(args=(_arr(dtype, rng, s),)) for s in [(), (3,), (2, 4), (0, 3)]]


register(
    OpInfo(
        "view",
        ref=_reshape,
        sample_inputs=_samples(
            [
                ([(2, 3, 4)], [(6, 4)], {}),
                ([(2, 3, 4)], [(-1,)], {}),
                ([(2, 3, 4)], [(4, -1, 2)], {}),
                ([(2, 3, 4)], [(1, 24, 1)], {}),
                ([()], [(1, 1)], {}),
                ([(1,)], [()], {}),
                ([(0, 3)], [(3, 0, 1)], {}),
                ([(0, 3)], [(-1, 3)], {}),
                ([(6,)], [(3, 2)], {}),
            ]
        ),
    ),
    OpInfo(
        "view_as",
        ref=lambda a, b: np.reshape(a, b.shape),
        sample_inputs=_samples([([(2, 6), (3, 4)], [], {}), ([(4,), (1, 4, 1)], [], {}), ([(1,), ()], [], {})]),
    ),
    OpInfo(
        "reshape",
        ref=_reshape,
        sample_inputs=_samples(
            [
                ([(2, 3, 4)], [(6, 4)], {}),
                ([(2, 3, 4)], [(-1,)], {}),
                ([(2, 3, 4)], [(3, -1)], {}),
                ([()], [(1,)], {}),
                ([(5,)], [(5, 1, 1)], {}),
                ([(0, 4)], [(2, 0, 2)], {}),
                ([(3, 4)], [(2, 2, 3)], {}),
            ]
        ),
    ),
    OpInfo(
        "reshape_as",
        ref=lambda a, b: np.reshape(a, b.shape),
        sample_inputs=_samples([([(2, 6), (4, 3)], [], {}), ([(3, 1), (3,)], [], {})]),
    ),
    OpInfo(
        "permute",
        ref=np.transpose,
        sample_inputs=_samples(
            [
                ([(2, 3, 4)], [(2, 0, 1)], {}),
                ([(2, 3, 4)], [(-1, -3, -2)], {}),
                ([(3, 4)], [(1, 0)], {}),
                ([(5,)], [(0,)], {}),
                ([()], [()], {}),
                ([(2, 0, 3)], [(1, 2, 0)], {}),
                ([(1, 2, 1, 3)], [(3, 2, 1, 0)], {}),
            ]
        ),
    ),
    *[
        OpInfo(
            name,
            ref=_swap,
            sample_inputs=_samples(
                [
                    ([(2, 3, 4)], [0, 2], {}),
                    ([(2, 3, 4)], [-1, 1], {}),
                    ([(3, 4)], [1, 1], {}),
                    ([()], [0, -1], {}),
                    ([(4,)], [0, 0], {}),
                    ([(2, 0)], [0, 1], {}),
                ]
            ),
        )
        for name in ("transpose", "swapaxes", "swapdims")
    ],
    OpInfo(
        "t",
        ref=lambda a: a.T,
        sample_inputs=_samples([([(3, 4)], [], {}), ([(5,)], [], {}), ([()], [], {}), ([(0, 2)], [], {})]),
    ),
    OpInfo(
        "expand",
        ref=_expand,
        sample_inputs=_samples(
            [
                ([(3, 1)], [(3, 4)], {}),
                ([(3, 1)], [(2, 3, 4)], {}),
                ([(3, 1)], [(-1, 5)], {}),
                ([()], [(2, 2)], {}),
                ([(4,)], [(2, 3, 4)], {}),
                ([(1, 1)], [(0, 1)], {}),
                ([(2, 1, 3)], [(2, -1, 3)], {}),
            ]
        ),
    ),
    OpInfo(
        "expand_as",
        ref=lambda a, b: np.broadcast_to(a, b.shape),
        sample_inputs=_samples([([(3, 1), (2, 3, 4)], [], {}), ([(1,), (5,)], [], {}), ([(), (2, 3)], [], {})]),
    ),
    OpInfo(
        "squeeze",
        ref=_squeeze,
        sample_inputs=_samples(
            [
                ([(1, 3, 1, 4)], [], {}),
                ([(1, 3, 1, 4)], [], {"dim": 0}),
                ([(1, 3, 1, 4)], [], {"dim": 1}),
                ([(1, 3, 1, 4)], [], {"dim": -2}),
                ([(1, 3, 1, 4)], [], {"dim": (0, 2)}),
                ([(1, 3, 1, 4)], [], {"dim": (1, -2)}),
                ([()], [], {}),
                ([()], [], {"dim": 0}),
                ([(1,)], [], {}),
                ([(0, 1)], [], {}),
            ]
        ),
    ),
    OpInfo(
        "unsqueeze",
        ref=lambda a, dim: np.expand_dims(a, dim),
        sample_inputs=_samples(
            [
                ([(2, 3)], [0], {}),
                ([(2, 3)], [2], {}),
                ([(2, 3)], [-1], {}),
                ([(2, 3)], [-3], {}),
                ([()], [0], {}),
                ([(0,)], [1], {}),
            ]
        ),
    ),
    OpInfo(
        "flatten",
        ref=_flatten,
        sample_inputs=_samples(
            [
                ([(2, 3, 4)], [], {}),
                ([(2, 3, 4)], [], {"start_dim": 1}),
                ([(2, 3, 4, 5)], [], {"start_dim": 1, "end_dim": 2}),
                ([(2, 3, 4)], [], {"start_dim": -2, "end_dim": -1}),
                ([(2, 3)], [], {"start_dim": 1, "end_dim": 1}),
                ([()], [], {}),
                ([(2, 0, 3)], [], {}),
            ]
        ),
    ),
    OpInfo("ravel", ref=np.ravel, sample_inputs=_samples([([(2, 3, 4)], [], {}), ([()], [], {}), ([(0, 3)], [], {})])),
    OpInfo(
        "unflatten",
        ref=_unflatten,
        sample_inputs=_samples(
            [
                ([(2, 12)], [1, (3, 4)], {}),
                ([(2, 12)], [-1, (2, -1, 3)], {}),
                ([(6,)], [0, (6,)], {}),
                ([(6, 2)], [0, (1, 6, 1)], {}),
                ([(0, 4)], [1, (2, 2)], {}),
            ]
        ),
    ),
    OpInfo(
        "narrow",
        ref=_narrow,
        sample_inputs=_samples(
            [
                ([(5, 4)], [0, 1, 3], {}),
                ([(5, 4)], [1, 2, 2], {}),
                ([(5, 4)], [-1, -3, 2], {}),
                ([(5, 4)], [0, 5, 0], {}),
                ([(5,)], [0, 0, 5], {}),
            ]
        ),
    ),
    OpInfo(
        "select",
        ref=lambda a, dim, index: np.take(a, index, axis=dim),
        sample_inputs=_samples(
            [
                ([(3, 4, 5)], [0, 1], {}),
                ([(3, 4, 5)], [1, -1], {}),
                ([(3, 4, 5)], [-1, 4], {}),
                ([(3,)], [0, 2], {}),
                ([(2, 0)], [0, 1], {}),
            ]
        ),
    ),
    OpInfo(
        "as_strided",
        ref=_as_strided,
        sample_inputs=_samples(
            [
                ([(3, 4)], [(4, 3), (1, 4)], {}),
                ([(12,)], [(2, 2), (3, 1), 1], {}),
                ([(12,)], [(3, 3), (1, 1)], {}),
                ([(12,)], [(5,), (0,)], {}),
                ([(12,)], [(), ()], {"storage_offset": 7}),
                ([(4,)], [(0, 9), (9, 9)], {}),
            ]
        ),
        skips={"non_contiguous": "reads the input's storage by the given strides: layout is its argument"},
    ),
    OpInfo(
        "unfold",
        ref=_unfold,
        sample_inputs=_samples(
            [
                ([(7,)], [0, 2, 1], {}),
                ([(7,)], [0, 3, 2], {}),
                ([(3, 8)], [1, 4, 3], {}),
                ([(3, 8)], [-2, 2, 1], {}),
                ([(3, 8)], [1, 8, 1], {}),
                ([(3, 8)], [1, 0, 2], {}),
                ([()], [0, 1, 1], {}),
            ]
        ),
    ),
    OpInfo(
        "diagonal",
        ref=lambda a, offset=0, dim1=0, dim2=1: np.diagonal(a, offset, dim1, dim2),
        sample_inputs=_samples(
            [
                ([(4, 5)], [], {}),
                ([(4, 5)], [], {"offset": 2}),
                ([(4, 5)], [], {"offset": -3}),
                ([(4, 5)], [], {"offset": 7}),
                ([(2, 3, 4)], [], {"dim1": 1, "dim2": 2}),
                ([(2, 3, 4)], [], {"offset": 1, "dim1": -1, "dim2": 0}),
                ([(3, 3)], [], {"dim1": 1, "dim2": 0}),
                ([(0, 3)], [], {}),
            ]
        ),
    ),
    *[
        OpInfo(
            name,
            ref=np.moveaxis,
            sample_inputs=_samples(
                [
                    ([(2, 3, 4)], [0, 2], {}),
                    ([(2, 3, 4)], [-1, 0], {}),
                    ([(2, 3, 4, 5)], [(0, 1), (3, 2)], {}),
                    ([(2, 3, 4)], [(0, 1, 2), (2, 0, 1)], {}),
                    ([(2, 3)], [(), ()], {}),
                ]
            ),
        )
        for name in ("movedim", "moveaxis")
    ],
    OpInfo("view_as_real", ref=lambda a: np.stack([a.real, a.imag], axis=-1), sample_inputs=_view_as_real_samples),
    OpInfo(
        "view_as_complex",
        ref=lambda a: a[..., 0] + 1j * a[..., 1],
        sample_inputs=_view_as_complex_samples,
        skips={"non_contiguous": "a view: needs a last dim of stride 1 (tested in tests/core)"},
    ),
    OpInfo(
        "split",
        ref=_split,
        sample_inputs=_samples(
            [
                ([(7, 3)], [2], {}),
                ([(7, 3)], [3], {"dim": 0}),
                ([(7, 3)], [1], {"dim": 1}),
                ([(7, 3)], [10], {}),
                ([(0, 3)], [2], {}),
                ([(7, 3)], [[2, 0, 5]], {}),
                ([(7, 3)], [(1, 2)], {"dim": -1}),
            ]
        ),
    ),
    OpInfo(
        "split_with_sizes",
        ref=_split,
        sample_inputs=_samples(
            [
                ([(7, 3)], [[2, 5]], {}),
                ([(7, 3)], [[3]], {"dim": 1}),
                ([(7, 3)], [[0, 7, 0]], {}),
                ([(4,)], [[1, 1, 1, 1]], {}),
            ]
        ),
    ),
    OpInfo(
        "chunk",
        ref=_chunk,
        sample_inputs=_samples(
            [
                ([(7, 3)], [3], {}),
                ([(6, 3)], [3], {}),
                ([(6, 3)], [4], {}),
                ([(7, 3)], [2], {"dim": 1}),
                ([(2,)], [5], {}),
                ([(0, 2)], [3], {}),
            ]
        ),
    ),
    OpInfo(
        "unbind",
        ref=_unbind,
        sample_inputs=_samples(
            [([(3, 4)], [], {}), ([(3, 4)], [], {"dim": 1}), ([(2, 3, 4)], [], {"dim": -1}), ([(0, 2)], [], {})]
        ),
    ),
)
