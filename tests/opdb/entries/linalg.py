"""OpInfos for core/ops/linalg.yaml: the LAPACK-backed ember.linalg ops against np.linalg (and
scipy.linalg), on single, batched, empty-batch and 0x0 matrices of every declared dtype.

Inputs are built so each op is well defined (positive-definite for cholesky, well conditioned for
solve/inv) while their entries stay distinct (the gradient tests skip inputs with repeated values):
cholesky and eigh read one triangle, so the other one carries noise. Results unique only up to the
signs/phases of vectors (svd, eigh) are compared through invariants (`compare_as`), and the gradient
tests see them through gauge-invariant functions of a Hermitian input (`grad_wrap`), as PyTorch's
OpInfos do. Errors, strided inputs and out= are in tests/linalg/."""
import numpy as np
import scipy.linalg

import ember
from ember.testing.opinfo import COMPLEX, OpInfo, Sample, register

# LAPACK in float32 rounds at every step of a factorization: looser than the elementwise defaults.
TOL = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-9, 1e-10), "complex128": (1e-9, 1e-10)}
# Small shapes first: the gradient tests take the first samples of at most 24 elements.
SQUARE = [(3, 3), (2, 2, 2), (1, 1), (4, 4), (2, 3, 3), (0, 0), (0, 3, 3), (2, 0, 0), (2, 1, 5, 5)]
RECT = [(3, 2), (2, 3), (3, 3), (2, 2, 3), (4, 2), (0, 0), (0, 3, 2), (2, 0, 3), (3, 0), (2, 5, 3)]


def mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


def rand(dtype, rng, shape):
    a = rng.standard_normal(shape)
    if dtype in COMPLEX:
        a = a + 1j * rng.standard_normal(shape)
    return a


def eye_like(shape):
    return np.broadcast_to(np.eye(shape[-1]), shape)


def well_conditioned(dtype, rng, shape):
    return rand(dtype, rng, shape) + 2 * shape[-1] * eye_like(shape) if shape[-1] else rand(dtype, rng, shape)


def pd_lower(dtype, rng, shape):
    """Hermitian positive-definite in its lower triangle, with noise in the strict upper one."""
    if 0 in shape:
        return rand(dtype, rng, shape)
    x = rand(dtype, rng, shape)
    n = shape[-1]
    pd = x @ mh(x) / n + eye_like(shape)
    return np.tril(pd) + 0.1 * np.triu(rand(dtype, rng, shape), 1)


def hermitian_from(a, upper=False):
    """The Hermitian matrix a stands for when only one triangle is read."""
    t = np.triu(a, 1) if upper else np.tril(a, -1)
    d = np.real(np.diagonal(a, axis1=-2, axis2=-1))
    return t + mh(t) + d[..., None] * eye_like(a.shape)


def _hermitian_part(A):
    return (A + A.mH) * 0.5


def _phase_free(V):
    """V_ij conj(V_0j): unchanged when a column of V is multiplied by a phase (a sign), and smooth."""
    return V * V[..., :1, :].conj()


# ---- cholesky, inv, solve, solve_triangular --------------------------------------------------------

def _cholesky_samples(dtype, rng):
    return [Sample((pd_lower(dtype, rng, s),), kw) for s in SQUARE for kw in ({}, {"upper": True})][:14]


def _cholesky_ref(A, upper=False):
    L = np.linalg.cholesky(hermitian_from(A, upper)) if A.size else A.copy()
    return mh(L) if upper else L


def _info(A):
    return np.zeros(A.shape[:-2], dtype=np.int32)


def _cholesky_ex_ref(A, upper=False, check_errors=False):
    return _cholesky_ref(A, upper), _info(A)


def _inv_samples(dtype, rng):
    return [Sample((well_conditioned(dtype, rng, s),)) for s in SQUARE]


def _inv_ex_ref(A, check_errors=False):
    return np.linalg.inv(A), _info(A)


SOLVE = [((3, 3), (3, 2), {}), ((3, 3), (3,), {}), ((2, 2, 2), (2, 2), {}), ((2, 3, 3), (3, 1), {}),
         ((3, 3), (2, 3), {"left": False}), ((2, 3, 3), (2, 3, 3), {}), ((3, 3), (2, 1, 3, 2), {}),
         ((1, 3, 3), (2, 3, 4), {}), ((2, 3, 3), (2, 3), {}), ((0, 3, 3), (0, 3, 2), {}),
         ((0, 0), (0, 2), {}), ((3, 3), (3, 0), {}), ((2, 4, 4), (2, 5, 4), {"left": False})]


