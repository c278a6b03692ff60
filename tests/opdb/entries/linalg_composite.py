"""OpInfos for core/ops/linalg_composite.yaml: norms against np.linalg.norm, cross against np.cross,
vecdot against np.vecdot, vander against np.vander (increasing), multi_dot against
np.linalg.multi_dot, matrix_power against np.linalg.matrix_power, matrix_exp against
scipy.linalg.expm; batched and empty inputs. Strided inputs, out= and errors are in
tests/linalg_composite/."""
import numpy as np
import scipy.linalg

from ember.testing.opinfo import OpInfo, Sample, random_array, register

TOL = {"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5), "float64": (1e-9, 1e-11), "complex128": (1e-9, 1e-11)}
INF = float("inf")


def _arr(dtype, rng, shape, domain=(-1.0, 1.0)):
    return random_array(dtype, shape, rng, domain, (-3, 4))


def _samples(cases, domain=(-1.0, 1.0)):
    """cases: (shapes, kwargs); one array per shape. Small cases first (the gradient tests take those)."""
    def make(dtype, rng):
        return [Sample(args=tuple(_arr(dtype, rng, s, domain) for s in shapes), kwargs=dict(kw))
                for shapes, kw in cases]
    return make


def _one(cases):
    return [((s,), kw) for s, kw in cases]


def _np_axes(x, dim):
    return None if dim is None else tuple(dim) if isinstance(dim, (list, tuple)) else dim


def _vector_norm_ref(x, ord=2, dim=None, keepdim=False, dtype=None):
    """np.linalg.norm over the flattened dims `dim` (all when None)."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if dim is None or dim == [] else _np_axes(x, dim)
    axes = tuple(a % max(x.ndim, 1) for a in ((axes,) if isinstance(axes, int) else axes))
    rest = [a for a in range(x.ndim) if a not in axes]
    size = int(np.prod([x.shape[a] for a in axes]))
    flat = np.transpose(x, rest + list(axes)).reshape([x.shape[a] for a in rest] + [size])
    r = np.linalg.norm(flat, ord, axis=-1)
    if keepdim:
        r = r.reshape([1 if a in axes else x.shape[a] for a in range(x.ndim)])
    return r


def _matrix_norm_ref(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    return np.linalg.norm(A, ord, axis=tuple(dim), keepdims=keepdim)


def _norm_ref(A, ord=None, dim=None, keepdim=False, dtype=None):
    return np.linalg.norm(A, ord, axis=_np_axes(A, dim), keepdims=keepdim)


def _vecdot_ref(x, y, dim=-1):
    return np.vecdot(x, y, axis=dim)


def _vander_ref(x, N=None):
    n = x.shape[-1] if N is None else N
    wide = x.astype(np.int64) if x.dtype.kind in "iu" else x
    rows = [np.vander(r, n, increasing=True) for r in wide.reshape(-1, x.shape[-1])]
    # integers are promoted to int64 (as torch does), so int8 powers do not wrap
    return np.array(rows, dtype=np.int64 if x.dtype.kind in "iu" else x.dtype).reshape(x.shape + (n,))


def _multi_dot_samples(dtype, rng):
    chains = [[(2, 3), (3, 2)], [(3,), (3, 2), (2,)], [(2,), (2, 3), (3, 2)], [(1, 3), (3, 4), (4, 2), (2, 5)],
              [(10, 2), (2, 9), (9, 3), (3, 8)], [(4, 0), (0, 3), (3,)], [(5,), (5,)], [(0, 2), (2, 3), (3, 0)]]
    return [Sample(args=([_arr(dtype, rng, s) for s in shapes],)) for shapes in chains]


def _square(dtype, rng, shape, scale):
    return _arr(dtype, rng, shape) * scale


def _matrix_exp_samples(dtype, rng):
    cases = [((2, 2), 1.0), ((3, 3), 0.3), ((2, 2, 2), 2.0), ((4, 4), 8.0), ((1, 1), 3.0), ((0, 3, 3), 1.0),
             ((2, 0, 0), 1.0), ((3, 5, 5), 0.05), ((6, 6), 5.0)]
    return [Sample(args=(_square(dtype, rng, s, k),)) for s, k in cases]


def _expm_ref(A):
    wide = A.astype(np.complex128 if A.dtype.kind == "c" else np.float64)
    return wide.copy() if A.size == 0 else scipy.linalg.expm(wide)


def _matrix_power_samples(dtype, rng):
    cases = [((2, 2), 3), ((3, 3), 0), ((2, 2), -2), ((2, 2, 2), 1), ((3, 3), 2), ((2, 3, 3), 5), ((3, 3), -1),
             ((2, 3, 3), -3), ((0, 2, 2), 2), ((0, 2, 2), -2), ((4, 4), 8), ((0, 0), 3)]
    # n < 0 goes through the inverse: float and complex only (integer A is tested for n >= 0)
    real = dtype in ("float32", "float64", "complex64", "complex128")
    return [Sample(args=(_arr(dtype, rng, s) + (2 * np.eye(s[-1]) if n < 0 else 0), n)) for s, n in cases
            if n >= 0 or real]


VECTOR_NORM = [((4,), {}), ((2, 3), {"ord": 1, "dim": 1}), ((2, 3), {"ord": INF}), ((3, 2), {"ord": 3.5, "dim": [0]}),
               ((2, 3, 4), {"ord": -INF, "dim": (0, 2), "keepdim": True}), ((2, 3, 4), {"ord": 0, "dim": -1}),
               ((2, 3), {"ord": -1.5}), ((2, 3, 4), {"dim": (2, 0)}), ((0, 3), {"dim": 1}), ((0, 3), {}),
               ((), {}), ((3, 4), {"ord": 2, "keepdim": True})]
MATRIX_NORM = [((2, 3), {}), ((2, 3, 2), {"ord": "fro", "dim": (0, 2)}), ((3, 2), {"ord": "nuc"}),
               ((3, 2, 2), {"keepdim": True}), ((0, 2, 3), {}), ((2, 0), {}),
               ((2, 3, 4), {"ord": "nuc", "dim": (2, 0), "keepdim": True}), ((0, 2, 3), {"ord": "nuc"})]
MATRIX_NORM_ORD = [((2, 3), {"ord": 1}), ((3, 2), {"ord": -1}), ((2, 2, 3), {"ord": INF}),
                   ((2, 3, 2), {"ord": -INF, "dim": (2, 0)}), ((2, 3, 4), {"ord": 1, "dim": (1, 0), "keepdim": True}),
                   ((3, 2), {"ord": 2}), ((2, 3), {"ord": -2}), ((0, 2, 2), {"ord": INF}),
                   ((2, 3, 4), {"ord": 2, "dim": (0, 2), "keepdim": True}), ((3, 2, 4), {"ord": -2, "dim": (2, 1)})]
NORM = [((2, 3), {}), ((4,), {"ord": 3}), ((2, 3), {"ord": 1}), ((2, 3), {"ord": -INF}), ((2, 3), {"ord": 2}),
        ((2, 3, 3), {"ord": -2, "dim": (0, 1)}), ((2, 3, 4), {"dim": 1}),
        ((2, 3, 4), {"ord": INF, "dim": (1, 2), "keepdim": True}), ((2, 3, 4), {"ord": 0.5, "dim": (2,)}),
        ((2, 3, 4), {"keepdim": True}), ((2, 3, 4), {"dim": (0, 2)}), ((0, 3), {})]
NORM_STR = [((2, 3), {"ord": "fro"}), ((3, 2), {"ord": "nuc"}), ((2, 3, 3), {"ord": "nuc", "dim": (1, 2)}),
            ((2, 3, 4), {"ord": "fro", "dim": (0, 2), "keepdim": True}), ((0, 3), {"ord": "fro"})]
CROSS = [((3,), (3,), {}), ((2, 3), (2, 3), {}), ((3, 2), (3, 2), {"dim": 0}), ((4, 1, 3), (1, 2, 3), {}),
         ((2, 3, 4), (2, 3, 1), {"dim": 1}), ((0, 3), (0, 3), {})]
VECDOT = [((3,), (3,), {}), ((2, 3), (3,), {}), ((2, 3), (2, 3), {"dim": 0}), ((2, 1, 4), (3, 4), {}),
          ((0, 4), (0, 4), {}), ((2, 0), (2, 0), {"dim": -1})]
DIAGONAL = [((3, 3), {}), ((2, 3, 4), {"offset": 1}), ((2, 3, 4), {"offset": -2, "dim1": 0, "dim2": 2}),
            ((0, 3, 3), {}), ((3, 2), {"offset": 5})]
VANDER = [((3,), {}), ((2, 3), {"N": 4}), ((2, 2, 3), {"N": 2}), ((0, 3), {}), ((4,), {"N": 6})]


register(
    OpInfo("linalg_vector_norm", ref=_vector_norm_ref, sample_inputs=_samples(_one(VECTOR_NORM)), tol=TOL),
    OpInfo("linalg_matrix_norm", ref=_matrix_norm_ref, sample_inputs=_samples(_one(MATRIX_NORM)), tol=TOL),
    OpInfo("linalg_matrix_norm_ord", ref=_matrix_norm_ref, sample_inputs=_samples(_one(MATRIX_NORM_ORD)), tol=TOL),
    OpInfo("linalg_norm", ref=_norm_ref, sample_inputs=_samples(_one(NORM)), tol=TOL),
    OpInfo("linalg_norm_str", ref=_norm_ref, sample_inputs=_samples(_one(NORM_STR)), tol=TOL),
    OpInfo("linalg_cross", ref=lambda a, b, dim=-1: np.cross(a, b, axis=dim), sample_inputs=_samples(
        [((a, b), kw) for a, b, kw in CROSS]), tol=TOL),
    OpInfo("linalg_vecdot", ref=_vecdot_ref, sample_inputs=_samples([((a, b), kw) for a, b, kw in VECDOT]), tol=TOL),
    OpInfo("linalg_diagonal", ref=lambda A, offset=0, dim1=-2, dim2=-1: np.diagonal(A, offset, dim1, dim2),
           sample_inputs=_samples([((s,), kw) for s, kw in DIAGONAL])),
    OpInfo("linalg_vander", ref=_vander_ref, sample_inputs=_samples([((s,), kw) for s, kw in VANDER]), tol=TOL),
    OpInfo("linalg_multi_dot", ref=lambda ts: np.linalg.multi_dot(ts), sample_inputs=_multi_dot_samples, tol=TOL),
    OpInfo("linalg_matrix_power", ref=np.linalg.matrix_power, sample_inputs=_matrix_power_samples, tol=TOL),
    # float32 entries of exp(A) that cancel down from tens lose digits relative to the largest
    OpInfo("linalg_matrix_exp", ref=_expm_ref, sample_inputs=_matrix_exp_samples,
           tol={"float32": (1e-4, 1e-3), "complex64": (1e-4, 1e-3), "float64": (1e-10, 1e-11),
                "complex128": (1e-10, 1e-11)}),
)


# The functions over the LAPACK-backed ops.
def _full_rank(dtype, rng, shape):
    return _arr(dtype, rng, shape) + 2 * np.eye(shape[-2], shape[-1])


def _hermitian(dtype, rng, shape):
    B = _arr(dtype, rng, shape)
    return B + np.conj(np.swapaxes(B, -1, -2))


def _low_rank(dtype, rng, shape, r):
    return _arr(dtype, rng, shape[:-1] + (r,)) @ _arr(dtype, rng, shape[:-2] + (r, shape[-1]))


def _pinv_samples(dtype, rng):
    # hermitian=True reads one triangle: its sample is past the gradient tests' size (25 elements);
    # its gradient is checked on a Hermitian input in tests/linalg_composite.
    return [Sample(args=(_full_rank(dtype, rng, (3, 3)),)), Sample(args=(_arr(dtype, rng, (2, 3)),)),
            Sample(args=(_arr(dtype, rng, (2, 4, 3)),)), Sample(args=(_hermitian(dtype, rng, (5, 5)),),
                                                                kwargs={"hermitian": True}),
            Sample(args=(_low_rank(dtype, rng, (4, 4), 2),), kwargs={"rtol": 1e-3}),
            Sample(args=(_low_rank(dtype, rng, (2, 5, 4), 2),), kwargs={"rtol": 1e-3}),
            Sample(args=(_arr(dtype, rng, (3, 4)),), kwargs={"atol": 0.5}),
            Sample(args=(_arr(dtype, rng, (0, 3, 2)),)), Sample(args=(_arr(dtype, rng, (0, 3)),))]


def _svd_cut(A, atol=None, rtol=None, hermitian=False):
    """NumPy's SVD with the cutoff max(atol, rtol * largest): the reference for atol."""
    U, S, Vh = np.linalg.svd(A, full_matrices=False)
    m, n = A.shape[-2:]
    big = S.max(-1, keepdims=True) if S.size else np.zeros(S.shape[:-1] + (1,))
    r = rtol if rtol is not None else (0.0 if atol and atol > 0 else np.finfo(S.dtype).eps * max(m, n))
    return U, S, Vh, np.maximum(atol or 0.0, r * big)


def _pinv_ref(A, atol=None, rtol=None, hermitian=False):
    if A.size == 0:
        return np.zeros(A.shape[:-2] + (A.shape[-1], A.shape[-2]), A.dtype)
    U, S, Vh, cut = _svd_cut(A, atol, rtol)  # NumPy's default rtol is not the dtype's eps * max(m, n)
    inv = np.where(S > cut, 1 / np.where(S > cut, S, 1), 0)
    return np.conj(np.swapaxes(Vh, -1, -2)) * inv[..., None, :] @ np.conj(np.swapaxes(U, -1, -2))


def _rank_samples(dtype, rng):
    return [Sample(args=(_arr(dtype, rng, (3, 3)),)), Sample(args=(_low_rank(dtype, rng, (4, 5), 2),)),
            Sample(args=(_low_rank(dtype, rng, (2, 4, 4), 1),)),
            Sample(args=(_hermitian(dtype, rng, (3, 3)),), kwargs={"hermitian": True}),
            Sample(args=(_arr(dtype, rng, (3, 4)),), kwargs={"atol": 0.5}),
            Sample(args=(_arr(dtype, rng, (3, 4)),), kwargs={"rtol": 0.3}),
            Sample(args=(_arr(dtype, rng, (0, 3, 3)),))]


def _rank_ref(A, atol=None, rtol=None, hermitian=False):
    if A.shape[-1] == 0 or A.shape[-2] == 0 or A.size == 0:
        return np.zeros(A.shape[:-2], np.int64)
    if atol is None and rtol is None:
        return np.asarray(np.linalg.matrix_rank(A, hermitian=hermitian), np.int64)
    _, S, _, cut = _svd_cut(A, atol, rtol)
    return (S > cut).sum(-1).astype(np.int64)


def _cond_samples(dtype, rng):
    out = [Sample(args=(_full_rank(dtype, rng, (3, 3)),)), Sample(args=(_arr(dtype, rng, (2, 3)),), kwargs={"p": 2}),
           Sample(args=(_full_rank(dtype, rng, (2, 3, 3)),), kwargs={"p": -2})]
    for p in (1, -1, INF, -INF, "fro", "nuc"):
        out.append(Sample(args=(_full_rank(dtype, rng, (2, 3, 3)),), kwargs={"p": p}))
    return out


def _tensorinv_samples(dtype, rng):
    return [Sample(args=(_full_rank(dtype, rng, (4, 4)).reshape(4, 2, 2),), kwargs={"ind": 1}),
            Sample(args=(_full_rank(dtype, rng, (6, 6)).reshape(2, 3, 6),)),
            Sample(args=(_full_rank(dtype, rng, (6, 6)).reshape(3, 2, 3, 2),), kwargs={"ind": 2})]


def _tensorsolve_samples(dtype, rng):
    return [Sample(args=(_full_rank(dtype, rng, (4, 4)).reshape(2, 2, 4), _arr(dtype, rng, (2, 2)))),
            Sample(args=(_full_rank(dtype, rng, (6, 6)).reshape(6, 2, 3), _arr(dtype, rng, (6,)))),
            Sample(args=(_full_rank(dtype, rng, (6, 6)).reshape(2, 3, 6), _arr(dtype, rng, (6,))),
                   kwargs={"dims": (0, 1)})]


LAPACK_TOL = {"float32": (1e-3, 1e-4), "complex64": (1e-3, 1e-4), "float64": (1e-8, 1e-10), "complex128": (1e-8, 1e-10)}
register(
    OpInfo("linalg_pinv", ref=_pinv_ref, sample_inputs=_pinv_samples, tol=LAPACK_TOL),
    OpInfo("linalg_pinv_rcond", ref=lambda A, rcond, hermitian=False: np.linalg.pinv(A, rcond, hermitian),
           sample_inputs=lambda d, r: [Sample(args=(_arr(d, r, (3, 4)), 0.2)),
                                       Sample(args=(_full_rank(d, r, (3, 3)), 1e-3))],
           tol=LAPACK_TOL),
    OpInfo("linalg_matrix_rank", ref=_rank_ref, sample_inputs=_rank_samples),
    OpInfo("linalg_matrix_rank_tol", ref=lambda A, tol, hermitian=False: _rank_ref(A, atol=tol, rtol=0.0),
           sample_inputs=lambda d, r: [Sample(args=(_arr(d, r, (3, 4)), 0.5)),
                                       Sample(args=(_arr(d, r, (2, 3, 3)), 0.1))]),
    OpInfo("linalg_cond", ref=lambda A, p=None: np.linalg.cond(A, p), sample_inputs=_cond_samples, tol=LAPACK_TOL),
    OpInfo("linalg_cond_str", ref=lambda A, p: np.linalg.cond(A, p), tol=LAPACK_TOL,
           sample_inputs=lambda d, r: [Sample(args=(_full_rank(d, r, (3, 3)), p)) for p in ("fro", "nuc")]),
    OpInfo("linalg_tensorinv", ref=lambda A, ind=2: np.linalg.tensorinv(A, ind), sample_inputs=_tensorinv_samples,
           tol=LAPACK_TOL),
    OpInfo("linalg_tensorsolve", ref=lambda A, B, dims=None: np.linalg.tensorsolve(A, B, dims),
           sample_inputs=_tensorsolve_samples, tol=LAPACK_TOL),
)
