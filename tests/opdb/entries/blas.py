"""OpInfos for core/ops/blas.yaml: matrix products against np.matmul, np.dot, np.vdot, np.inner,
np.outer, np.tensordot, np.einsum, np.kron and np.trace, on contiguous inputs of every declared
dtype, including empty and 0-size contraction shapes, broadcast batches and 3+ operand einsums.
Strided inputs, out=, in-place forms and errors are in tests/core/test_matmul.py."""
import numpy as np

from ember.testing.opinfo import COMPLEX, INTS, OpInfo, Sample, random_array, register

# float32 sums of products round at every step: looser than the elementwise defaults.
TOL = {"float32": (1e-5, 1e-4), "complex64": (1e-5, 1e-4), "float16": (4e-3, 4e-3), "bfloat16": (2e-2, 2e-2)}


def _arr(dtype, rng, shape):
    return np.asarray(random_array(dtype, shape, rng, (-1.0, 1.0), (-4, 5)))


def _pairs(cases):
    def make(dtype, rng):
        return [Sample(args=tuple(_arr(dtype, rng, s) for s in shapes), kwargs=dict(kw)) for shapes, kw in cases]
    return make


def _scalars(dtype):
    """(beta, alpha) keyword sets: integers for integer dtypes, as PyTorch requires."""
    if dtype in INTS:
        return [{}, {"beta": 2, "alpha": -3}, {"beta": 0, "alpha": 2}]
    if dtype in COMPLEX:
        return [{}, {"beta": 0.5, "alpha": 2.0}, {"beta": 0, "alpha": 1 - 2j}]
    return [{}, {"beta": 0.5, "alpha": 2.0}, {"beta": 0, "alpha": -1.0}]


def _add_samples(shape_sets):
    def make(dtype, rng):
        out = []
        for shapes in shape_sets:
            for kw in _scalars(dtype):
                out.append(Sample(args=tuple(_arr(dtype, rng, s) for s in shapes), kwargs=kw))
        return out
    return make


def _addmm_ref(inp, a, b, beta=1, alpha=1):
    prod = alpha * np.matmul(a, b)
    return prod if beta == 0 else beta * inp + prod


def _addbmm_ref(inp, a, b, beta=1, alpha=1):
    prod = alpha * np.matmul(a, b).sum(0)
    return prod if beta == 0 else beta * inp + prod


def _same_dtype(ref):
    """References on integer inputs computed in int64 and wrapped to the inputs' dtype, as ember's loops do."""
    def run(*args, **kw):
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        if arrays and arrays[0].dtype.kind in "iu":  # int64 arithmetic, then wrapped to the dtype
            wide = [a.astype(np.int64) if isinstance(a, np.ndarray) else a for a in args]
            return np.asarray(ref(*wide, **kw)).astype(arrays[0].dtype)
        return np.asarray(ref(*args, **kw))
    return run


