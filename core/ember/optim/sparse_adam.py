"""SparseAdam: lazy Adam for sparse gradients (nn.Embedding(sparse=True)'s): only the entries a gradient
holds get their moments and values updated, as PyTorch's; a dense gradient is refused, as PyTorch refuses it."""
import math

from .. import zeros_like
from ._helpers import call_closure, check_adam_family, no_grad_step
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    _takes_sparse_grads = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_adam_family(lr, eps, betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse = [i for i, p in enumerate(self.param_groups[0]["params"]) if p.is_sparse]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps = group["lr"], group["eps"]
                # Not _grads_and_state: SparseAdam's step counter is a plain int, as in its state dicts.
                for p, g in self._grads(group):
                    if not g.is_sparse:
                        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = zeros_like(p)
                        state["exp_avg_sq"] = zeros_like(p)
                    state["step"] += 1
                    step = state["step"]
                    g = g.coalesce()  # one entry per index: the moments of each are updated once
                    if g._nnz() == 0:
                        continue
                    where = tuple(g._indices().unbind(0))
                    values = g._values()
                    exp_avg = state["exp_avg"][where].lerp_(values, 1 - beta1)
                    exp_avg_sq = state["exp_avg_sq"][where].lerp_(values * values, 1 - beta2)
                    state["exp_avg"].index_put_(where, exp_avg)
                    state["exp_avg_sq"].index_put_(where, exp_avg_sq)
                    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
                    update = exp_avg / exp_avg_sq.sqrt().add_(eps)
                    p.index_put_(where, p[where] - (step_size * update).to(p.dtype))
        return loss
