"""Resizing a sparse COO tensor in place (sparse_resize_, sparse_resize_and_clear_, resize_as_sparse_) with PyTorch's
rules: a tensor with entries may only grow, keeping its numbers of sparse and dense dims; an empty one takes any
size. Also the sparse accessors on a dense tensor (coalesce, indices, values, ...), which raise PyTorch's errors."""
from .. import _C
from .._tensor import Tensor
from ._tensor import SparseTensor, make_coo, not_on_sparse

__all__ = ["resize_as_sparse_"]

_ADVICE = ("on a non-empty sparse tensor is not supported.\nYou could try the following options:\n1. If you need an "
           "empty sparse tensor of this size, call `x = torch.sparse_coo_tensor(size)`.\n2. If you need to resize "
           "this tensor, you have the following options:\n    1. For both sparse and dense dimensions, keep the "
           "number of them constant and the size of them non-shrinking, and then try the same call again.\n    2. Or, "
           "create a new sparse tensor with the correct indices and values from this sparse tensor.")


def _not_on_dense(op, t=None):
    if isinstance(t, SparseTensor):  # a CSR tensor
        return not_on_sparse(op, t.layout)
    return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the 'CPU' backend. This could be "
                               f"because the operator doesn't exist for this backend.")


def _check_dims(size, sparse_dim, dense_dim):
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")


def _set(self, idx, vals, size, coalesced):
    new = make_coo(idx, vals, size, coalesced)
    self.__dict__.update({k: new.__dict__[k] for k in ("_idx", "_vals", "_coalesced", "_csr_cache")})
    _C.TensorBase._resize_(self, list(size))  # the data-less C++ part holds the shape
    return self


def sparse_resize_(self, size, sparse_dim, dense_dim):
    if not isinstance(self, SparseTensor) or not self.is_sparse:
        raise _not_on_dense("sparse_resize_", self)
    size = tuple(int(s) for s in size)
    _check_dims(size, sparse_dim, dense_dim)
    old_sparse, old_dense = self.sparse_dim(), self.dense_dim()
    vals = self._vals
    if self._nnz() > 0:
        for what, old, new in (("sparse", old_sparse, sparse_dim), ("dense", old_dense, dense_dim)):
            if old != new:
                raise RuntimeError(f"changing the number of {what} dimensions (from {old} to {new}) {_ADVICE}")
        for what, old, new in (("sparse", self.shape[:old_sparse], size[:sparse_dim]),
                               ("dense", self.shape[old_sparse:], size[sparse_dim:])):
            if any(n < o for o, n in zip(old, new)):
                raise RuntimeError(f"shrinking the size of {what} dimensions (from {list(old)} to {list(new)}) "
                                   f"{_ADVICE}")
        grown = [n - o for o, n in zip(self.shape[old_sparse:], size[sparse_dim:])]
        if any(grown):  # larger dense dims: the new value slots are zeros (PyTorch leaves them unset)
            vals = _pad(vals, grown)
        return _set(self, self._idx, vals, size, self._coalesced)
    idx = _C.empty([sparse_dim, 0], dtype=_C.int64)
    return _set(self, idx, _C.empty([0] + list(size[sparse_dim:]), dtype=vals.dtype), size, True)


def _pad(vals, grown):
    """vals (nnz, *dense dims) with each dense dim grown by zeros at its end."""
    out = _C.zeros([vals.shape[0]] + [n + g for n, g in zip(vals.shape[1:], grown)], dtype=vals.dtype)
    out[tuple([slice(None)] + [slice(0, n) for n in vals.shape[1:]])] = vals
    return out


def sparse_resize_and_clear_(self, size, sparse_dim, dense_dim):
    if not isinstance(self, SparseTensor) or not self.is_sparse:
        raise _not_on_dense("sparse_resize_and_clear_", self)
    size = tuple(int(s) for s in size)
    _check_dims(size, sparse_dim, dense_dim)
    idx = _C.empty([sparse_dim, 0], dtype=_C.int64)
    return _set(self, idx, _C.empty([0] + list(size[sparse_dim:]), dtype=self.dtype), size, True)


def resize_as_sparse_(self, the_template):
    """self resized (sparse_resize_) to the template's size and sparse/dense dims."""
    if not isinstance(self, SparseTensor) or not self.is_sparse:
        raise _not_on_dense("resize_as_sparse_", self)
    return sparse_resize_(self, the_template.shape, the_template.sparse_dim(), the_template.dense_dim())


def _layout_error(op, want):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{op} expected {want} tensor layout but got Strided")
    refuse.__name__ = op
    return refuse


for _name, _fn in (("sparse_resize_", sparse_resize_), ("sparse_resize_and_clear_", sparse_resize_and_clear_),
                   ("resize_as_sparse_", resize_as_sparse_)):
    setattr(SparseTensor, _name, _fn)
    setattr(Tensor, _name, _fn)
for _name, _want in (("coalesce", "sparse coordinate"), ("indices", "sparse coordinate"),
                     ("is_coalesced", "sparse coordinate"), ("values", "sparse"),
                     ("crow_indices", "sparse row compressed"), ("col_indices", "sparse row compressed")):
    setattr(Tensor, _name, _layout_error(_name, _want))