MATMUL = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)), ((2, 2, 3), (3,)),
          ((3,), (2, 3, 4)), ((4, 3), (2, 3, 5)), ((2, 1, 2, 3), (3, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
          ((2, 3, 4), (2, 4, 5)), ((1, 2, 3), (4, 3, 2)), ((0,), (0,)), ((2, 0, 3), (3, 4)), ((17, 33), (33, 9))]
MM = [((2, 3), (3, 4)), ((1, 1), (1, 1)), ((0, 3), (3, 4)), ((3, 0), (0, 4)), ((5, 7), (7, 1)), ((1, 6), (6, 5))]
BMM = [((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (0, 4, 2)), ((1, 1, 5), (1, 5, 1)), ((3, 2, 0), (3, 0, 2))]
MV = [((3, 4), (4,)), ((0, 4), (4,)), ((3, 0), (0,)), ((1, 1), (1,))]
DOT = [((5,), (5,)), ((0,), (0,)), ((1,), (1,)), ((33,), (33,))]
INNER = [((3,), (3,)), ((2, 3), (4, 3)), ((2, 3, 4), (4,)), ((), (2, 3)), ((2, 3), ()), ((2, 0), (3, 0))]
OUTER = [((3,), (4,)), ((0,), (2,)), ((1,), (1,))]
KRON = [((2, 3), (3, 2)), ((2,), (3,)), ((2, 3), (4,)), ((), (2,)), ((2, 1, 2), (3, 2)), ((0, 2), (2, 2)), ((), ())]
TRACE = [((3, 3),), ((2, 4),), ((4, 2),), ((0, 0),), ((1, 5),)]
TENSORDOT = [((3, 4, 5), (4, 5, 6), {"dims": 2}), ((3, 4, 5), (4, 3, 2), {"dims": ([1, 0], [0, 1])}),
             ((2, 3), (4,), {"dims": 0}), ((2, 3), (3, 4), {"dims": 1}), ((2, 3, 4), (4, 2), {"dims": ([2], [0])}),
             ((2, 3), (3, 2), {"dims": ([-1, 0], [0, 1])}), ((2, 0), (0, 3), {"dims": 1})]
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("abc,cd,de,ea->b", [(2, 3, 4), (4, 5), (5, 2), (2, 2)]),
    ("i,i,i->i", [(3,), (3,), (3,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("i...->...", [(3, 2, 4)]),
    ("...->...", [(2, 3)]),
    ("ba,ab->", [(2, 3), (3, 2)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
    ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ijk,ikl,ilm->ijm", [(2, 2, 3), (2, 3, 4), (2, 4, 2)]),
    ("ab,bc,cd,de,ef->af", [(2, 3), (3, 4), (4, 5), (5, 3), (3, 2)]),
    ("i,jk->", [(3,), (2, 2)]),
    ("ij,j->i", [(0, 3), (3,)]),
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("ij,ji->i", [(3, 3), (3, 3)]),
]


def _einsum_samples(dtype, rng):
    return [Sample(args=(eq,) + tuple(_arr(dtype, rng, s) for s in shapes)) for eq, shapes in EINSUM]


def _tensordot_samples(dtype, rng):
    return [Sample(args=(_arr(dtype, rng, a), _arr(dtype, rng, b)), kwargs=dict(kw)) for a, b, kw in TENSORDOT]


def _tensordot_ref(a, b, dims=2):
    return np.tensordot(a, b, axes=dims)


register(
    OpInfo("matmul", ref=np.matmul, sample_inputs=_pairs([(s, {}) for s in MATMUL]), tol=TOL),
    OpInfo("mm", ref=np.matmul, sample_inputs=_pairs([(s, {}) for s in MM]), tol=TOL),
    OpInfo("bmm", ref=np.matmul, sample_inputs=_pairs([(s, {}) for s in BMM]), tol=TOL),
    OpInfo("mv", ref=np.matmul, sample_inputs=_pairs([(s, {}) for s in MV]), tol=TOL),
    OpInfo("dot", ref=np.dot, sample_inputs=_pairs([(s, {}) for s in DOT]), tol=TOL),
    OpInfo("vdot", ref=np.vdot, sample_inputs=_pairs([(s, {}) for s in DOT]), tol=TOL),
    OpInfo("inner", ref=np.inner, sample_inputs=_pairs([(s, {}) for s in INNER]), tol=TOL),
    OpInfo("outer", ref=np.outer, sample_inputs=_pairs([(s, {}) for s in OUTER]), tol=TOL),
    OpInfo("ger", ref=np.outer, sample_inputs=_pairs([(s, {}) for s in OUTER]), tol=TOL),
    OpInfo("kron", ref=np.kron, sample_inputs=_pairs([(s, {}) for s in KRON]), tol=TOL),
    OpInfo("trace", ref=np.trace, sample_inputs=_pairs([(s, {}) for s in TRACE]), tol=TOL),
    OpInfo("addmm", ref=_same_dtype(_addmm_ref), tol=TOL, sample_inputs=_add_samples(
        [((2, 4), (2, 3), (3, 4)), ((4,), (2, 3), (3, 4)), ((), (2, 3), (3, 4)), ((1, 1), (2, 0), (0, 4))])),
    OpInfo("addmv", ref=_same_dtype(_addmm_ref), tol=TOL, sample_inputs=_add_samples(
        [((2,), (2, 3), (3,)), ((), (2, 3), (3,)), ((1,), (4, 5), (5,)), ((3,), (3, 0), (0,))])),
    OpInfo("baddbmm", ref=_same_dtype(_addmm_ref), tol=TOL, sample_inputs=_add_samples(
        [((2, 3, 5), (2, 3, 4), (2, 4, 5)), ((3, 5), (2, 3, 4), (2, 4, 5)), ((1,), (2, 3, 4), (2, 4, 5))])),
    OpInfo("addbmm", ref=_same_dtype(_addbmm_ref), tol=TOL, sample_inputs=_add_samples(
        [((3, 5), (2, 3, 4), (2, 4, 5)), ((5,), (2, 3, 4), (2, 4, 5)), ((3, 5), (0, 3, 4), (0, 4, 5))])),
    OpInfo("tensordot", ref=_tensordot_ref, sample_inputs=_tensordot_samples, tol=TOL),
    OpInfo("einsum", ref=np.einsum, sample_inputs=_einsum_samples, tol=TOL),
)
