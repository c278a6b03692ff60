"""ember.sparse: sparse COO and CSR tensors (PyTorch's torch.sparse): construction, layouts, coalescing,
products with dense matrices on C++ CSR kernels (with gradients), sums, softmax and elementwise
arithmetic. The tensor type itself is in _tensor.py; this module gathers the operations onto it."""
from .. import _C
from .._layout import sparse_csr, strided
from .._tensor import Tensor
from . import _convert, _grad, _matmul, _ops  # noqa: F401  (_grad: sparse gradients of dense leaves)
from ._resize import resize_as_sparse_  # noqa: F401  (also the in-place resizes and dense tensors' sparse accessors)
from ._convert import sparse_coo_tensor, sparse_csr_tensor
from ._legacy import *  # noqa: F401,F403  (FloatTensor ... BoolTensor)
from ._tensor import SparseTensor, not_on_sparse

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "spmm", "sparse_coo_tensor", "sparse_csr_tensor",
           "SparseTensor"]


def mm(mat1, mat2, reduce="sum"):
    """The product of a sparse (COO or CSR) matrix with a dense one, a dense result; the gradient
    w.r.t. the sparse operand keeps its pattern."""
    if reduce != "sum":
        raise NotImplementedError(f"ember.sparse.mm: reduce={reduce!r} is not supported (only 'sum')")
    return _matmul.sparse_mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * mat + alpha * (mat1 @ mat2) for a sparse mat1."""
    return _matmul.sparse_addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):  # noqa: A001  (PyTorch's name)
    """The sum of a sparse tensor's entries: all of them (a 0-d tensor) or over dims."""
    return _ops.sparse_sum(input, dim, dtype)


softmax, log_softmax = _ops.softmax, _ops.log_softmax
spmm = mm


# --- the sparse tensor's operations ---------------------------------------------------------------
def _coalesce(self):
    return _convert.coalesce(self)


def _method_sum(self, dim=None, keepdim=False, dtype=None):
    if keepdim:
        raise NotImplementedError("sum(keepdim=True) is not supported for sparse tensors")
    return _ops.sparse_sum(self, dim, dtype)


def _to(self, *args, **kwargs):
    dtype = kwargs.pop("dtype", None)
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif not (isinstance(a, (str, _C.device)) and _C.device(a).type == "cpu"):
            raise NotImplementedError(f"to(): sparse tensors live on the cpu only here, got {a!r}")
    if kwargs.get("device") is not None and _C.device(kwargs["device"]).type != "cpu":
        raise NotImplementedError("to(): sparse tensors live on the cpu only here")
    return self if dtype is None else _ops.to_dtype(self, dtype)


def _binary(fn):
    def method(self, other, *args, **kwargs):
        return fn(self, other, *args, **kwargs)
    return method


def _rsub(self, other):
    if isinstance(other, SparseTensor):
        return _ops.sub(other, self)
    if isinstance(other, _C.TensorBase):
        return _ops.rsub_dense(self, other)
    raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")


def _radd(self, other):
    if isinstance(other, _C.TensorBase) and not isinstance(other, SparseTensor):
        return _ops.radd_dense(self, other)
    raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")


def _rmatmul(self, other):
    return _matmul.dense_mm_sparse(other, self)


def _t(self):
    if self.dim() < 2:
        return self
    return _ops.transpose(self, 0, 1)


_SPARSE_METHODS = {
    "coalesce": _coalesce,
    "to_dense": _convert.to_dense,
    "to_sparse": _convert.to_sparse,
    "to_sparse_coo": lambda self: _convert.as_coo(self),
    "to_sparse_csr": lambda self, dense_dim=None: _convert.as_layout(self, sparse_csr),
    "add": _binary(_ops.add), "__add__": _binary(_ops.add), "sub": _binary(_ops.sub), "__sub__": _binary(_ops.sub),
    "__radd__": _radd, "__rsub__": _rsub,
    "mul": _binary(_ops.mul), "__mul__": _binary(_ops.mul), "__rmul__": _binary(_ops.mul),
    "div": _binary(_ops.div), "__truediv__": _binary(_ops.div),
    "neg": _ops.neg, "__neg__": _ops.neg,
    "mm": lambda self, mat2: _matmul.sparse_mm(self, mat2),
    "matmul": lambda self, other: _matmul.matmul(self, other), "__matmul__": lambda self, o: _matmul.matmul(self, o),
    "__rmatmul__": _rmatmul,
    "sum": _method_sum,
    "t": _t, "transpose": _ops.transpose,
    "to": _to, "double": lambda self: _ops.to_dtype(self, _C.float64),
    "float": lambda self: _ops.to_dtype(self, _C.float32),
    "type_as": lambda self, other: _ops.to_dtype(self, other.dtype),
    "cpu": lambda self: self,
}
for _name, _fn in _SPARSE_METHODS.items():
    setattr(SparseTensor, _name, _fn)

# Every other Tensor method or operator would run on the data-less meta part: each raises PyTorch's
# "no kernel for this backend" error instead. Attributes that only read shape/dtype stay.
_SHAPE_ONLY = {"size", "dim", "ndimension", "numel", "nelement", "element_size", "is_floating_point", "is_complex",
               "is_signed", "__len__", "__class__", "__init__", "__new__", "__init_subclass__", "__subclasshook__",
               "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__sizeof__", "__hash__", "__format__",
               "__str__", "__repr__", "__class_getitem__",
               # inherited: a binding given a sparse argument runs under it and its parser refuses the
               # sparse tensor naming the op (a guard here named every op 'torch_function')
               "__torch_function__"}
# Properties that would read the meta part's (absent) data or return it as a dense tensor.
_DATA_PROPERTIES = ("T", "mT", "H", "mH", "data", "real", "imag", "_base", "retains_grad", "output_nr")


def _guard(name):
    op = name.strip("_") or name

    def refuse(self, *args, **kwargs):
        raise not_on_sparse(op, self.layout)
    refuse.__name__ = name
    return refuse


for _name in dir(Tensor):
    if _name in _SHAPE_ONLY or _name in SparseTensor.__dict__:
        continue
    _attr = getattr(Tensor, _name, None)
    if callable(_attr) and not isinstance(_attr, type):
        setattr(SparseTensor, _name, _guard(_name))
for _name in _DATA_PROPERTIES:
    if _name not in SparseTensor.__dict__:
        setattr(SparseTensor, _name, property(_guard(_name)))
SparseTensor.__hash__ = Tensor.__hash__  # setting __eq__ above would otherwise drop it
SparseTensor.__bool__ = _guard("is_nonzero")


# --- the dense tensor's side ------------------------------------------------------------------------
Tensor.layout = property(lambda self: strided)
Tensor.is_sparse = property(lambda self: False)
Tensor.is_sparse_csr = property(lambda self: False)
Tensor.to_dense = _convert.to_dense
Tensor.to_sparse = _convert.to_sparse
Tensor.to_sparse_coo = lambda self: _convert.dense_to_coo(self)
Tensor.to_sparse_csr = lambda self, dense_dim=None: _convert.dense_to_csr(self)
Tensor.sparse_mask = _ops.sparse_mask
Tensor.sparse_dim = lambda self: 0
Tensor.dense_dim = lambda self: self.dim()
