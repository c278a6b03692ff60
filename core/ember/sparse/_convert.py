"""Making sparse tensors and moving between layouts: sparse_coo_tensor/sparse_csr_tensor with
PyTorch's checks and messages, coalesce (a sort of the linearised indices; duplicates summed),
to_dense, dense -> COO/CSR and COO <-> CSR. All of it is vectorised ember ops on the member tensors,
so gradients reach the values."""
import builtins

from .. import _C
from .._dtype_info import scalar_type_name
from .._ops_shape_extra import repeat_interleave
from .._layout import sparse_coo, sparse_csr, strided
from ._tensor import SparseTensor, make_coo, make_csr

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "coalesce", "to_dense", "dense_to_coo", "dense_to_csr",
           "coo_to_csr", "csr_to_coo", "csr_arrays", "linearize", "to_sparse", "as_coo", "as_layout"]

_INT_MAX = 2 ** 63 - 1


def _as_tensor(x, dtype=None, device=None):
    if isinstance(x, SparseTensor):
        raise TypeError("expected a dense tensor for the indices and values of a sparse tensor")
    if isinstance(x, _C.TensorBase):
        return x if dtype is None and device is None else x.to(device=device, dtype=dtype)
    return _C.as_tensor(x, dtype=dtype, device=device)


def linearize(indices, sizes):
    """Each column of indices (one row per dim of sizes) as its row-major position."""
    lin = indices[-1].clone() if len(sizes) else _C.zeros(indices.shape[1], dtype=_C.int64)
    stride = 1
    for d in builtins.range(len(sizes) - 1, 0, -1):
        stride *= int(sizes[d])
        lin = lin + indices[d - 1] * stride
    return lin


def _unravel(lin, sizes):
    rows, rest = [], lin
    for s in reversed(sizes):
        rows.append(rest % int(s))
        rest = rest.div(int(s), rounding_mode="floor")
    return _C.stack(rows[::-1]) if rows else _C.zeros((0, lin.shape[0]), dtype=_C.int64)


def _check_coo_indices(indices, size, sparse_dim):
    if indices.shape[1] == 0:
        return
    lo, hi = indices.amin(1).tolist(), indices.amax(1).tolist()
    for d in builtins.range(sparse_dim):
        if lo[d] < 0:
            raise RuntimeError(f"found negative index {lo[d]} for dim {d}")
        if hi[d] >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found index "
                               f"{hi[d]}")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """A sparse COO tensor: values (nnz, *dense dims) at indices (sparse_dim, nnz). Unlike PyTorch,
    whose invariant checks are off unless asked for, indices are always checked against size (the
    cost is one min/max over them): out-of-range indices raise PyTorch's check_invariants message."""
    values = _as_tensor(values, dtype, device)
    indices = _as_tensor(indices, device=values.device)
    if indices.dtype != _C.int64:
        indices = indices.to(_C.int64)
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    sparse_dim, nnz = indices.shape
    if values.dim() == 0 or values.shape[0] != nnz:
        got = 1 if values.dim() == 0 else values.shape[0]
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {got}")
    dense_shape = tuple(values.shape[1:])
    if size is None:
        hi = (indices.amax(1) + 1).tolist() if nnz else [0] * sparse_dim
        if nnz and indices.amin().item() < 0:
            raise RuntimeError(f"found negative index {indices.amin().item()} for dim "
                               f"{int((indices.amin(1) < 0).nonzero()[0, 0])}")
        size = tuple(hi) + dense_shape
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + len(dense_shape):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {len(dense_shape)}")
    if tuple(size[sparse_dim:]) != dense_shape:
        raise RuntimeError(f"values has incorrect size, expected {[nnz, *size[sparse_dim:]]}, got "
                           f"{list(values.shape)}")
    _check_coo_indices(indices, size, sparse_dim)
    if requires_grad:
        values = values.detach().requires_grad_()
    # PyTorch trusts is_coalesced=True; so do we (it only allows skipping a coalesce's sort).
    return make_coo(indices, values, size, bool(is_coalesced) or nnz <= 1)


