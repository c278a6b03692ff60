"""OpInfos of the top-level linear algebra written in Python (core/ember/_linalg_legacy.py) against NumPy/SciPy."""
import numpy as np
import scipy.linalg

from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def _well(rng, *shape):
    """Well-conditioned square matrices (the identity plus a small random part)."""
    return np.eye(shape[-1]) * 2 + rng.uniform(-0.5, 0.5, shape)


def _spd(rng, n, batch=()):
    m = rng.uniform(-1, 1, batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _chol(rng, n, batch=()):
    return np.linalg.cholesky(_spd(rng, n, batch))


def _slogdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return sign, logabs


def _triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    T = np.triu(A) if upper else np.tril(A)
    if unitriangular:
        T = T - np.diag(np.diag(T)) + np.eye(T.shape[-1])
    T = T.T if transpose else T
    return np.linalg.solve(T, b), A


def _samples_square(dtype, rng):
    return [Sample((_well(rng, 3, 3),)), Sample((_well(rng, 2, 4, 4),))]


register(
    python_opinfo("det", np.linalg.det, _samples_square, method=True),
    python_opinfo("slogdet", _slogdet, _samples_square, method=True),
    python_opinfo("logdet", lambda a: np.log(np.linalg.det(a)), lambda dtype, rng: [Sample((_spd(rng, 3),))],
                  method=True),
    python_opinfo("inverse", np.linalg.inv, _samples_square, method=True),
    python_opinfo("pinverse", np.linalg.pinv, lambda dtype, rng: [Sample((_well(rng, 3, 3)[:, :2],)),
                                                                  Sample((_well(rng, 2, 3, 3),))], method=True),
    python_opinfo("matrix_power", np.linalg.matrix_power,
                  lambda dtype, rng: [Sample((_well(rng, 3, 3), k)) for k in (0, 1, 3, -2)], method=True),
    python_opinfo("matrix_exp", lambda a: np.stack([scipy.linalg.expm(m) for m in a.reshape(-1, *a.shape[-2:])])
                  .reshape(a.shape), lambda dtype, rng: [Sample((rng.uniform(-1, 1, (3, 3)),)),
                                                         Sample((rng.uniform(-1, 1, (2, 2, 2)),))], method=True),
    python_opinfo("cholesky_solve", lambda b, L, upper=False: np.linalg.solve(
        (L.T @ L) if upper else (L @ L.T), b),
                  lambda dtype, rng: [Sample((rng.uniform(-1, 1, (3, 2)), _chol(rng, 3))),
                                      Sample((rng.uniform(-1, 1, (3, 2)), _chol(rng, 3).T, True))], method=True),
    python_opinfo("cholesky_inverse", lambda L, upper=False: np.linalg.inv((L.T @ L) if upper else (L @ L.T)),
                  lambda dtype, rng: [Sample((_chol(rng, 3),)), Sample((_chol(rng, 3).T, True))], method=True),
    python_opinfo("triangular_solve", _triangular_solve,
                  lambda dtype, rng: [Sample((rng.uniform(-1, 1, (3, 2)), _well(rng, 3, 3)), kw)
                                      for kw in ({}, {"upper": False}, {"transpose": True},
                                                 {"unitriangular": True})], method=True),
    python_opinfo("chain_matmul", lambda *ms: np.linalg.multi_dot(ms) if len(ms) > 1 else ms[0],
                  lambda dtype, rng: [Sample((rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3, 4)),
                                              rng.uniform(-1, 1, (4, 2)))), Sample((rng.uniform(-1, 1, (2, 2)),))]),
    python_opinfo("vander", lambda x, N=None, increasing=False: np.vander(x, N, increasing),
                  lambda dtype, rng: [Sample((rng.uniform(-2, 2, 4),)), Sample((rng.uniform(-2, 2, 3), 5, True))]),
    python_opinfo("adjoint", lambda a: np.swapaxes(a, -1, -2).conj(),
                  lambda dtype, rng: [Sample((rng.uniform(-1, 1, (2, 3, 4)),))], method=True),
    python_opinfo("frobenius_norm", lambda a, dim=(), keepdim=False: np.sqrt((a * a).sum(
        axis=tuple(dim) if dim else None, keepdims=keepdim)),
                  lambda dtype, rng: [Sample((rng.uniform(-1, 1, (3, 4)),)),
                                      Sample((rng.uniform(-1, 1, (2, 3, 4)), (1, 2), True))]),
    python_opinfo("nuclear_norm", lambda a, dim=None, keepdim=False: np.linalg.norm(
        a if dim is None else np.moveaxis(a, dim, (-2, -1)), "nuc", axis=(-2, -1), keepdims=keepdim and dim is None),
                  lambda dtype, rng: [Sample((_well(rng, 3, 3),)), Sample((_well(rng, 2, 3, 3), (1, 2)))]),
)
