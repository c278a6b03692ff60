"""OpInfos of the top-level factorizations written in Python (core/ember/_linalg_legacy.py: svd, qr, cholesky, lu,
lu_solve, lu_unpack, orgqr, ormqr) against NumPy and SciPy's LAPACK wrappers."""
import numpy as np
import scipy.linalg
import scipy.linalg.lapack as lapack

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def _r(rng, *shape):
    return rng.uniform(-1, 1, shape)


def _per_matrix(fn, *arrays):
    """fn applied to each matrix of the batched arrays (same batch shape), results stacked back."""
    batch = arrays[0].shape[:-2]
    flat = [a.reshape((-1,) + a.shape[len(batch):]) for a in arrays]
    outs = [fn(*mats) for mats in zip(*flat)]
    if isinstance(outs[0], tuple):
        return tuple(np.stack(parts).reshape(batch + parts[0].shape) for parts in zip(*outs))
    return np.stack(outs).reshape(batch + outs[0].shape)


def _svd(a, some=True, compute_uv=True):
    u, s, vh = np.linalg.svd(a, full_matrices=not some)
    if not compute_uv:  # PyTorch: zero-filled square U and V beside the singular values
        m, n = a.shape[-2:]
        return np.zeros(a.shape[:-2] + (m, m)), s, np.zeros(a.shape[:-2] + (n, n))
    return u, s, np.swapaxes(vh, -1, -2)


def _svd_invariants(usv):
    """Singular vectors are unique only up to sign: compare the values, |U|, |V| and U diag(S) V^T."""
    u, s, v = usv
    k = s.shape[-1]
    return s, np.abs(u[..., :k]), np.abs(v[..., :k]), (u[..., :k] * s[..., None, :]) @ np.swapaxes(v[..., :k], -1, -2)


def _qr_invariants(qr):
    q, r = qr
    return np.abs(q), np.abs(r), q @ r


def _lu(a, pivot=True, get_infos=False):
    def one(m):
        packed, piv = scipy.linalg.lu_factor(m)
        return packed, (piv + 1).astype(np.int32)  # LAPACK's 1-based pivots, as PyTorch returns them
    lu_, piv = _per_matrix(one, a)
    return (lu_, piv, np.zeros(a.shape[:-2], np.int32)) if get_infos else (lu_, piv)


def _lu_samples(dtype, rng):
    return [Sample((_r(rng, 4, 4),)), Sample((_r(rng, 2, 3, 3),), {"get_infos": True})]


def _factored(rng, shape):
    """A random matrix of shape and its LU factorization from SciPy (pivots an int32 tensor, 1-based)."""
    a = _r(rng, *shape)
    lu_, piv = _lu(a)
    return a, lu_, ember.tensor(piv)


def _lu_solve_samples(dtype, rng):
    samples = []
    for shape, rhs in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1))):
        _, lu_, piv = _factored(rng, shape)
        samples.append(Sample((_r(rng, *rhs), lu_, piv)))
    return samples


def _lu_solve(b, lu_, piv):
    return _per_matrix(lambda bb, ll, pp: scipy.linalg.lu_solve((ll, pp - 1), bb), b, lu_, piv)


def _lu_unpack_samples(dtype, rng):
    samples = []
    for shape in ((4, 4), (2, 3, 3), (3, 5), (5, 3)):
        a = _r(rng, *shape)
        if shape[-2] == shape[-1]:
            _, lu_, piv = _factored(rng, shape)
        else:  # rectangular: SciPy's getrf through its LAPACK wrapper
            lu_, piv0, _ = lapack.dgetrf(a)
            lu_, piv = lu_, ember.tensor((piv0 + 1).astype(np.int32))
        samples.append(Sample((lu_, piv)))
    samples.append(Sample(samples[0].args, {"unpack_pivots": False}))
    samples.append(Sample(samples[0].args, {"unpack_data": False}))
    return samples