def _check_csr(crow, col, values, size):
    if crow.dtype != col.dtype:
        raise RuntimeError(f"crow_indices and col_indices must have the same dtype, bot got "
                           f"{scalar_type_name(crow.dtype)} and {scalar_type_name(col.dtype)}, respectively")
    if crow.dtype not in (_C.int32, _C.int64):
        raise RuntimeError(f"crow_indices and col_indices must be an int32 or int64 type, but got: "
                           f"{scalar_type_name(crow.dtype)}")
    if crow.dim() != 1 or col.dim() != 1 or values.dim() != 1:
        raise NotImplementedError("ember's sparse_csr_tensor takes 1-d crow_indices, col_indices and values (one "
                                  "matrix: no batch or dense dimensions)")
    if len(size) != 2:
        raise RuntimeError(f"tensor dimensionality must be sum of batch, base, and dense dimensionalities (=0 + 2 + 0) "
                           f"but got {len(size)}")
    nrows, ncols = size
    if crow.shape[0] != nrows + 1:
        raise RuntimeError(f"crow_indices.shape[-1] must be equal to the number of rows + 1 (={nrows + 1}), but got "
                           f"{crow.shape[0]}")
    nnz = values.shape[0]
    if col.shape[0] != nnz:
        raise RuntimeError(f"col_indices.shape[-1] must be equal to nnz (={nnz}) as defined by values.shape[0], but "
                           f"got {col.shape[0]}")
    if crow[0].item() != 0:
        raise RuntimeError("`crow_indices[..., 0] == 0` is not satisfied.")
    if crow[-1].item() != nnz:
        raise RuntimeError("`crow_indices[..., -1] == nnz` is not satisfied.")
    steps = crow[1:] - crow[:-1]
    if nrows and (steps.amin().item() < 0 or steps.amax().item() > ncols):
        raise RuntimeError("`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.")
    if nnz and (col.amin().item() < 0 or col.amax().item() >= ncols):
        raise RuntimeError("`0 <= col_indices < ncols` is not satisfied.")
    rows = repeat_interleave(_C.arange(nrows), steps.to(_C.int64))
    if nnz > 1 and bool(((rows[1:] == rows[:-1]) & (col[1:] <= col[:-1])).any()):
        raise RuntimeError("`col_indices[..., crow_indices[..., i - 1]:crow_indices[..., i]] for all i = 1, ..., "
                           "nrows are sorted and distinct along the last dimension values` is not satisfied.")


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None):
    """A sparse CSR matrix: row i's entries are values[crow[i]:crow[i+1]] in columns col[crow[i]:crow[i+1]].
    The invariants are always checked (PyTorch checks them only when asked)."""
    values = _as_tensor(values, dtype, device)
    crow = _as_tensor(crow_indices, device=values.device)
    col = _as_tensor(col_indices, device=values.device)
    if size is None:
        if crow.dim() != 1 or col.dim() != 1:
            raise NotImplementedError("ember's sparse_csr_tensor takes 1-d crow_indices and col_indices")
        size = (crow.shape[0] - 1, int(col.amax().item()) + 1 if col.numel() else 0)
    size = tuple(int(s) for s in size)
    _check_csr(crow, col, values, size)
    if requires_grad:
        values = values.detach().requires_grad_()
    return make_csr(crow, col, values, size)


def coalesce(self):
    """The COO tensor with sorted, distinct indices (duplicates' values summed); self when it is already."""
    self._require(sparse_coo, "coalesce")
    if self._coalesced:
        return self
    idx, vals = self._idx, self._vals
    sizes = tuple(self.shape[:idx.shape[0]])
    if idx.shape[0] == 0:  # no sparse dims: every entry is the one position
        out_vals = vals.sum(0, keepdim=True)
        return make_coo(_C.zeros((0, 1), dtype=_C.int64, device=idx.device), out_vals, self.shape, True)
    lin = linearize(idx, sizes)
    uniq, inverse, _ = _C._unique2(lin, True, True, False)
    summed = _C.zeros((uniq.shape[0],) + tuple(vals.shape[1:]), dtype=vals.dtype, device=vals.device)
    summed = summed.index_add(0, inverse, vals)
    return make_coo(_unravel(uniq, sizes), summed, self.shape, True)


def csr_to_coo(self):
    rows = repeat_interleave(_C.arange(self.shape[0], device=self._crow.device),
                                (self._crow[1:] - self._crow[:-1]).to(_C.int64))
    indices = _C.stack([rows, self._col.to(_C.int64)])
    return make_coo(indices, self._vals, self.shape, True)


