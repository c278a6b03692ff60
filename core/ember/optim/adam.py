"""Adam and AdamW (Kingma & Ba; Loshchilov & Hutter): bias-corrected first and second moments,
optional AMSGrad, L2 (Adam) or decoupled (AdamW) weight decay."""
import math

from .. import div, maximum, mul, sqrt, zeros_like
from ._helpers import apply_weight_decay, call_closure, check_adam_family, check_unsupported, no_grad_step
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """m <- lerp(m, g, 1-b1); v <- b2*v + (1-b2)*g^2; p <- p - lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps),
    with v replaced by its running maximum under amsgrad."""

    _sparse_grads_refused = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_adam_family(lr, eps, betas, weight_decay)
        check_unsupported(fused, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def _init_state(self, state, p, g, group):
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(p)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
                amsgrad, decoupled = group["amsgrad"], group["decoupled_weight_decay"]
                for p, g, state, step in self._grads_and_state(group):
                    g = apply_weight_decay(p, g, wd, lr, decoupled)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(g, 1 - beta1)
                    # One temporary serves as g^2, then the denominator, then the update.
                    tmp = mul(g, g)
                    exp_avg_sq.mul_(beta2).add_(tmp, alpha=1 - beta2)
                    step_size = lr / (1 - beta1 ** step)
                    bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
                    second = exp_avg_sq
                    if amsgrad:
                        second = maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
                    denom = sqrt(second, out=tmp).div_(bias_correction2_sqrt).add_(eps)
                    p.add_(div(exp_avg, denom, out=denom), alpha=-step_size)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay: p <- p * (1 - lr*wd) before the Adam update."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
