"""ember.mm / matmul / addmm, and the sparse constructors, at the top level: a sparse operand goes to
ember.sparse's products, anything else straight to the dense op (one type check of overhead)."""
from .. import _C
from . import _matmul
from ._tensor import SparseTensor

__all__ = ["mm", "matmul", "addmm", "spmm"]

_dense_mm, _dense_matmul, _dense_addmm = _C.mm, _C.matmul, _C.addmm


def _no_out(op, out):
    if out is not None:
        raise NotImplementedError(f"{op}(): out= is not supported with a sparse operand")


def mm(input, mat2, *, out=None):
    if type(input) is SparseTensor or type(mat2) is SparseTensor:
        _no_out("mm", out)
        return _matmul.sparse_mm(input, mat2)
    return _dense_mm(input, mat2) if out is None else _dense_mm(input, mat2, out=out)


def matmul(input, other, *, out=None):
    if type(input) is SparseTensor:
        _no_out("matmul", out)
        return _matmul.matmul(input, other)
    if type(other) is SparseTensor:
        _no_out("matmul", out)
        return _matmul.dense_mm_sparse(input, other)
    return _dense_matmul(input, other) if out is None else _dense_matmul(input, other, out=out)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if type(mat1) is SparseTensor:
        _no_out("addmm", out)
        return _matmul.sparse_addmm(input, mat1, mat2, beta=beta, alpha=alpha)
    return _dense_addmm(input, mat1, mat2, beta=beta, alpha=alpha, out=out)


def spmm(input, mat2):
    """PyTorch's torch.spmm: sparse (or dense) @ dense."""
    return _matmul.sparse_mm(input, mat2)


for _f, _dense in ((mm, _dense_mm), (matmul, _dense_matmul), (addmm, _dense_addmm)):
    _f.__doc__ = (_dense.__doc__ or "") + "\n\nA sparse (COO or CSR) first operand runs ember.sparse.mm."
