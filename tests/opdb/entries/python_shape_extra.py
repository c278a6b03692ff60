"""OpInfos of the shape helpers written in Python (core/ember/_ops_shape_extra.py) against NumPy/SciPy."""
import itertools

import numpy as np
import scipy.linalg

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def _r(rng, *shape):
    return rng.uniform(-2, 2, shape)


def _cartesian(*xs):
    rows = np.array(list(itertools.product(*xs)))
    return rows if len(xs) > 1 else rows[:, 0]


def _combinations(x, r=2, with_replacement=False):
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    return np.array(list(pick(x, r))).reshape(-1, r)


def _diag_embed(x, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n))
    idx = np.arange(x.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = x
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    out = np.moveaxis(x.copy(), (dim1, dim2), (-2, -1))
    n = min(out.shape[-2] - max(-offset, 0), out.shape[-1] - max(offset, 0))
    idx = np.arange(n)
    out[..., idx + max(-offset, 0), idx + max(offset, 0)] = src
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _select_scatter(x, src, dim, index):
    out = x.copy()
    np.moveaxis(out, dim, 0)[index] = src
    return out


def _slice_scatter(x, src, dim=0, start=None, end=None, step=1):
    out = x.copy()
    np.moveaxis(out, dim, 0)[start:end:step] = np.moveaxis(src, dim, 0)
    return out


def _tensor_split(x, sections, dim=0):
    return tuple(np.array_split(x, sections, axis=dim))


def _repeat_interleave(x, repeats=None, dim=None):
    return np.repeat(x, repeats.astype(np.int64) if isinstance(repeats, np.ndarray) else repeats, axis=dim)


register(
    python_opinfo("block_diag", scipy.linalg.block_diag,
                  lambda dtype, rng: [Sample((_r(rng, 2, 3), _r(rng, 1, 1), _r(rng, 2, 2))),
                                      Sample((_r(rng, 3), _r(rng, 2, 2)))]),
    python_opinfo("cartesian_prod", _cartesian,
                  lambda dtype, rng: [Sample((_r(rng, 3), _r(rng, 2))), Sample((_r(rng, 2), _r(rng, 2), _r(rng, 3))),
                                      Sample((_r(rng, 4),))]),
    python_opinfo("combinations", _combinations,
                  lambda dtype, rng: [Sample((_r(rng, 4),)), Sample((_r(rng, 4), 3)),
                                      Sample((_r(rng, 3),), {"with_replacement": True})]),
    python_opinfo("rot90", lambda x, k=1, dims=(0, 1): np.rot90(x, k, dims),
                  lambda dtype, rng: [Sample((_r(rng, 2, 3, 4), k, d))
                                      for k in (1, 2, -1, 5) for d in ((0, 1), (1, 2))],
                  method=True),
    python_opinfo("diag", lambda x, diagonal=0: np.diag(x, diagonal),
                  lambda dtype, rng: [Sample((_r(rng, 4),)), Sample((_r(rng, 3), -1)), Sample((_r(rng, 3, 4), 1)),
                                      Sample((_r(rng, 3, 4), -2))], method=True),
    python_opinfo("diag_embed", _diag_embed,
                  lambda dtype, rng: [Sample((_r(rng, 2, 3),)), Sample((_r(rng, 2, 3), 1)),
                                      Sample((_r(rng, 2, 3), -1, 0, 2))], method=True),
    python_opinfo("diagflat", lambda x, offset=0: np.diagflat(x, offset),
                  lambda dtype, rng: [Sample((_r(rng, 2, 2),)), Sample((_r(rng, 3), -2))], method=True),
    python_opinfo("diagonal_scatter", _diagonal_scatter,
                  lambda dtype, rng: [Sample((_r(rng, 3, 4), _r(rng, 3))), Sample((_r(rng, 3, 4), _r(rng, 3), 1)),
                                      Sample((_r(rng, 2, 3, 3), _r(rng, 2, 2), -1, 1, 2))], method=True),
    python_opinfo("select_scatter", _select_scatter,
                  lambda dtype, rng: [Sample((_r(rng, 3, 4), _r(rng, 4), 0, 1)),
                                      Sample((_r(rng, 3, 4), _r(rng, 3), 1, -1))], method=True),
    python_opinfo("slice_scatter", _slice_scatter,
                  lambda dtype, rng: [Sample((_r(rng, 5, 3), _r(rng, 2, 3)), {"start": 1, "end": 5, "step": 2}),
                                      Sample((_r(rng, 3, 4), _r(rng, 3, 2), 1, 2))], method=True),
    python_opinfo("tensor_split", _tensor_split,
                  lambda dtype, rng: [Sample((_r(rng, 7, 2), 3)), Sample((_r(rng, 2, 7), [1, 4], 1)),
                                      Sample((_r(rng, 5), (2, 2, 9)))], method=True),
    python_opinfo("repeat_interleave", _repeat_interleave,
                  lambda dtype, rng: [Sample((_r(rng, 2, 3), 2)), Sample((_r(rng, 2, 3), 3, 1)),
                                      Sample((_r(rng, 3, 2), ember.tensor([1, 0, 2]), 0))],
                  method=True),
)
