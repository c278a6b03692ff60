"""Sparse gradients: a leaf's .grad may hold a sparse COO tensor (F.embedding(sparse=True)'s, as in PyTorch).
The C++ engine accumulates dense gradients only, so a sparse gradient is kept beside the C++ one
(`_sparse_grad`) and Tensor.grad reads and writes both; a dense gradient arriving for a tensor that holds a
sparse one is merged into a dense sum, as PyTorch's accumulation gives. Also here: what optimizers do with
a sparse gradient (a dense tensor's add_/add of one; a sparse tensor's in-place mul_, add_ and zero_)."""
import numbers

from .. import _C
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn import _embedding_grad
from ..overrides import _tensor_torch_function
from . import _ops
from ._tensor import SparseTensor, make_coo, on_first_sparse_tensor

__all__ = ["accumulate_sparse_grad"]

_dense_grad = _C.TensorBase.grad  # the C++ getset descriptor


def _check_assignable(tensor, g):
    """PyTorch's checks for `tensor.grad = g` (its messages), for a sparse g."""
    if g.dtype != tensor.dtype:
        raise RuntimeError(f"attempting to assign a gradient with dtype '{g.dtype}' to a tensor with dtype "
                           f"'{tensor.dtype}'. Please ensure that the gradient and the tensor have the same dtype")
    if g.device != tensor.device:
        raise RuntimeError(f"attempting to assign a gradient with device type '{g.device.type}' to a tensor with "
                           f"device type '{tensor.device.type}'. Please ensure that the gradient and the tensor are "
                           f"on the same device")
    if tuple(g.shape) != tuple(tensor.shape):
        raise RuntimeError(f"attempting to assign a gradient of size '{list(g.shape)}' to a tensor of size "
                           f"'{list(tensor.shape)}'. Please ensure that the gradient and the tensor are the same size")
    if not g.is_sparse:
        raise RuntimeError("a sparse gradient must be in the sparse COO layout")


def _get_grad(self):
    sparse = self._sparse_grad
    dense = _dense_grad.__get__(self)
    if sparse is None:
        return dense
    if dense is None:
        return sparse
    # A dense gradient came through the graph after the sparse one: their sum is dense.
    with no_grad():
        dense.add_(sparse)
    self._sparse_grad = None
    return dense


def _set_grad(self, value):
    if isinstance(value, SparseTensor):
        _check_assignable(self, value)
        _dense_grad.__set__(self, None)
        self._sparse_grad = value
        return
    if self._sparse_grad is not None:
        self._sparse_grad = None
    _dense_grad.__set__(self, value)


def _del_grad(self):
    _set_grad(self, None)


def _install_sparse_grad():
    Tensor._sparse_grad = None  # the class default: no instance dict is made for tensors without one
    Tensor.grad = property(_get_grad, _set_grad, _del_grad, _dense_grad.__doc__)


# The Python property costs ~120 ns per .grad read over the C++ attribute: installed only once a sparse
# tensor exists (a gradient cannot be sparse before).
on_first_sparse_tensor.append(_install_sparse_grad)


def _embedding_sparse_grad(indices, rows, shape):
    return make_coo(indices, rows, shape, False)


def accumulate_sparse_grad(leaf, g):
    """leaf.grad += g for a sparse COO g, as PyTorch's AccumulateGrad: the first gradient is kept as it is,
    sparse + sparse concatenates the entries (uncoalesced), and a dense gradient takes the sparse one in."""
    with no_grad():
        dense = _dense_grad.__get__(leaf)
        if dense is not None:
            dense.add_(g)
        elif getattr(leaf, "_sparse_grad", None) is None:
            leaf._sparse_grad = g
        else:
            leaf._sparse_grad = _ops.add(leaf._sparse_grad, g)


# --- dense tensors given a sparse operand --------------------------------------------------------------
def _scatter_add_(dense, sparse, alpha):
    """dense += alpha * sparse by its entries (duplicates summed), without making sparse dense."""
    if tuple(dense.shape) != tuple(sparse.shape):
        raise RuntimeError(f"add_: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(dense.shape)} while other has size {list(sparse.shape)} (FYI: op2-sparse "
                           f"addition does not currently support broadcasting)")
    coo = sparse if sparse.is_sparse else sparse.to_sparse_coo()
    vals = coo._vals if alpha == 1 else coo._vals * alpha
    dense.index_put_(tuple(coo._idx.unbind(0)), vals.to(dense.dtype), accumulate=True)
    return dense


def _dense_add_(self, other, *, alpha=1):
    if isinstance(self, SparseTensor):
        return _sparse_add_(self, other, alpha=alpha)
    return _scatter_add_(self, other, alpha)


def _dense_add(self, other, *, alpha=1, out=None):
    if isinstance(self, SparseTensor):
        return _ops.add(self, other, alpha=alpha)
    if out is not None:
        raise NotImplementedError("add(dense, sparse, out=) is not supported")
    result_dtype = _C.promote_types(self.dtype, other.dtype)
    return _scatter_add_(self.to(result_dtype, copy=True), other, alpha)


_DENSE_WITH_SPARSE = {_C.TensorBase.add_: _dense_add_, _C.TensorBase.add: _dense_add, _C.add: _dense_add}


def _sparse_torch_function(cls, func, types, args=(), kwargs=None):
    handler = _DENSE_WITH_SPARSE.get(func)
    if handler is not None:
        return handler(*args, **(kwargs or {}))
    return _tensor_torch_function(cls, func, types, args, kwargs)


SparseTensor.__torch_function__ = classmethod(_sparse_torch_function)


# --- a sparse tensor's in-place arithmetic (an optimizer's momentum buffer) ----------------------------
def _replace(self, other):
    """self takes other's members (both COO): the in-place forms' result."""
    d = self.__dict__
    d["_idx"], d["_vals"], d["_coalesced"], d["_csr_cache"] = other._idx, other._vals, other._coalesced, None
    return self


def _require_coo(self, op):
    if not self.is_sparse:
        raise NotImplementedError(f"Could not run 'aten::{op}' with arguments from the 'SparseCsrCPU' backend.")


def _sparse_mul_(self, other):
    _require_coo(self, "mul_")
    if not isinstance(other, numbers.Number):
        return _replace(self, _ops.mul(self, other))
    self._vals.mul_(other)
    return self


def _sparse_add_(self, other, *, alpha=1):
    _require_coo(self, "add_")
    return _replace(self, _ops.add(self, other, alpha=alpha))


def _sparse_zero_(self):
    """No entries left (PyTorch's zero_ of a sparse tensor), the dims and dtype kept."""
    _require_coo(self, "zero_")
    idx = _C.empty([self._idx.shape[0], 0], dtype=_C.int64)
    vals = _C.empty([0] + list(self._vals.shape[1:]), dtype=self._vals.dtype)
    return _replace(self, make_coo(idx, vals, self.shape, True))


SparseTensor.mul_ = _sparse_mul_
SparseTensor.add_ = _sparse_add_
SparseTensor.zero_ = _sparse_zero_
SparseTensor.__iadd__ = _sparse_add_


_embedding_grad.sparse_hooks.update(make_coo=_embedding_sparse_grad, accumulate=accumulate_sparse_grad)
