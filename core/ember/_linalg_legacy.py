"""PyTorch's older linear-algebra names at the top level and as Tensor methods (torch.det, torch.svd,
torch.lu, torch.triangular_solve...), written over ember.linalg's ops with the old signatures and
return types; the five functions PyTorch 1.9 removed raise its RuntimeError, as PyTorch 2.13 does."""
from __future__ import annotations

import warnings

from . import _C
from ._out_arg import write_out
from . import return_types as _rt

_L = _C._linalg

__all__ = ["det", "slogdet", "logdet", "inverse", "pinverse", "matrix_power", "matrix_exp", "svd", "qr", "lu",
           "lu_solve", "lu_unpack", "cholesky", "cholesky_inverse", "cholesky_solve", "triangular_solve", "ormqr",
           "orgqr", "chain_matmul", "frobenius_norm", "nuclear_norm", "norm_except_dim", "adjoint", "vander",
           "symeig", "lstsq", "solve", "eig", "matrix_rank"]


def det(input):
    return _L.det(input)


def slogdet(input):
    sign, logabsdet = _L.slogdet(input)
    return _rt.slogdet(sign, logabsdet)


def logdet(input):
    """log(det(input)): NaN where a real determinant is negative, -inf where it is 0."""
    sign, logabsdet = _L.slogdet(input)
    if input.is_complex():
        return logabsdet.to(input.dtype) + sign.log()
    return _C.where(sign < 0, _C.full_like(logabsdet, float("nan")), logabsdet)


def inverse(input):
    return _L.inv(input)


def pinverse(input, rcond=1e-15):
    return _L.pinv(input, rtol=rcond)


def matrix_power(input, n):
    return _L.matrix_power(input, n)


def matrix_exp(input):
    return _L.matrix_exp(input)


def svd(input, some=True, compute_uv=True):
    """(U, S, V) with V, not its adjoint; compute_uv=False gives zero-filled (m, m) U and (n, n) V."""
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = list(input.shape[:-2])
        s = _L.svdvals(input)
        return _rt.svd(_C.zeros(batch + [m, m], dtype=input.dtype), s, _C.zeros(batch + [n, n], dtype=input.dtype))
    u, s, vh = _L.svd(input, full_matrices=not some)
    return _rt.svd(u, s, vh.mH)


def qr(input, some=True):
    q, r = _L.qr(input, "reduced" if some else "complete")
    return _rt.qr(q, r)


def lu(A, pivot=True, get_infos=False):
    """(LU, pivots), or (LU, pivots, infos) with get_infos (a failure then reported, not raised)."""
    lu_, pivots, info = _L.lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return (lu_, pivots, info) if get_infos else (lu_, pivots)


def lu_solve(b, LU_data, LU_pivots):
    return _L.lu_solve(LU_data, LU_pivots, b)


def _permutation(pivots_row, m, dtype):
    """The permutation matrix P of one LAPACK pivot vector (1-based row swaps), A = P L U."""
    perm = list(range(m))
    for i, p in enumerate(pivots_row):
        perm[i], perm[p - 1] = perm[p - 1], perm[i]
    p_mat = _C.zeros([m, m], dtype=dtype)
    for i, row in enumerate(perm):
        p_mat[row, i] = 1
    return p_mat


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) of a packed LU factorization; the parts not unpacked are empty tensors."""
    if LU_data.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if LU_pivots.dtype != _C.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."
                           "\nNote: this function is intended to be used with the output produced by torch.linalg."
                           "lu_factor")
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = _C.empty([0], dtype=LU_data.dtype)
    if unpack_data:
        eye = _C.eye(m, k, dtype=LU_data.dtype)
        lower = LU_data[..., :, :k].tril(-1) + eye
        upper = LU_data[..., :k, :].triu()
    else:
        lower = upper = empty
    if unpack_pivots:
        batch = list(LU_data.shape[:-2])
        flat = LU_pivots.reshape([-1, LU_pivots.shape[-1]]).tolist()
        perms = [_permutation(row, m, LU_data.dtype) for row in flat]
        p = _C.stack(perms).reshape(batch + [m, m]) if perms else _C.zeros(batch + [m, m], dtype=LU_data.dtype)
    else:
        p = empty
    return _rt.lu_unpack(p, lower, upper)


def cholesky(input, upper=False):
    return _L.cholesky(input, upper=upper)


def cholesky_solve(B, L, upper=False):
    """X with A X = B, A = L L^H (or U^H U with upper): two triangular solves."""
    if upper:
        y = _L.solve_triangular(L.mH, B, upper=False)
        return _L.solve_triangular(L, y, upper=True)
    y = _L.solve_triangular(L, B, upper=False)
    return _L.solve_triangular(L.mH, y, upper=True)


def cholesky_inverse(L, upper=False):
    """The inverse of A = L L^H (or U^H U) from its Cholesky factor."""
    if L.dim() < 2:
        raise RuntimeError("linalg.cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    eye = _C.eye(L.shape[-1], dtype=L.dtype).expand(list(L.shape))
    return cholesky_solve(eye, L, upper)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(solution, cloned_coefficient): X with op(A) X = b, op(A) = A or A^T."""
    coeff = A.mT if transpose else A
    x = _L.solve_triangular(coeff, b, upper=upper != transpose, unitriangular=unitriangular)
    return _rt.triangular_solve(x, A.clone())


