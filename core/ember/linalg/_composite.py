"""The composite ember.linalg functions (core/ops/linalg_composite.yaml, made of other ops) under
their torch.linalg names. Each is an op of the op database, so out=, dtypes and autograd are its own."""
from .. import _C

__all__ = ["cond", "cross", "diagonal", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]

vector_norm = _C.linalg_vector_norm    # vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None)
# matrix_norm(input, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None)
matrix_norm = _C.linalg_matrix_norm
norm = _C.linalg_norm                  # norm(input, ord=None, dim=None, keepdim=False, *, dtype=None, out=None)
cross = _C.linalg_cross                # cross(input, other, *, dim=-1, out=None)
vecdot = _C.linalg_vecdot              # vecdot(x, y, *, dim=-1, out=None)
diagonal = _C.linalg_diagonal          # diagonal(A, *, offset=0, dim1=-2, dim2=-1)
vander = _C.linalg_vander              # vander(x, *, N=None)
multi_dot = _C.linalg_multi_dot        # multi_dot(tensors, *, out=None)
matrix_power = _C.linalg_matrix_power  # matrix_power(input, n, *, out=None)
matrix_exp = _C.linalg_matrix_exp      # matrix_exp(input)
# pinv(input, *, atol=None, rtol=None, hermitian=False, out=None); (input, rcond, hermitian)
pinv = _C.linalg_pinv
# matrix_rank(input, *, atol=None, rtol=None, hermitian=False, out=None); (input, tol, hermitian)
matrix_rank = _C.linalg_matrix_rank
cond = _C.linalg_cond                  # cond(input, p=None, *, out=None)
tensorinv = _C.linalg_tensorinv        # tensorinv(input, ind=2, *, out=None)
tensorsolve = _C.linalg_tensorsolve    # tensorsolve(input, other, dims=None, *, out=None)
