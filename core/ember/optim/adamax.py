"""Adamax (Kingma & Ba, section 7.1): Adam with the infinity norm in place of the second moment."""
from .. import div, maximum, zeros_like
from ._helpers import apply_weight_decay, call_closure, check_adam_family, check_unsupported, no_grad_step
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """m <- lerp(m, g, 1-b1); u <- max(b2*u, |g|+eps); p <- p - lr/(1-b1^t) * m/u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_adam_family(lr, eps, betas, weight_decay)
        check_unsupported(None, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, g, group):
        state["exp_avg"] = zeros_like(p)
        state["exp_inf"] = zeros_like(p)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
                for p, g, state, step in self._grads_and_state(group):
                    g = apply_weight_decay(p, g, wd)
                    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                    exp_avg.lerp_(g, 1 - beta1)
                    tmp = g.abs().add_(eps)
                    maximum(exp_inf.mul_(beta2), tmp, out=exp_inf)
                    p.add_(div(exp_avg, exp_inf, out=tmp), alpha=-lr / (1 - beta1 ** step))
        return loss
