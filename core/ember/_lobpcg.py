"""torch.lobpcg: the k largest (or smallest) eigenpairs of a symmetric positive definite generalized problem
A x = lambda B x by LOBPCG (Knyazev 2001): Rayleigh-Ritz over the current vectors X, their preconditioned
residuals W and the previous search directions P, the basis made B-orthonormal each step (directions whose
Gram eigenvalue falls below tol are dropped, so a converged basis cannot break the iteration). Batches of
matrices run one by one. The gradient (B = I only, as PyTorch's) is the symmetric eigenproblem's, taken
with the complement of the found eigenspace from a full eigh of A in backward."""
from __future__ import annotations

from . import _C
from .autograd.function import Function
from .autograd.grad_mode import no_grad

__all__ = ["lobpcg"]

_FEPS = {"float32": 1.2e-07, "float64": 2.23e-16}


class _State:
    """What a tracker sees each iteration (PyTorch passes its worker, with the same dictionaries)."""

    def __init__(self, ivars, fvars, tvars):
        self.ivars, self.fvars, self.tvars = ivars, fvars, tvars


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """(E, X): the k extreme eigenvalues (largest first when largest, the default; else smallest first) and
    their B-orthonormal eigenvectors, n >= k vectors iterated (X's columns, or random ones)."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and tuple(A.shape) != tuple(B.shape):
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    if not A.is_floating_point() or A.dtype not in (_C.float32, _C.float64):
        raise TypeError(f"lobpcg: expected A of dtype float32 or float64, got {A.dtype}")
    dtype_name = str(A.dtype).rsplit(".", 1)[-1]
    tol = _FEPS[dtype_name] ** 0.5 if tol is None else tol
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    settings = {"niter": 1000 if niter is None else niter, "tol": tol, "largest": True if largest is None else largest,
                "tracker": tracker}
    if A.requires_grad or (B is not None and B.requires_grad):
        # the gradient of A is made symmetric through this map, as PyTorch's
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return _LOBPCGFunction.apply(A_sym, B_sym, X, iK, k, n, settings)
    with no_grad():
        return _batched(A, B, X, iK, k, n, settings)


def _batched(A, B, X, iK, k, n, settings):
    m = A.shape[-1]
    if A.dim() == 2:
        return _run(A, B, X if X is not None else _C.randn(m, n, dtype=A.dtype), iK, k, n, settings)
    batch = list(A.shape[:-2])
    bA = A.reshape(-1, m, m)
    values, vectors = [], []
    for i in range(bA.shape[0]):
        Xi = X.reshape(-1, m, n)[i] if X is not None else _C.randn(m, n, dtype=A.dtype)
        E, V = _run(bA[i], B.reshape(-1, m, m)[i] if B is not None else None, Xi, iK, k, n, {**settings, "batch": i})
        values.append(E)
        vectors.append(V)
    return _C.stack(values).reshape(batch + [-1]), _C.stack(vectors).reshape(batch + [m, -1])


def _b_orthonormal(S, B, tol):
    """A B-orthonormal basis of S's columns: S Q / sqrt(mu) over the Gram matrix's eigenpairs (mu, Q), leaving
    out directions with mu at or below tol times the largest (nearly dependent ones)."""
    BS = S if B is None else B @ S
    gram = S.mT @ BS
    gram = (gram + gram.mT) / 2
    mu, Q = _eigh(gram)
    keep = mu > tol * mu.abs().max().clamp_min(1e-300)
    Q, mu = Q[:, keep], mu[keep]
    return S @ (Q / mu.sqrt())


def _eigh(M):
    from . import linalg
    return linalg.eigh(M)


def _run(A, B, X, iK, k, n, settings):
    if X.dim() != 2 or tuple(X.shape) != (A.shape[-1], n):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(A.shape[-1], n)}")
    sign = 1.0 if settings["largest"] else -1.0
    tol = settings["tol"]
    drop = _FEPS[str(A.dtype).rsplit(".", 1)[-1]] * 100  # Gram eigenvalues this small mean dependent directions
    # 1-norms: cheap upper bounds of the spectral norms, the scale the residuals are measured against
    A_norm = float(A.abs().sum(0).max())
    B_norm = 1.0 if B is None else float(B.abs().sum(0).max())
    Bm = (lambda v: v) if B is None else (lambda v: B @ v)
    X = _b_orthonormal(X.to(A.dtype), B, drop)
    theta, C = _eigh(sign * (X.mT @ A @ X))
    theta, C = theta.flip(0), C.flip(1)  # largest first
    X = X @ C
    P = None
    converged = 0
    for step in range(settings["niter"] if settings["niter"] >= 0 else 1 << 30):
        values = sign * theta[:X.shape[1]]
        R = A @ X - Bm(X) * values
        error = R.norm(dim=0) / ((A_norm + values.abs() * B_norm) * X.norm(dim=0))
        converged = int((error[:k] < tol).sum())
        if settings["tracker"] is not None:
            settings["tracker"](_State({"istep": step, "converged_count": converged, "batch_index":
                                        settings.get("batch", 0)}, {"tol": tol}, {"E": values, "X": X, "R": R}))
        if converged >= k:
            break
        W = iK @ R if iK is not None else R
        S = _C.cat([X, W] + ([P] if P is not None else []), 1)
        basis = _b_orthonormal(S, B, drop)
        theta, C = _eigh(sign * (basis.mT @ A @ basis))
        theta, C = theta.flip(0)[:n], C.flip(1)[:, :n]
        new_X = basis @ C
        # the new directions: the part of the step outside the old X (its B-projection on X removed)
        P = new_X - X @ (X.mT @ Bm(new_X))
        X = new_X
    values = sign * theta[:k]
    return values, X[:, :k]


class _LOBPCGFunction(Function):
    @staticmethod
    def forward(ctx, A, B, X, iK, k, n, settings):
        E, U = _batched(A.detach(), B.detach() if B is not None else None, X, iK, k, n, settings)
        ctx.save_for_backward(A, E, U)
        ctx.has_B = B is not None
        return E, U

    @staticmethod
    def backward(ctx, grad_E, grad_U):
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        A, E, U = ctx.saved_tensors
        return _eigenpairs_backward(A, E, U, grad_E, grad_U), None, None, None, None, None, None


def _eigenpairs_backward(A, E, U, grad_E, grad_U):
    """The gradient of A = sum over all eigenpairs, through the found ones (E, U): for eigenvalues U diag(gE) U^T,
    for eigenvectors sum_i r_i u_i^T with r_i = sum_{j != i} w_j w_j^T g_i / (E_i - L_j) over A's full
    eigendecomposition (L, W) (w_j w_j^T does not depend on signs, so W need not agree with U)."""
    if A.dim() > 2:
        m, k = A.shape[-1], E.shape[-1]
        pick = (lambda g, shape, i: None if g is None else g.reshape(shape)[i])  # noqa: E731
        parts = [_eigenpairs_backward(A.reshape(-1, m, m)[i], E.reshape(-1, k)[i], U.reshape(-1, m, k)[i],
                                      pick(grad_E, (-1, k), i), pick(grad_U, (-1, m, k), i))
                 for i in range(A.reshape(-1, m, m).shape[0])]
        return _C.stack(parts).reshape(A.shape)
    grad = _C.zeros_like(A)
    if grad_E is not None:
        grad = grad + (U * grad_E) @ U.mT
    if grad_U is not None:
        L, W = _eigh(A)
        for i in range(U.shape[1]):
            gap = E[i] - L
            # the eigenpair of A that u_i is: excluded from the sum (its gap is ~0)
            self_index = int((W.mT @ U[:, i]).abs().argmax())
            inv_gap = _C.where(_C.arange(L.shape[0]) == self_index, _C.zeros_like(gap), 1 / gap)
            r = W @ ((W.mT @ grad_U[:, i]) * inv_gap)
            grad = grad + r.unsqueeze(1) @ U[:, i].unsqueeze(0)
    return grad