def _solve_samples(dtype, rng):
    return [Sample((well_conditioned(dtype, rng, a), rand(dtype, rng, b)), dict(kw)) for a, b, kw in SOLVE]


def _is_vector(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def _solve_ref(A, B, left=True):
    if not left:
        return np.swapaxes(_solve_ref(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    vector = _is_vector(A, B)
    Bm = B[..., None] if vector else B
    batch = np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    X = np.linalg.solve(np.broadcast_to(A, batch + A.shape[-2:]), np.broadcast_to(Bm, batch + Bm.shape[-2:]))
    return X[..., 0] if vector else X


def _solve_ex_ref(A, B, left=True, check_errors=False):
    Bm = B[..., None] if _is_vector(A, B) else B
    return _solve_ref(A, B, left), np.zeros(np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2]), dtype=np.int32)


TRI = [((3, 3), (3, 2), {"upper": True}), ((3, 3), (3, 2), {"upper": False}),
       ((3, 3), (2, 3), {"upper": True, "left": False}), ((2, 2, 2), (2, 2), {"upper": False, "unitriangular": True}),
       ((2, 3, 3), (3, 4), {"upper": True, "left": True}), ((3, 3), (2, 3, 1), {"upper": False, "unitriangular": True}),
       ((0, 0), (0, 3), {"upper": True}), ((0, 2, 2), (0, 2, 1), {"upper": False}),
       ((4, 4), (4, 5), {"upper": False, "left": True})]


def _tri_samples(dtype, rng):
    return [Sample((well_conditioned(dtype, rng, a), rand(dtype, rng, b)), dict(kw)) for a, b, kw in TRI]


def _tri_ref(A, B, upper, left=True, unitriangular=False):
    T = np.triu(A) if upper else np.tril(A)
    if unitriangular:
        T = T - np.diagonal(T, axis1=-2, axis2=-1)[..., None] * eye_like(T.shape) + eye_like(T.shape)
    if not left:
        return np.swapaxes(_tri_ref(np.swapaxes(T, -1, -2), np.swapaxes(B, -1, -2), not upper), -1, -2)
    batch = np.broadcast_shapes(T.shape[:-2], B.shape[:-2])
    return np.linalg.solve(np.broadcast_to(T, batch + T.shape[-2:]), np.broadcast_to(B, batch + B.shape[-2:]))


# ---- svd, svdvals, eigh, eigvalsh --------------------------------------------------------------------

def _svd_samples(dtype, rng):
    # A full SVD of a non-square matrix among the first three (the gradient tests' samples).
    out = [Sample((rand(dtype, rng, (3, 2)),), {"full_matrices": False}), Sample((rand(dtype, rng, (2, 3)),), {}),
           Sample((rand(dtype, rng, (2, 2, 3)),), {"full_matrices": False})]
    out += [Sample((rand(dtype, rng, s),), {"full_matrices": False}) for s in RECT[3:]]
    return out + [Sample((rand(dtype, rng, s),), {}) for s in RECT]


def _svd_ref(A, full_matrices=True, driver=None):
    return np.linalg.svd(A, full_matrices=full_matrices)


def _svd_invariants(r):
    """|U| and |Vh| on the first k columns/rows (the rest of a full SVD is any basis), and S."""
    U, S, Vh = r
    k = S.shape[-1]
    return np.abs(U[..., :k]), S, np.abs(Vh[..., :k, :])


def _svd_check(got, sample, dtype):
    """U and Vh orthonormal (the full ones too) and U diag(S) Vh == A."""
    U, S, Vh = (np.asarray(t.numpy(), dtype=np.complex128) for t in got)
    A = np.asarray(sample.args[0], dtype=np.complex128)
    k = S.shape[-1]
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-9
    np.testing.assert_allclose(mh(U) @ U, eye_like(U.shape[:-2] + (U.shape[-1],) * 2), atol=tol)
    np.testing.assert_allclose(Vh @ mh(Vh), eye_like(Vh.shape[:-2] + (Vh.shape[-2],) * 2), atol=tol)
    np.testing.assert_allclose((U[..., :k] * S[..., None, :]) @ Vh[..., :k, :], A, atol=tol * 10)


def _svd_grad(call):
    def wrapped(*leaves):
        U, S, Vh = call(*leaves)
        k = S.shape[-1]
        return _phase_free(U[..., :k]), S, _phase_free(Vh[..., :k, :].mT).mT
    return wrapped


def _svdvals_samples(dtype, rng):
    return [Sample((rand(dtype, rng, s),)) for s in RECT]


def _svdvals_ref(A, driver=None):
    return np.linalg.svd(A, compute_uv=False)


def _eigh_samples(dtype, rng):
    return [Sample((rand(dtype, rng, s),), kw) for s in SQUARE for kw in ({}, {"UPLO": "U"})][:14]


def _eigh_ref(A, UPLO="L"):
    return np.linalg.eigh(A, UPLO=UPLO)


def _eigh_invariants(r):
    L, V = r
    return L, np.abs(V)


def _eigh_check(got, sample, dtype):
    """V unitary and V diag(L) V^H == the Hermitian matrix the named triangle stands for."""
    L, V = (np.asarray(t.numpy(), dtype=np.complex128) for t in got)
    A = hermitian_from(np.asarray(sample.args[0], dtype=np.complex128), sample.kwargs.get("UPLO", "L") == "U")
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-9
    np.testing.assert_allclose(mh(V) @ V, eye_like(V.shape), atol=tol)
    np.testing.assert_allclose((V * L[..., None, :]) @ mh(V), A, atol=tol * 10)


def _eigh_grad(call):
    def wrapped(A):
        L, V = call(_hermitian_part(A))
        return L, _phase_free(V)
    return wrapped


def _hermitian_grad(call):
    return lambda A: call(_hermitian_part(A))


# ---- det, slogdet, the LU family -----------------------------------------------------------------

def per_matrix(fn, *arrays):
    """fn over the matrices of same-batch arrays (SciPy's LU functions take one at a time), stacked."""
    batch = arrays[0].shape[:-2] if arrays[0].ndim > 2 else ()
    outs = [fn(*(a[idx] for a in arrays)) for idx in np.ndindex(*batch)] if batch else [fn(*arrays)]
    if not isinstance(outs[0], tuple):
        return np.stack(outs).reshape(batch + outs[0].shape) if outs else None
    return tuple(np.stack([o[i] for o in outs]).reshape(batch + outs[0][i].shape) for i in range(len(outs[0])))


def _square_samples(dtype, rng):
    return [Sample((rand(dtype, rng, s),)) for s in SQUARE]


def _lu_factor_samples(dtype, rng):
    shapes = [(3, 3), (2, 2, 2), (4, 4), (3, 2), (2, 4), (2, 3, 3), (0, 0), (0, 3, 3), (2, 0, 3), (3, 0)]
    return [Sample((rand(dtype, rng, s),)) for s in shapes]


def _lu_factor_ref(A, pivot=True):
    if 0 in A.shape:
        k = min(A.shape[-2:])
        return A.copy(), np.ones(A.shape[:-2] + (k,), dtype=np.int32) * np.arange(1, k + 1, dtype=np.int32)
    LU, piv = per_matrix(lambda a: scipy.linalg.lu_factor(a, check_finite=False), A)
    return LU, (piv + 1).astype(np.int32)


def _lu_factor_ex_ref(A, pivot=True, check_errors=False):
    return _lu_factor_ref(A) + (np.zeros(A.shape[:-2], dtype=np.int32),)


def _lu_ref(A, pivot=True):
    m, n = A.shape[-2:]
    k = min(m, n)
    if 0 in A.shape:
        return eye_like(A.shape[:-2] + (m, m)).astype(A.dtype), np.zeros(A.shape[:-2] + (m, k), A.dtype), \
            np.zeros(A.shape[:-2] + (k, n), A.dtype)
    return per_matrix(lambda a: scipy.linalg.lu(a), A)


def _lu_solve_samples(dtype, rng):
    out = []
    for a, b, kw in [((3, 3), (3, 2), {}), ((3, 3), (3, 2), {"adjoint": True}), ((3, 3), (2, 3), {"left": False}),
                     ((3, 3), (2, 3), {"left": False, "adjoint": True}), ((2, 3, 3), (2, 3, 1), {}),
                     ((2, 3, 3), (3, 2), {"adjoint": True}), ((0, 2, 2), (0, 2, 1), {}), ((4, 4), (4, 0), {})]:
        A = well_conditioned(dtype, rng, a)
        LU, piv = _lu_factor_ref(A)
        out.append(Sample((LU, ember.tensor(piv), rand(dtype, rng, b)), kw))
    return out


def _lu_solve_ref(LU, piv, B, left=True, adjoint=False):
    batch = np.broadcast_shapes(LU.shape[:-2], B.shape[:-2])
    LU = np.broadcast_to(LU, batch + LU.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    if not left:  # X A = B: A^T X^T = B^T; X A^H = B: A X^H = B^H
        Bt = mh(B) if adjoint else np.swapaxes(B, -1, -2)
        X = _lu_solve_ref(LU, piv, Bt, True, False) if adjoint else _solve_trans(LU, piv, Bt, 1)
        return mh(X) if adjoint else np.swapaxes(X, -1, -2)
    return _solve_trans(LU, piv, np.broadcast_to(B, batch + B.shape[-2:]), 2 if adjoint else 0)


def _solve_trans(LU, piv, B, trans):
    if B.size == 0:
        return np.zeros(B.shape, np.result_type(LU, B))
    return per_matrix(lambda lu, p, b: scipy.linalg.lu_solve((lu, p - 1), b, trans=trans), LU, piv, B)


register(
    OpInfo("linalg_det", ref=np.linalg.det, sample_inputs=_square_samples, tol=TOL),
    OpInfo("linalg_slogdet", ref=np.linalg.slogdet, sample_inputs=_square_samples, tol=TOL),
    OpInfo("linalg_lu_factor", ref=_lu_factor_ref, sample_inputs=_lu_factor_samples, tol=TOL),
    OpInfo("linalg_lu_factor_ex", ref=_lu_factor_ex_ref, sample_inputs=_lu_factor_samples, tol=TOL),
    OpInfo("linalg_lu", ref=_lu_ref, sample_inputs=_lu_factor_samples, tol=TOL),
    OpInfo("linalg_lu_solve", ref=_lu_solve_ref, sample_inputs=_lu_solve_samples, tol=TOL),
)


register(
    OpInfo("linalg_cholesky", ref=_cholesky_ref, sample_inputs=_cholesky_samples, tol=TOL,
           extra={"grad_wrap": _hermitian_grad}),
    OpInfo("linalg_cholesky_ex", ref=_cholesky_ex_ref, sample_inputs=_cholesky_samples, tol=TOL,
           extra={"grad_wrap": _hermitian_grad}),
    OpInfo("linalg_inv", ref=np.linalg.inv, sample_inputs=_inv_samples, tol=TOL),
    OpInfo("linalg_inv_ex", ref=_inv_ex_ref, sample_inputs=_inv_samples, tol=TOL),
    OpInfo("linalg_solve", ref=_solve_ref, sample_inputs=_solve_samples, tol=TOL),
    OpInfo("linalg_solve_ex", ref=_solve_ex_ref, sample_inputs=_solve_samples, tol=TOL),
    OpInfo("linalg_solve_triangular", ref=_tri_ref, sample_inputs=_tri_samples, tol=TOL),
    OpInfo("linalg_svd", ref=_svd_ref, sample_inputs=_svd_samples, tol=TOL, check=_svd_check,
           extra={"compare_as": _svd_invariants, "grad_wrap": _svd_grad}),
    OpInfo("linalg_svdvals", ref=_svdvals_ref, sample_inputs=_svdvals_samples, tol=TOL),
    OpInfo("linalg_eigh", ref=_eigh_ref, sample_inputs=_eigh_samples, tol=TOL, check=_eigh_check,
           extra={"compare_as": _eigh_invariants, "grad_wrap": _eigh_grad}),
    OpInfo("linalg_eigvalsh", ref=lambda A, UPLO="L": np.linalg.eigvalsh(A, UPLO=UPLO), sample_inputs=_eigh_samples,
           tol=TOL, extra={"grad_wrap": _hermitian_grad}),
)


# ---- qr, householder_product, eig, eigvals, lstsq ---------------------------------------------------

def _geqrf_samples(dtype, rng):
    shapes = [(3, 2), (2, 3), (4, 4), (1, 1), (2, 3, 2), (2, 2, 4), (0, 2, 2), (0, 3), (3, 0)]
    return [Sample((rand(dtype, rng, sh),)) for sh in shapes]


def _geqrf_ref(A):
    """SciPy's LAPACK geqrf on each matrix of the batch."""
    m, n = A.shape[-2:]
    a, tau = np.array(A), np.zeros(A.shape[:-2] + (min(m, n),), A.dtype)
    if a.size == 0:
        return a, tau
    geqrf, = scipy.linalg.get_lapack_funcs(("geqrf",), (A,))
    for idx in np.ndindex(*A.shape[:-2]):
        a[idx], tau[idx] = geqrf(A[idx])[:2]
    return a, tau


def _qr_samples(dtype, rng):
    # The modes without a derivative (r; complete with more rows than columns) on inputs larger than
    # the gradient tests take.
    cases = [((3, 2), "reduced"), ((2, 3), "reduced"), ((3, 3), "complete"), ((2, 2, 3), "reduced"),
             ((7, 4), "complete"), ((2, 4), "complete"), ((6, 5), "r"), ((2, 5, 3), "r"), ((0, 0), "reduced"),
             ((0, 3, 2), "complete"), ((3, 0), "complete"), ((0, 3), "reduced"), ((2, 5, 3), "reduced")]
    return [Sample((rand(dtype, rng, sh),), {"mode": mode}) for sh, mode in cases]


def _qr_ref(A, mode="reduced"):
    if mode == "r":
        return np.zeros(0, A.dtype), np.linalg.qr(A, mode="r")
    return np.linalg.qr(A, mode=mode)


def _qr_invariants(r):
    Q, R = r
    k = min(R.shape[-2:])
    return (np.abs(Q[..., :k]) if Q.ndim > 1 else Q), np.abs(R)


def _qr_check(got, sample, dtype):
    Q, R = (np.asarray(t.numpy(), dtype=np.complex128) for t in got)
    A = np.asarray(sample.args[0], dtype=np.complex128)
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-9
    np.testing.assert_allclose(np.triu(R), R, atol=0)
    if Q.ndim > 1:
        np.testing.assert_allclose(mh(Q) @ Q, eye_like(Q.shape[:-2] + (Q.shape[-1],) * 2), atol=tol)
        np.testing.assert_allclose(Q @ R, A, atol=tol * 10)


def _householder_samples(dtype, rng):
    shapes = [((3, 2), (2,)), ((3, 3), (2,)), ((2, 3, 2), (2, 1)), ((4, 3), (3,)), ((3, 2), (0,)), ((0, 3, 2), (0, 2)),
              ((0, 0), (0,))]
    return [Sample((rand(dtype, rng, a), rand(dtype, rng, t))) for a, t in shapes]


def _householder_ref(A, tau):
    def one(a, t):
        m, n = a.shape
        Q = np.eye(m, dtype=np.result_type(a, t))
        for i in range(t.shape[-1]):
            v = np.concatenate([np.zeros(i), [1.0], a[i + 1:, i]])
            Q = Q @ (np.eye(m) - t[i] * np.outer(v, np.conj(v)))
        return Q[:, :n]
    if A.size == 0:
        return np.zeros(A.shape, np.result_type(A, tau))
    if A.ndim == 2:
        return one(A, tau)
    return np.stack([one(a, t) for a, t in zip(A.reshape((-1,) + A.shape[-2:]), tau.reshape((-1, tau.shape[-1])))]
                    ).reshape(A.shape)


def _eig_samples(dtype, rng):
    return [Sample((rand(dtype, rng, s),)) for s in SQUARE]


def _eig_order(L):
    """Eigenvalues in a canonical order (by real, then imaginary part): geev's own order may differ
    between float32 and float64 inputs."""
    if L.size == 0:
        return np.zeros(L.shape, dtype=np.int64)
    flat = L.reshape((-1, L.shape[-1]))
    return np.stack([np.lexsort((np.round(x.imag, 3), np.round(x.real, 3))) for x in flat]).reshape(L.shape)


def _eig_invariants(r):
    L, V = r
    idx = _eig_order(L)
    return np.take_along_axis(L, idx, -1), np.abs(np.take_along_axis(V, idx[..., None, :], -1))


def _eig_check(got, sample, dtype):
    L, V = (np.asarray(t.numpy(), dtype=np.complex128) for t in got)
    A = np.asarray(sample.args[0], dtype=np.complex128)
    tol = 1e-3 if dtype in ("float32", "complex64") else 1e-8
    np.testing.assert_allclose(A @ V, V * L[..., None, :], atol=tol)
    np.testing.assert_allclose(np.linalg.norm(V, axis=-2), np.ones(L.shape), atol=tol)


def _eig_grad(call):
    def wrapped(A):
        L, V = call(A)
        return L, _phase_free(V)
    return wrapped


def _eigvals_ref(A):
    L = np.linalg.eigvals(A)
    return np.take_along_axis(L, _eig_order(L), -1)


LSTSQ = [((3, 2), (3, 1), {}), ((3, 2), (3,), {"driver": "gelsd"}), ((2, 3), (2, 2), {"driver": "gelsy"}),
         ((4, 2), (4, 2), {"driver": "gels"}), ((4, 2), (4, 2), {"driver": "gelss"}), ((2, 4, 3), (2, 4, 2), {}),
         ((2, 4, 3), (1, 4, 1), {"driver": "gelsd"}), ((3, 3), (3, 2), {"rcond": 1e-3, "driver": "gelss"}),
         ((0, 3, 2), (0, 3, 1), {}), ((3, 0), (3, 2), {"driver": "gelsd"}), ((2, 5, 2), (2, 5, 3), {"driver": "gels"})]


def _lstsq_samples(dtype, rng):
    return [Sample((rand(dtype, rng, a), rand(dtype, rng, b)), kw) for a, b, kw in LSTSQ]


def _lstsq_ref(A, B, rcond=None, driver=None):
    driver = driver or "gelsy"
    vector = B.ndim == A.ndim - 1
    Bm = B[..., None] if vector else B
    batch = np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    A, Bm = np.broadcast_to(A, batch + A.shape[-2:]), np.broadcast_to(Bm, batch + Bm.shape[-2:])
    m, n = A.shape[-2:]
    X = np.linalg.pinv(A) @ Bm if A.size else np.zeros(batch + (n, Bm.shape[-1]), np.result_type(A, B))
    real = np.zeros(0).real.dtype if A.dtype.kind != "c" else np.float64
    rank = np.zeros(0, np.int64) if driver == "gels" else (
        np.linalg.matrix_rank(A).astype(np.int64) if A.size else np.zeros(batch, np.int64))
    sv = np.linalg.svd(A, compute_uv=False) if driver in ("gelsd", "gelss") else np.zeros(0, real)
    res = np.zeros(0, real)
    if m > n and driver != "gelsy":
        res = np.sum(np.abs(A @ X - Bm) ** 2, axis=-2)
        res = res[..., 0] if vector else res
    return (X[..., 0] if vector else X), res, rank, sv
register(
    OpInfo("linalg_qr", ref=_qr_ref, sample_inputs=_qr_samples, tol=TOL, check=_qr_check,
           extra={"compare_as": _qr_invariants}),
    OpInfo("geqrf", ref=_geqrf_ref, sample_inputs=_geqrf_samples, tol=TOL),
    OpInfo("linalg_householder_product", ref=_householder_ref, sample_inputs=_householder_samples, tol=TOL),
    OpInfo("linalg_eig", ref=np.linalg.eig, sample_inputs=_eig_samples, tol=TOL, check=_eig_check,
           extra={"compare_as": _eig_invariants, "grad_wrap": _eig_grad}),
    OpInfo("linalg_eigvals", ref=_eigvals_ref, sample_inputs=_eig_samples, tol=TOL,
           extra={"compare_as": lambda L: np.take_along_axis(L, _eig_order(L), -1)}),
    OpInfo("linalg_lstsq", ref=_lstsq_ref, sample_inputs=_lstsq_samples, tol=TOL),
)
