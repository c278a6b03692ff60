"""The sparse tensor: an ember.Tensor whose C++ part is a data-less meta tensor of its shape and dtype (so
shape, dtype, dim() and isinstance behave as for any tensor) and whose contents live in dense member
tensors: COO's indices (sparse_dim, nnz) and values (nnz, *dense dims), or CSR's crow/col indices
and values. Gradients reach the values through ordinary recorded ops on these members; a dense op
that is not sparse-aware raises NotImplementedError naming the op, as PyTorch's dispatcher does."""
from .. import _C
from .._layout import sparse_coo, sparse_csr
from .._tensor import Tensor

__all__ = ["SparseTensor", "make_coo", "make_csr", "not_on_sparse"]

_LAYOUT_NAMES = {sparse_coo: "Sparse", sparse_csr: "SparseCsr"}


def not_on_sparse(op, layout):
    """PyTorch's error for an op with no kernel for a sparse layout."""
    backend = "SparseCPU" if layout is sparse_coo else "SparseCsrCPU"
    return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could "
                               f"be because the operator doesn't exist for this backend.")


# Called once, when the first sparse tensor is made (_grad.py's: Tensor.grad learns sparse gradients only then, so
# programs without sparse tensors keep the C++ attribute's speed).
on_first_sparse_tensor = []


def _new(layout, size, values, **members):
    while on_first_sparse_tensor:
        on_first_sparse_tensor.pop()()
    size = tuple(int(s) for s in size)
    t = _C._make_subclass(SparseTensor, _C.empty(size, dtype=values.dtype, device="meta"), False)
    d = t.__dict__
    d["_layout"], d["_vals"] = layout, values
    d.update(members)
    return t


def make_coo(indices, values, size, coalesced):
    """A COO tensor over these members (no checks: callers validate or build valid members)."""
    return _new(sparse_coo, size, values, _idx=indices, _coalesced=bool(coalesced), _csr_cache=None)


def make_csr(crow, col, values, size):
    return _new(sparse_csr, size, values, _crow=crow, _col=col)


def _layout_name(t):
    return _LAYOUT_NAMES.get(t.layout, "Strided")


class SparseTensor(Tensor):
    """A tensor in the sparse COO or CSR layout (see the module docstring); `type(t)` is this
    subclass of ember.Tensor, where PyTorch reports torch.Tensor itself."""

    _repr_as_tensor = True

    def __new__(cls, *args, **kwargs):
        raise TypeError("sparse tensors are made by ember.sparse_coo_tensor, ember.sparse_csr_tensor or to_sparse()")

    # --- what a sparse tensor is -------------------------------------------------------------------
    layout = property(lambda self: self._layout)
    is_sparse = property(lambda self: self._layout is sparse_coo)
    is_sparse_csr = property(lambda self: self._layout is sparse_csr)
    device = property(lambda self: self._vals.device)
    is_meta = property(lambda self: False)
    is_cpu = property(lambda self: self._vals.is_cpu)

    def get_device(self):
        return self._vals.get_device()

    def is_contiguous(self, memory_format=None):
        return False

    def stride(self, dim=None):
        raise RuntimeError(f"Sparse{'' if self.is_sparse else 'Csr'} tensors do not have strides")

    def sparse_dim(self):
        return self._idx.shape[0] if self.is_sparse else 2

    def dense_dim(self):
        return self._vals.dim() - 1  # values are (nnz, *dense dims) in both layouts

    def _nnz(self):
        return self._vals.shape[0]

    def _values(self):
        self._require(sparse_coo, "_values")
        return self._vals

    def _indices(self):
        self._require(sparse_coo, "_indices")
        return self._idx

    def values(self):
        if self.is_sparse and not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def indices(self):
        self._require(sparse_coo, "indices")
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def crow_indices(self):
        self._require(sparse_csr, "crow_indices")
        return self._crow

    def col_indices(self):
        self._require(sparse_csr, "col_indices")
        return self._col

    def is_coalesced(self):
        self._require(sparse_coo, "is_coalesced")
        return self._coalesced

    def _require(self, layout, op):
        if self._layout is not layout:
            want = "sparse coordinate" if layout is sparse_coo else "sparse row compressed"
            raise RuntimeError(f"{op} expected {want} tensor layout but got {_layout_name(self)}")

    # --- autograd: through the values --------------------------------------------------------------
    requires_grad = property(lambda self: self._vals.requires_grad)
    is_leaf = property(lambda self: self._vals.is_leaf)
    grad_fn = property(lambda self: self._vals.grad_fn)

    def requires_grad_(self, requires_grad=True):
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def grad(self):
        g = self._vals.grad
        if g is None:
            return None
        return self._with_values(g)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise RuntimeError("a sparse tensor's grad can only be reset to None here")
        self._vals.grad = None

    def detach(self):
        return self._with_values(self._vals.detach())

    def clone(self, *, memory_format=None):
        return self._with_values(self._vals.clone())

    def _with_values(self, values):
        """This tensor's pattern (shared index tensors) with other values of the same shape."""
        if self.is_sparse:
            t = make_coo(self._idx, values, self.shape, self._coalesced)
            t.__dict__["_csr_cache"] = self._csr_cache
            return t
        return make_csr(self._crow, self._col, values, self.shape)

    # --- conversions that cannot be dense ------------------------------------------------------------
    def numpy(self, *, force=False):
        raise TypeError(f"can't convert {_layout_name(self)} layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def tolist(self):
        raise RuntimeError("tolist() is not supported for sparse tensors; call to_dense() first")

    def item(self):
        raise not_on_sparse("_local_scalar_dense", self._layout)

    def __repr__(self, *, tensor_contents=None):
        from ._format import sparse_repr
        return sparse_repr(self)


# The ops' argument parsers refuse instances of this class (PyTorch's "no kernel for this backend").
_C._set_sparse_tensor_class(SparseTensor)
