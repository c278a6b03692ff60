"""Sparse elementwise arithmetic (with a scalar, a sparse tensor of the same size, or a dense one where
PyTorch allows it), sums, softmax over the stored entries, transposes and sparse_mask; all written as
vectorised ops on the member tensors, so gradients reach the values."""
import builtins
import numbers

from .. import _C
from ._convert import as_coo, coalesce, coo_to_csr, linearize, to_dense
from ._tensor import SparseTensor, make_coo, not_on_sparse

__all__ = ["add", "sub", "mul", "div", "neg", "rsub_dense", "sparse_sum", "softmax", "log_softmax", "transpose",
           "sparse_mask", "to_dtype"]


def _is_number(x):
    return isinstance(x, numbers.Number) or (isinstance(x, _C.TensorBase) and not isinstance(x, SparseTensor)
                                             and x.dim() == 0)


def _like(self, coo):
    """coo in self's layout (CSR in, CSR out)."""
    return coo_to_csr(coo) if self.is_sparse_csr else coo


def _check_same_size(op, a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{op}: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                           f"{list(b.shape)}")


def add(self, other, *, alpha=1):
    """self + alpha * other for a sparse self: sparse + sparse is sparse; sparse + dense (or a number)
    is refused as PyTorch refuses it (dense + sparse is dense: rsub_dense/radd)."""
    if not isinstance(other, SparseTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    _check_same_size("add", self, other)
    a, b = as_coo(self), as_coo(other)
    if a.sparse_dim() != b.sparse_dim():
        raise RuntimeError("add: expected 'self' and 'other' to have the same sparse and dense dimensions")
    other_vals = b._vals if alpha == 1 else b._vals * alpha
    target = _C.promote_types(a.dtype, other_vals.dtype)
    vals = _C.cat([a._vals.to(target), other_vals.to(target)])
    summed = make_coo(_C.cat([a._idx, b._idx], 1), vals, a.shape, False)
    # Two coalesced operands give a coalesced sum, as PyTorch's merge does.
    out = coalesce(summed) if (a._coalesced and b._coalesced) else summed
    return _like(self, out)


def sub(self, other, *, alpha=1):
    if not isinstance(other, SparseTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    return add(self, other, alpha=-alpha)


def radd_dense(self, dense, alpha=1):
    """dense + alpha * self: a dense tensor."""
    d = to_dense(self)
    return dense + (d if alpha == 1 else d * alpha)


def rsub_dense(self, dense):
    return dense - to_dense(self)


def neg(self):
    return self._with_values(-self._vals)


def mul(self, other):
    """self * other: by a number (same pattern), by a sparse tensor of the same size (the entries both
    store), or by a dense tensor of the same size (self's pattern, as PyTorch)."""
    if _is_number(other):
        return self._with_values(self._vals * other)
    a = coalesce(as_coo(self))
    if isinstance(other, SparseTensor):
        _check_same_size("mul", self, other)
        b = coalesce(as_coo(other))
        if a.sparse_dim() != b.sparse_dim():
            raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, "
                               "number of sparse dimensions, and shape of sparse dimensions")
        sizes = tuple(a.shape[:a.sparse_dim()])
        la, lb = linearize(a._idx, sizes), linearize(b._idx, sizes)
        if lb.numel() == 0 or la.numel() == 0:
            keep = _C.zeros(la.shape[0], dtype=_C.bool)
            pos = _C.zeros(la.shape[0], dtype=_C.int64)
        else:
            pos = _C.searchsorted(lb, la).clamp(max=lb.numel() - 1)
            keep = lb[pos] == la
        vals = a._vals[keep] * b._vals[pos[keep]]
        return _like(self, make_coo(a._idx[:, keep], vals, a.shape, True))
    if not isinstance(other, _C.TensorBase):
        raise TypeError(f"mul(): expected a number or a tensor, got {type(other).__name__}")
    picked = other.expand(tuple(a.shape))[tuple(a._idx)]  # a dense factor broadcasts to self's shape
    return _like(self, make_coo(a._idx, a._vals * picked, a.shape, True))


def div(self, other, *, rounding_mode=None):
    if not _is_number(other):
        raise not_on_sparse("div.Tensor", self.layout)
    return self._with_values(self._vals.div(other, rounding_mode=rounding_mode))


def to_dtype(self, dtype):
    return self if dtype == self.dtype else self._with_values(self._vals.to(dtype))


def _dims(dim, ndim):
    dims = [dim] if isinstance(dim, builtins.int) else list(dim)
    out = []
    for d in dims:
        if not -ndim <= d < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        out.append(d % ndim)
    return sorted(set(out))


def sparse_sum(self, dim=None, dtype=None):
    """ember.sparse.sum: all entries (a 0-d dense tensor) or over dims. Summing every sparse dim gives a
    dense tensor; summing some gives a sparse one (coalesced)."""
    coo = as_coo(self)
    vals = coo._vals if dtype is None else coo._vals.to(dtype)
    if dim is None:
        return vals.sum()
    dims = _dims(dim, self.dim())
    sd = coo.sparse_dim()
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        vals = vals.sum(dense_dims)
    kept_sparse = [d for d in builtins.range(sd) if d not in dims]
    kept_dense = [s for d, s in enumerate(self.shape) if d >= sd and d not in dims]
    if not kept_sparse:
        return vals.sum(0)
    idx = coo._idx[kept_sparse]
    size = [self.shape[d] for d in kept_sparse] + kept_dense
    return coalesce(make_coo(idx, vals, size, False))


def _groups(coo, dim):
    """Per stored entry, the id of its group: the entries that share every sparse index but dim's."""
    sd = coo.sparse_dim()
    others = [d for d in builtins.range(sd) if d != dim]
    if not others:
        return _C.zeros(coo._nnz(), dtype=_C.int64, device=coo._idx.device), 1
    lin = linearize(coo._idx[others], [coo.shape[d] for d in others])
    uniq, group, _ = _C._unique2(lin, True, True, False)
    return group, uniq.shape[0]


def _softmax(self, dim, dtype, log):
    if not self.is_sparse:
        raise not_on_sparse("_sparse_softmax", self.layout)
    dim = _dims(dim, self.dim())[0]
    coo = coalesce(self)
    vals = coo._vals if dtype is None else coo._vals.to(dtype)
    if dim >= coo.sparse_dim():  # a dense dim: an ordinary softmax inside each entry's values
        d = dim - coo.sparse_dim() + 1
        out = vals.log_softmax(d) if log else vals.softmax(d)
        return make_coo(coo._idx, out, coo.shape, True)
    group, count = _groups(coo, dim)
    shape = (count,) + tuple(vals.shape[1:])
    # Unstored entries count as -inf: each group's max (held constant: softmax is shift invariant).
    peak = _C.zeros(shape, dtype=vals.dtype).index_reduce(0, group, vals.detach(), "amax", include_self=False)
    shifted = vals - peak[group]
    total = _C.zeros(shape, dtype=vals.dtype).index_add(0, group, shifted.exp())
    out = shifted - total.log()[group] if log else shifted.exp() / total[group]
    return make_coo(coo._idx, out, coo.shape, True)


def softmax(input, dim, dtype=None):
    """Softmax over dim among the stored entries (unstored ones are -inf, so they stay unstored)."""
    return _softmax(input, dim, dtype, False)


def log_softmax(input, dim, dtype=None):
    return _softmax(input, dim, dtype, True)


def transpose(self, dim0, dim1):
    """A COO tensor with two sparse dims swapped (uncoalesced, as PyTorch's)."""
    if not self.is_sparse:
        raise NotImplementedError("ember has no CSC layout: transposing a CSR tensor is not supported; use "
                                  "to_sparse_coo() first")
    d0, d1 = (_dims(d, self.dim())[0] for d in (dim0, dim1))
    if d0 == d1:
        return self
    sd = self.sparse_dim()
    if d0 >= sd or d1 >= sd:
        raise NotImplementedError("transposing a dense dim of a hybrid sparse tensor is not supported")
    order = list(builtins.range(sd))
    order[d0], order[d1] = order[d1], order[d0]
    size = list(self.shape)
    size[d0], size[d1] = size[d1], size[d0]
    return make_coo(self._idx[order], self._vals, size, self._nnz() <= 1)


def sparse_mask(self, mask):
    """The dense self's values at mask's stored positions, in mask's layout and pattern."""
    if not isinstance(mask, SparseTensor):
        raise RuntimeError("sparse_mask(): expected mask to be a sparse tensor")
    if tuple(self.shape) != tuple(mask.shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self.shape)} but "
                           f"mask has size {list(mask.shape)}")
    coo = as_coo(mask)
    out = make_coo(coo._idx, self[tuple(coo._idx)], mask.shape, coo._coalesced)
    return coo_to_csr(out) if mask.is_sparse_csr else out