def _full_q(input, tau):
    """The m x m Q of the Householder reflectors in input's columns (tau 0 adds identity reflectors)."""
    m, n = input.shape[-2], input.shape[-1]
    k = tau.shape[-1]
    if m > n:
        input = _C.cat([input, _C.zeros(list(input.shape[:-1]) + [m - n], dtype=input.dtype)], -1)
    if m > k:
        tau = _C.cat([tau, _C.zeros(list(tau.shape[:-1]) + [m - k], dtype=tau.dtype)], -1)
    return _L.householder_product(input[..., :m], tau[..., :m])


def ormqr(input, tau, other, left=True, transpose=False):
    """op(Q) @ other (or other @ op(Q)), Q the full m x m product of input's Householder reflectors."""
    q = _full_q(input, tau)
    if transpose:
        q = q.mH
    return q @ other if left else other @ q


def orgqr(input, tau):
    return _L.householder_product(input, tau)


def chain_matmul(*matrices, out=None):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        result = matrices[0].clone()
    else:
        result = _L.multi_dot(list(matrices))
    return write_out(out, result) if out is not None else result


def frobenius_norm(input, dim=(), keepdim=False):
    return _L.vector_norm(input, 2, list(dim) if dim != () else None, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim) overload
        dim, keepdim = None, dim
    return _L.matrix_norm(input, "nuc", list(dim) if dim is not None else [-2, -1], keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm over every dim but dim, kept with size 1 there (dim -1: the norm of all of v)."""
    if dim == -1:
        return _L.vector_norm(v, pow)
    others = [d for d in range(v.dim()) if d != dim]
    return _L.vector_norm(v, pow, others, True)


def adjoint(input):
    return input.mH


def vander(x, N=None, increasing=False):
    """Columns x^(N-1) ... x^0 (x^0 ... x^(N-1) with increasing)."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    out = _L.vander(x, N=N)
    return out if increasing else out.flip(-1)


_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion of the matrix by default "
        "to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True)"
        " should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def lstsq(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
        "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
        "information about the problem).")


def solve(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
        "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


def eig(input, eigenvectors=False, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors "
        "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
        "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


class LinalgMethods:
    """The Tensor methods of these functions (a.det(), a.svd(), b.lu_solve(LU, pivots), ...)."""
    det = det
    slogdet = slogdet
    logdet = logdet
    inverse = inverse
    pinverse = pinverse
    matrix_power = matrix_power
    matrix_exp = matrix_exp
    svd = svd
    qr = qr
    lu = lu
    lu_solve = lu_solve
    cholesky = cholesky
    cholesky_inverse = cholesky_inverse
    cholesky_solve = cholesky_solve
    triangular_solve = triangular_solve
    ormqr = ormqr
    orgqr = orgqr
    adjoint = adjoint
    symeig = symeig
    lstsq = lstsq
    solve = solve
    eig = eig