def _lu_unpack(lu_, piv, unpack_data=True, unpack_pivots=True):
    m, n = lu_.shape[-2:]
    k = min(m, n)

    def one(packed, pivots):
        perm = np.arange(m)
        for i, p in enumerate(pivots[0]):  # LAPACK's row swaps, in order
            perm[[i, p - 1]] = perm[[p - 1, i]]
        p_mat = np.eye(m)[:, perm]  # A = P L U
        lower = np.tril(packed[:, :k], -1) + np.eye(m, k)
        return p_mat, lower, np.triu(packed[:k, :])
    p_mat, lower, upper = _per_matrix(one, lu_, piv[..., None, :])
    empty = np.zeros(0)
    return p_mat if unpack_pivots else empty, lower if unpack_data else empty, upper if unpack_data else empty


def _householder(rng, m, n):
    """(reflectors, tau) of a random m x n matrix from LAPACK's geqrf."""
    qr, tau, _, _ = lapack.dgeqrf(_r(rng, m, n))
    return qr, tau


def _orgqr(a, tau):
    return lapack.dorgqr(a, tau)[0]


def _ormqr(a, tau, c, left=True, transpose=False):
    m = a.shape[0]
    if a.shape[1] < m:  # LAPACK's ormqr takes the m x k reflectors; Q is m x m
        a = np.concatenate([a, np.zeros((m, m - a.shape[1]))], 1)
    return lapack.dormqr("L" if left else "R", "T" if transpose else "N", a[:, :tau.shape[0]], tau, c,
                         lwork=max(c.shape) * 64)[0]


def _ormqr_samples(dtype, rng):
    a, tau = _householder(rng, 4, 3)
    return [Sample((a, tau, _r(rng, 4, 2)), kw) for kw in ({}, {"transpose": True})] + [
        Sample((a, tau, _r(rng, 2, 4)), {"left": False}), Sample((a, tau, _r(rng, 2, 4)), {"left": False,
                                                                                           "transpose": True})]


register(
    python_opinfo("svd", _svd, lambda dtype, rng: [Sample((_r(rng, 4, 3),)), Sample((_r(rng, 3, 5),), {"some": False}),
                                                   Sample((_r(rng, 2, 3, 3),)),
                                                   Sample((_r(rng, 3, 4),), {"compute_uv": False})],
                  method=True, grad=False, extra={"compare_as": _svd_invariants}),
    python_opinfo("qr", lambda a, some=True: np.linalg.qr(a, "reduced" if some else "complete"),
                  lambda dtype, rng: [Sample((_r(rng, 4, 3),)), Sample((_r(rng, 4, 3),), {"some": False}),
                                      Sample((_r(rng, 2, 3, 3),))],
                  method=True, extra={"compare_as": _qr_invariants},
                  grad_samples=lambda rng: [((_r(rng, 4, 3),), {}), ((_r(rng, 3, 3),), {})]),
    python_opinfo("cholesky", lambda a, upper=False: np.swapaxes(np.linalg.cholesky(a), -1, -2) if upper
                  else np.linalg.cholesky(a),
                  lambda dtype, rng: [Sample((m @ m.T + 3 * np.eye(3),), kw) for m in [_r(rng, 3, 3)]
                                      for kw in ({}, {"upper": True})], method=True,
                  # cholesky reads one triangle, so a finite difference in the other is 0 while the analytic
                  # gradient is symmetrized (as PyTorch's); it is linalg.cholesky's, checked by its opdb entry
                  grad=False),
    python_opinfo("lu", _lu, _lu_samples, method=True),
    python_opinfo("lu_solve", _lu_solve, _lu_solve_samples, method=True),
    python_opinfo("lu_unpack", _lu_unpack, _lu_unpack_samples),
    python_opinfo("orgqr", _orgqr,
                  lambda dtype, rng: [Sample(_householder(rng, 4, 3)), Sample(_householder(rng, 3, 3))],
                  method=True),
    python_opinfo("ormqr", _ormqr, _ormqr_samples, method=True),
)
