"""NAdam (Dozat, 2016): Adam with Nesterov momentum and a momentum schedule
mu_t = b1 * (1 - 0.5 * 0.96^(t * momentum_decay))."""

from .. import div, mul, zeros_like
from ._helpers import (apply_weight_decay, call_closure, check, check_adam_family, check_unsupported,
                       no_grad_step, scalar_tensor)
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_adam_family(lr, eps, betas, weight_decay)
        check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        check_unsupported(None, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, g, group):
        state["mu_product"] = scalar_tensor(1.0)
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
                momentum_decay, decoupled = group["momentum_decay"], group["decoupled_weight_decay"]
                for p, g, state, step in self._grads_and_state(group):
                    g = apply_weight_decay(p, g, wd, lr, decoupled)
                    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                    # The running product lives in a 0-d tensor (a state-dict entry, like PyTorch's).
                    mu_product_t = state["mu_product"]
                    mu_product_t.mul_(mu)
                    mu_product = mu_product_t.item()
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(g, 1 - beta1)
                    tmp = mul(g, g)
                    exp_avg_sq.mul_(beta2).add_(tmp, alpha=1 - beta2)
                    denom = div(exp_avg_sq, 1 - beta2 ** step, out=tmp).sqrt_().add_(eps)
                    ratio = div(g, denom)
                    p.add_(ratio, alpha=-lr * (1.0 - mu) / (1.0 - mu_product))
                    p.add_(div(exp_avg, denom, out=ratio), alpha=-lr * mu_next / (1.0 - mu_product * mu_next))
        return loss
