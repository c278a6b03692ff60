"""Helpers the distributions share (torch.distributions.utils): broadcasting of parameters,
logits <-> probs, clamping probabilities, lazily computed parameters, tril <-> vector maps."""
from __future__ import annotations

import numbers
from functools import update_wrapper

import ember
from ember import Tensor

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def _broadcast_shapes(shapes, mismatch):
    """NumPy's broadcasting of several shapes, one after the other; at the first size that does not
    match, mismatch(sizes so far, next size, dim) gives the exception."""
    out = ()
    for shape in shapes:
        shape = tuple(shape)
        n = max(len(out), len(shape))
        a, b = (1,) * (n - len(out)) + out, (1,) * (n - len(shape)) + shape
        for dim, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise mismatch(x, y, dim)
        out = tuple(y if x == 1 else x for x, y in zip(a, b))
    return ember.Size(out)


def broadcast_shape(*shapes):
    """The broadcast of several shapes (a RuntimeError naming them when they do not match)."""
    return _broadcast_shapes(shapes, lambda x, y, dim: RuntimeError(
        f"Shape mismatch: objects cannot be broadcast to a single shape: {shapes}"))


def broadcast_all(*values):
    """Broadcasts numbers and tensors to one shape; numbers become tensors of the tensors' dtype
    (the default dtype when all are numbers), as torch.distributions.utils.broadcast_all does, with
    torch.broadcast_tensors' error."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        like = next((v for v in values if isinstance(v, Tensor)), None)
        dtype = like.dtype if like is not None else ember.get_default_dtype()
        values = [v if isinstance(v, Tensor) else ember.tensor(v, dtype=dtype) for v in values]
    shape = _broadcast_shapes((v.shape for v in values), lambda x, y, dim: RuntimeError(
        f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {dim}"))
    return tuple(v.expand(shape) for v in values)


def _standard_normal(shape, dtype, device):
    return ember.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sums out the `dim` rightmost dimensions of value."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: the sigmoid for binary outcomes, else a softmax over the last dim."""
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamps probabilities into [eps, 1 - eps] of their dtype (so their logits stay finite)."""
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities: log(p) - log1p(-p) for binary outcomes, else log(p)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(ps_clamped) - ember.log1p(-ps_clamped)
    return ember.log(ps_clamped)


class lazy_property:
    """A property computed once per instance on first access (then stored as an attribute), used for
    the parameters a distribution may be given in either form (probs or logits). Under no_grad-free
    access it records gradients like any computation."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: a property, so that introspection (e.g. the
    constraint registry, Sphinx) sees one."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_indices(n, diag):
    rows, cols = [], []
    for i in range(n):
        for j in range(0, min(i + diag, n - 1) + 1):
            rows.append(i)
            cols.append(j)
    return rows, cols


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular part (offset `diag` <= 0) of the trailing n x n matrices as vectors, row by row."""
    n = mat.shape[-1]
    if not (-n <= diag < n):
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = _tril_indices(n, diag)
    flat = mat.reshape(mat.shape[:-2] + (n * n,))
    idx = ember.tensor([r * n + c for r, c in zip(rows, cols)], dtype=ember.int64)
    return flat.index_select(-1, idx)


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of tril_matrix_to_vec: a vector of length n(n+1)/2 + ... into an n x n lower-triangular matrix."""
    # n*(n+1)/2 + n*diag = len(vec), solved for n.
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = ember.finfo(vec.dtype).eps
    if not round(n) - n < eps:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n.item()) if isinstance(n, Tensor) else round(n)
    rows, cols = _tril_indices(n, diag)
    out = vec.new_zeros(vec.shape[:-1] + (n * n,))
    idx = ember.tensor([r * n + c for r, c in zip(rows, cols)], dtype=ember.int64)
    out = out.index_add(-1, idx, vec)
    return out.reshape(vec.shape[:-1] + (n, n))


# Small tensor helpers the families share (ember has no diag_embed / batched cholesky_solve yet).

def diag_embed(x):
    """Matrices with x on their diagonal (x's last dim becomes the trailing n x n)."""
    n = x.shape[-1]
    return x.unsqueeze(-1) * ember.eye(n, dtype=x.dtype)
