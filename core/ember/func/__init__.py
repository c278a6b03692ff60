"""ember.func: PyTorch's composable function transforms (vmap, grad, grad_and_value, vjp, jvp, jacrev,
jacfwd, hessian, functional_call) over ember's autograd and forward AD. vmap applies batching rules
where it has them and calls other ops per sample (see _vmap)."""
from . import _batch_rules  # noqa: F401  (fills _batched.RULES)
from ._functional_call import functional_call
from ._grad import grad, grad_and_value, jvp, vjp
from ._jacobian import hessian, jacfwd, jacrev
from ._vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]
