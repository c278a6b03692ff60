"""ember.linalg: linear algebra on LAPACK under PyTorch's torch.linalg names.

Each function is an op of the op database (core/ops/linalg.yaml, aten's linalg_* names), so out=,
autograd and dtype rules are the op's own; named-tuple results are ember.return_types.linalg_*.
Singular or non-positive-definite inputs raise LinAlgError naming the batch element.
"""
from ember import _C


class LinAlgError(RuntimeError):
    """A factorization that could not be completed (singular, not positive-definite, no convergence);
    a RuntimeError, as torch.linalg.LinAlgError."""


LinAlgError.__module__ = "ember.linalg"
_C._set_linalg_error(LinAlgError)

# The ops of the op database with `namespace: linalg` (core/ops/linalg*.yaml), bound in ember._C._linalg
# under their names without the linalg_ prefix (their docstrings give each signature).
from .._C._linalg import *  # noqa: E402,F403
from .._C._linalg import __all__ as _ops_all  # noqa: E402

__all__ = ["LinAlgError", *_ops_all]
