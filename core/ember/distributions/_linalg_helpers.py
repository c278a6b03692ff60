"""Batched triangular algebra the multivariate families share (broadcasting their batch dims)."""
import ember

from .utils import broadcast_shape


def batch_mv(bmat, bvec):
    """bmat @ bvec over broadcast batch dims."""
    return ember.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def tril_solve(L, B):
    """L^-1 B for lower-triangular L, with batch dims broadcast."""
    batch = broadcast_shape(L.shape[:-2], B.shape[:-2])
    L = L.expand(tuple(batch) + tuple(L.shape[-2:]))
    B = B.expand(tuple(batch) + tuple(B.shape[-2:]))
    return ember.linalg.solve_triangular(L, B, upper=False)


def batch_mahalanobis(bL, bx):
    """x^T (L L^T)^-1 x = |L^-1 x|^2, for x of shape (..., n) and L of shape (..., n, n)."""
    return tril_solve(bL, bx.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def cholesky_inverse(L):
    """(L L^T)^-1 from its lower Cholesky factor."""
    linv = tril_solve(L, ember.eye(L.shape[-1], dtype=L.dtype).expand(L.shape))
    return linv.transpose(-2, -1) @ linv


def cholesky_solve(B, L):
    """(L L^T)^-1 B."""
    y = tril_solve(L, B)
    lt = L.transpose(-2, -1).expand(tuple(y.shape[:-2]) + tuple(L.shape[-2:]))
    return ember.linalg.solve_triangular(lt, y, upper=True)


def precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1, without inverting P: from the Cholesky factor of P with
    its rows and columns reversed (which is upper-triangular when flipped back)."""
    lf = ember.linalg.cholesky(ember.flip(P, (-2, -1)))
    l_inv = ember.flip(lf, (-2, -1)).transpose(-2, -1)
    eye = ember.eye(P.shape[-1], dtype=P.dtype).expand(l_inv.shape)
    return ember.linalg.solve_triangular(l_inv, eye, upper=False)


def scale_tril_from(scale_tril, covariance_matrix, precision_matrix):
    """The lower Cholesky factor of the covariance from whichever of the three forms is given."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return ember.linalg.cholesky(covariance_matrix)
    return precision_to_scale_tril(precision_matrix)
