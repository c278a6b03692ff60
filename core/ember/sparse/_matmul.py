"""Sparse @ dense products on the CSR kernels (core/csrc/kernels/cpu/sparse_csr.cpp): sparse.mm, addmm,
and mm/matmul/@ with a sparse operand. A COO matrix is coalesced (a sort) and read as CSR (its row
pointers are cached on the coalesced tensor). Gradients: to the dense operand through the transposed
pattern's product, to the sparse values at their stored entries only (SDDMM), so a sparse leaf's
gradient is sparse with its own pattern, as PyTorch's sparse.mm gives."""
from .. import _C
from .._dtype_info import scalar_type_name
from ..autograd.function import Function
from ._convert import csr_arrays
from ._ops import transpose
from ._tensor import SparseTensor

__all__ = ["sparse_mm", "sparse_addmm", "matmul", "dense_mm_sparse"]


class _CsrMatmul(Function):
    """values (nnz,) of a CSR pattern (crow, col) with ncols columns, times dense (ncols, n). The
    backward is made of these two Functions again, so gradients of gradients are right too."""

    @staticmethod
    def forward(ctx, values, crow, col, dense, ncols):
        ctx.save_for_backward(values, crow, col, dense)
        ctx.ncols = ncols
        return _C._sparse_csr_mm(values, crow, col, dense)

    @staticmethod
    def backward(ctx, grad):
        values, crow, col, dense = ctx.saved_tensors
        grad_values = grad_dense = None
        if ctx.needs_input_grad[0]:
            grad_values = _CsrSampledDot.apply(grad, crow, col, dense, ctx.ncols)
        if ctx.needs_input_grad[3]:
            crow_t, col_t, perm = _C._sparse_csr_transpose(crow, col, ctx.ncols)
            grad_dense = _CsrMatmul.apply(values[perm], crow_t, col_t, grad, crow.shape[0] - 1)
        return grad_values, None, None, grad_dense, None


class _CsrSampledDot(Function):
    """out[k] = a[row_k] . b[col_k] over the stored entries k of a CSR pattern (SDDMM)."""

    @staticmethod
    def forward(ctx, a, crow, col, b, ncols):
        ctx.save_for_backward(a, crow, col, b)
        ctx.ncols = ncols
        return _C._sparse_csr_sddmm(a, crow, col, b)

    @staticmethod
    def backward(ctx, grad):
        a, crow, col, b = ctx.saved_tensors
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:  # row r gets sum_k grad_k * b[col_k]: the product with grad as values
            grad_a = _CsrMatmul.apply(grad, crow, col, b, ctx.ncols)
        if ctx.needs_input_grad[3]:  # column c gets sum_k grad_k * a[row_k]: the transpose's product
            crow_t, col_t, perm = _C._sparse_csr_transpose(crow, col, ctx.ncols)
            grad_b = _CsrMatmul.apply(grad[perm], crow_t, col_t, a, crow.shape[0] - 1)
        return grad_a, None, None, grad_b, None


def _check_operands(sparse, dense, op):
    if sparse.dim() != 2 or sparse.dense_dim() != 0:
        raise RuntimeError(f"{op}: expected a 2-D sparse matrix without dense dims, got a {sparse.dim()}-D tensor "
                           f"with {sparse.dense_dim()} dense dims")
    if isinstance(dense, SparseTensor):
        raise NotImplementedError(f"{op}: ember multiplies a sparse matrix by a dense one only (sparse @ sparse is "
                                  f"not supported); call to_dense() on the second operand")
    if not isinstance(dense, _C.TensorBase):
        raise TypeError(f"{op}(): argument 'mat2' must be Tensor, not {type(dense).__name__}")
    if dense.dim() != 2:
        raise RuntimeError(f"{op}: Argument #3 (dense): Expected a 2-D tensor, got {dense.dim()}-D")
    if sparse.dtype != dense.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(sparse.dtype)} but found "
                           f"{scalar_type_name(dense.dtype)}")
    if dense.shape[0] != sparse.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {sparse.shape[1]}, got {dense.shape[0]}")


def _product(sparse, dense):
    if sparse.is_sparse_csr:
        crow, col, values = sparse._crow, sparse._col, sparse._vals
    else:
        crow, col, values = csr_arrays(sparse)
    return _CsrMatmul.apply(values, crow, col, dense, sparse.shape[1])


def sparse_mm(sparse, dense):
    """ember.sparse.mm / ember.spmm: the dense product of a 2-D sparse matrix with a 2-D dense one."""
    if not isinstance(sparse, SparseTensor):
        if isinstance(dense, SparseTensor):
            return dense_mm_sparse(sparse, dense)
        return _C.mm(sparse, dense)
    _check_operands(sparse, dense, "addmm")
    return _product(sparse, dense)


def sparse_addmm(mat, mat1, mat2, *, beta=1, alpha=1):
    """beta * mat + alpha * (mat1 @ mat2) for a sparse mat1 (dense result)."""
    prod = sparse_mm(mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # mat is ignored (its NaNs too), as PyTorch's addmm does
        return prod
    return (mat if beta == 1 else mat * beta) + prod


def dense_mm_sparse(dense, sparse):
    """dense @ sparse as (sparse^T @ dense^T)^T."""
    if dense.dim() != 2 or sparse.dim() != 2:
        raise RuntimeError("mm: expected 2-D operands")
    if dense.shape[1] != sparse.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({dense.shape[0]}x{dense.shape[1]} and "
                           f"{sparse.shape[0]}x{sparse.shape[1]})")
    st = transpose(sparse if sparse.is_sparse else sparse.to_sparse_coo(), 0, 1)
    return sparse_mm(st, dense.t()).t()


def matmul(sparse, other):
    """sparse @ other for a 2-D sparse matrix and a 1-D or 2-D dense one (PyTorch's message on a size
    mismatch)."""
    if isinstance(other, _C.TensorBase) and not isinstance(other, SparseTensor):
        if other.dim() == 1:
            if sparse.dim() == 2 and other.shape[0] != sparse.shape[1]:
                raise RuntimeError(f"size mismatch, got input ({sparse.shape[0]}), mat ({sparse.shape[0]}x"
                                   f"{sparse.shape[1]}), vec ({other.shape[0]})")
            return sparse_mm(sparse, other.unsqueeze(1)).squeeze(1)
        if other.dim() == 2 and sparse.dim() == 2 and other.shape[0] != sparse.shape[1]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sparse.shape[0]}x{sparse.shape[1]} and "
                               f"{other.shape[0]}x{other.shape[1]})")
    return sparse_mm(sparse, other)