def as_coo(self):
    return csr_to_coo(self) if self.is_sparse_csr else self


def to_dense(self, dtype=None, *, masked_grad=None):
    """The dense tensor: zeros where nothing is stored, duplicates summed."""
    if not isinstance(self, SparseTensor):
        return self if dtype is None else self.to(dtype)
    coo = as_coo(self)
    idx, vals = coo._idx, coo._vals
    sd = idx.shape[0]
    sparse_sizes = tuple(self.shape[:sd])
    count = 1
    for s in sparse_sizes:
        count *= s
    flat = _C.zeros((count,) + tuple(vals.shape[1:]), dtype=vals.dtype, device=vals.device)
    flat = flat.index_add(0, linearize(idx, sparse_sizes), vals)
    out = flat.reshape(tuple(self.shape))
    return out if dtype is None else out.to(dtype)


def dense_to_coo(x, sparse_dim=None):
    """The COO form of a dense tensor: the nonzero positions of its first sparse_dim dims (a position is
    kept when any of its dense trailing elements is nonzero)."""
    sd = x.dim() if sparse_dim is None else int(sparse_dim)
    if not 0 <= sd <= x.dim():
        raise RuntimeError(f"sparse_dim must be in [0, {x.dim()}], got {sd}")  # PyTorch's range (0 allowed)
    if sd == 0:
        return make_coo(_C.zeros((0, 1), dtype=_C.int64, device=x.device), x.unsqueeze(0), x.shape, True)
    mask = x != 0
    if sd < x.dim():
        mask = mask.flatten(sd).any(sd)
    indices = mask.nonzero().t().contiguous()
    values = x[tuple(indices)]
    return make_coo(indices, values, x.shape, True)


def csr_arrays(coo):
    """(crow, col, values) of a 2-d COO tensor with no dense dims, coalescing it first."""
    c = coalesce(coo)
    if c.__dict__.get("_csr_cache") is None:
        rows = c._idx[0]
        counts = _C.bincount(rows, minlength=c.shape[0]) if rows.numel() else _C.zeros(c.shape[0], dtype=_C.int64)
        crow = _C.cat([_C.zeros(1, dtype=_C.int64, device=rows.device), counts.cumsum(0)])
        c.__dict__["_csr_cache"] = (crow, c._idx[1])
    crow, col = c._csr_cache
    return crow, col, c._vals


def coo_to_csr(self):
    if self.dim() != 2 or self.dense_dim() != 0:
        raise NotImplementedError(f"ember converts only 2-d COO tensors without dense dims to CSR, got sparse_dim="
                                  f"{self.sparse_dim()} and dense_dim={self.dense_dim()}")
    crow, col, vals = csr_arrays(self)
    return make_csr(crow, col, vals, self.shape)


def dense_to_csr(x):
    if x.dim() != 2:
        raise NotImplementedError(f"ember converts only 2-d tensors to CSR (no batch dims), got a {x.dim()}-d tensor")
    return coo_to_csr(dense_to_coo(x))


def as_layout(self, layout):
    if layout is None or layout is sparse_coo:
        return as_coo(self) if isinstance(self, SparseTensor) else dense_to_coo(self)
    if layout is sparse_csr:
        if not isinstance(self, SparseTensor):
            return dense_to_csr(self)
        return self if self.is_sparse_csr else coo_to_csr(self)
    if layout is strided:
        return to_dense(self)
    raise NotImplementedError(f"to_sparse(): the layout {layout} is not supported")


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse(sparse_dim) or to_sparse(layout=...): the tensor in a sparse layout."""
    if blocksize is not None:
        raise NotImplementedError("ember has no block-sparse (BSR/BSC) layouts")
    if sparse_dim is not None:
        if layout is not None:
            raise RuntimeError("to_sparse: sparse_dim and layout cannot both be given")
        if isinstance(self, SparseTensor):
            if self.is_sparse and sparse_dim == self.sparse_dim():
                return self
            return dense_to_coo(to_dense(self), sparse_dim)
        return dense_to_coo(self, sparse_dim)
    return as_layout(self, layout)
