"""OpInfos for core/ops/shape.yaml: joining, flipping, rolling, repeating and triangle ops against
np.concatenate, np.stack, np.flip, np.roll, np.tile, np.tril, np.triu, ..."""
import numpy as np

from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _arr(dtype, rng, shape):
    return np.asarray(random_array(dtype, shape, rng, (-3.0, 3.0), (-9, 10)))  # 0-D stays an array


def _one(cases):
    """cases: (shape, other args, kwargs) for ops of one tensor."""
    def make(dtype, rng):
        return [Sample(args=(_arr(dtype, rng, shape),) + tuple(rest), kwargs=dict(kw)) for shape, rest, kw in cases]
    return make


def _many(cases):
    """cases: (list of shapes, kwargs) for ops of a tensor list."""
    def make(dtype, rng):
        return [Sample(args=([_arr(dtype, rng, s) for s in shapes],), kwargs=dict(kw)) for shapes, kw in cases]
    return make


def _cat(tensors, dim=0, axis=None):
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]  # PyTorch skips 1-D empties
    if not kept:
        return np.empty((0,), tensors[0].dtype)
    return np.concatenate(kept, axis=dim if axis is None else axis)


CAT_CASES = [
    ([(2, 3), (4, 3)], {}), ([(2, 3), (2, 1), (2, 4)], {"dim": 1}), ([(2, 3, 4), (2, 3, 1)], {"dim": -1}),
    ([(3,)], {}), ([(2, 3), (0, 3), (1, 3)], {}), ([(2, 3), (0,), (1, 3)], {}), ([(0,), (0,)], {}),
    ([(1, 2)] * 7, {"dim": 1}), ([(2, 0), (2, 3)], {"dim": 1}),
]
STACK_CASES = [
    ([(2, 3), (2, 3)], {}), ([(2, 3), (2, 3), (2, 3)], {"dim": 1}), ([(2, 3)] * 2, {"dim": 2}),
    ([(2, 3)] * 2, {"dim": -1}), ([(), ()], {}), ([(0, 2)] * 3, {"dim": 1}), ([(4,)], {}),
]
# hstack/vstack/dstack/column_stack take 0-D, 1-D and higher inputs (made at least 1/2/3-D).
HV_CASES = [([(3,), (2,)], {}), ([(2, 3), (2, 1)], {}), ([(), ()], {}), ([(2, 3, 4), (2, 1, 4)], {})]
V_CASES = [([(3,), (3,)], {}), ([(2, 3), (1, 3)], {}), ([(), ()], {}), ([(2, 3, 4), (1, 3, 4)], {})]
D_CASES = [([(3,), (3,)], {}), ([(2, 3), (2, 3)], {}), ([(), ()], {}), ([(2, 3, 4), (2, 3, 1)], {})]
COL_CASES = [([(3,), (3,)], {}), ([(3, 2), (3,)], {}), ([(), ()], {}), ([(2, 3), (2, 1)], {})]


def _roll(a, shifts, dims=()):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not dims:
        return np.roll(a, shifts[0])
    return np.roll(a, shifts, axis=dims)


def _flip(a, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return np.flip(a, axis=dims) if dims else a


TRI_CASES = [((4, 5), [], {}), ((4, 5), [1], {}), ((4, 5), [-2], {}), ((5, 4), [], {"diagonal": 3}),
             ((2, 3, 4), [], {}), ((2, 3, 4), [], {"diagonal": -1}), ((3, 3), [10], {}), ((3, 3), [-10], {}),
             ((0, 3), [], {}), ((2, 1, 4, 1), [], {})]

register(
    OpInfo("contiguous", ref=lambda a: a, sample_inputs=_one([((2, 3), [], {}), ((), [], {}), ((0, 4), [], {})])),
    OpInfo(
        "clone",
        ref=np.copy,
        sample_inputs=_one([((2, 3), [], {}), ((), [], {}), ((0, 4), [], {}), ((2, 3, 4), [], {})]),
    ),
    OpInfo("cat", ref=_cat, sample_inputs=_many(CAT_CASES)),
    OpInfo("concat", ref=_cat, sample_inputs=_many(CAT_CASES)),
    OpInfo(
        "concatenate",
        ref=_cat,
        sample_inputs=_many([(shapes, {"axis": kw["dim"]} if "dim" in kw else {}) for shapes, kw in CAT_CASES]),
    ),
    OpInfo("stack", ref=lambda ts, dim=0: np.stack(ts, axis=dim), sample_inputs=_many(STACK_CASES)),
    OpInfo("hstack", ref=np.hstack, sample_inputs=_many(HV_CASES)),
    OpInfo("vstack", ref=np.vstack, sample_inputs=_many(V_CASES)),
    OpInfo("dstack", ref=np.dstack, sample_inputs=_many(D_CASES)),
    OpInfo("column_stack", ref=np.column_stack, sample_inputs=_many(COL_CASES)),
    OpInfo(
        "flip",
        ref=_flip,
        sample_inputs=_one(
            [
                ((2, 3, 4), [(0,)], {}),
                ((2, 3, 4), [(0, 2)], {}),
                ((2, 3, 4), [(-1, 1, 0)], {}),
                ((5,), [0], {}),
                ((2, 3), [()], {}),
                ((), [()], {}),
                ((0, 3), [(0, 1)], {}),
                ((1, 4), [(0, 1)], {}),
            ]
        ),
    ),
    OpInfo("fliplr", ref=np.fliplr, sample_inputs=_one([((3, 4), [], {}), ((2, 3, 4), [], {}), ((0, 2), [], {})])),
    OpInfo("flipud", ref=np.flipud, sample_inputs=_one([((3, 4), [], {}), ((5,), [], {}), ((0, 2), [], {})])),
    OpInfo(
        "roll",
        ref=_roll,
        sample_inputs=_one(
            [
                ((7,), [2], {}),
                ((7,), [-3], {}),
                ((7,), [9], {}),
                ((3, 4), [1], {}),
                ((3, 4), [5], {"dims": 1}),
                ((3, 4), [(1, -1)], {"dims": (0, 1)}),
                ((3, 4, 5), [(2, 7)], {"dims": (-1, 0)}),
                ((3, 4), [(1, 2)], {"dims": (1, 1)}),
                ((3, 4), [0], {"dims": 0}),
                ((0, 3), [1], {"dims": 1}),
                ((), [1], {}),
            ]
        ),
    ),
    OpInfo(
        "repeat",
        ref=np.tile,
        sample_inputs=_one(
            [
                ((2, 3), [(2, 2)], {}),
                ((2, 3), [(3, 1, 2)], {}),
                ((3,), [(2,)], {}),
                ((), [(2, 3)], {}),
                ((2, 3), [(0, 2)], {}),
                ((2, 1, 3), [(1, 4, 1)], {}),
                ((2, 3), [(1, 1)], {}),
            ]
        ),
    ),
    OpInfo(
        "tile",
        ref=np.tile,
        sample_inputs=_one(
            [
                ((2, 3), [(2, 2)], {}),
                ((2, 3), [(3,)], {}),
                ((2, 3), [(2, 1, 2)], {}),
                ((3,), [(2,)], {}),
                ((), [(2,)], {}),
                ((2, 3), [()], {}),
                ((2, 3), [(0, 1)], {}),
            ]
        ),
    ),
    OpInfo("tril", ref=lambda a, diagonal=0: np.tril(a, diagonal), sample_inputs=_one(TRI_CASES)),
    OpInfo("triu", ref=lambda a, diagonal=0: np.triu(a, diagonal), sample_inputs=_one(TRI_CASES)),
)
