"""SparseAdam for dense gradients. Ember has no sparse tensors, so the elements a gradient
"touches" are its nonzero elements: only those get their moments and values updated (PyTorch's
lazy Adam over a sparse gradient's indices). One difference remains: PyTorch also updates an
indexed element whose gradient value is exactly 0; here that element counts as untouched."""
import math

from .. import where, zeros_like
from ._helpers import call_closure, check_adam_family, no_grad_step
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_adam_family(lr, eps, betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps = group["lr"], group["eps"]
                # Not _grads_and_state: SparseAdam's step counter is a plain int, as in its state dicts.
                for p, g in self._grads(group):
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = zeros_like(p)
                        state["exp_avg_sq"] = zeros_like(p)
                    state["step"] += 1
                    step = state["step"]
                    touched = g.ne(0)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.copy_(where(touched, exp_avg.lerp(g, 1 - beta1), exp_avg))
                    exp_avg_sq.copy_(where(touched, exp_avg_sq.lerp(g * g, 1 - beta2), exp_avg_sq))
                    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
                    update = exp_avg / exp_avg_sq.sqrt().add_(eps)
                    p.add_(where(touched, update, 0.0).to(dtype=p.dtype), alpha=-step_size)
        return loss
