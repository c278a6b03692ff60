"""RAdam (Liu et al., 2019): Adam whose adaptive step is rectified by the variance of its
estimate, falling back to bias-corrected momentum SGD while that variance is intractable."""
import math

from .. import div, mul, sqrt, zeros_like
from ._helpers import apply_weight_decay, call_closure, check_adam_family, check_unsupported, no_grad_step
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_adam_family(lr, eps, betas, weight_decay)
        check_unsupported(None, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, g, group):
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
                decoupled = group["decoupled_weight_decay"]
                rho_inf = 2 / (1 - beta2) - 1
                for p, g, state, step in self._grads_and_state(group):
                    g = apply_weight_decay(p, g, wd, lr, decoupled)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(g, 1 - beta1)
                    tmp = mul(g, g)
                    exp_avg_sq.mul_(beta2).add_(tmp, alpha=1 - beta2)
                    bias_correction1 = 1 - beta1 ** step
                    bias_correction2 = 1 - beta2 ** step
                    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                    if rho_t > 5.0:
                        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                                         / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                        denom = sqrt(exp_avg_sq, out=tmp).add_(eps)
                        scale = lr * rect * math.sqrt(bias_correction2) / bias_correction1
                        p.add_(div(exp_avg, denom, out=denom), alpha=-scale)
                    else:
                        p.add_(exp_avg, alpha=-lr / bias_correction1)
        return loss
