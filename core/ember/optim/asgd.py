"""Averaged SGD (Polyak & Juditsky, 1992; Bottou's schedule): SGD with a decaying step and a
running average `ax` of the iterates, averaging from step t0 on."""
from .. import zeros_like
from ._helpers import (apply_weight_decay, call_closure, check_lr, check_unsupported, check_weight_decay,
                       no_grad_step, scalar_tensor)
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """p <- p*(1 - lambd*eta) - eta*g; ax <- ax + mu*(p - ax); eta <- lr/(1 + lambd*lr*t)^alpha;
    mu <- 1/max(1, t - t0)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_weight_decay(weight_decay)
        check_unsupported(None, differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, g, group):
        state["eta"] = scalar_tensor(group["lr"])
        state["mu"] = scalar_tensor(1.0)
        state["ax"] = zeros_like(p)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
                wd = group["weight_decay"]
                for p, g, state, step in self._grads_and_state(group):
                    g = apply_weight_decay(p, g, wd)
                    eta = state["eta"].item()
                    p.mul_(1 - lambd * eta)
                    p.add_(g, alpha=-eta)
                    ax, mu = state["ax"], state["mu"].item()
                    if mu != 1:
                        ax.add_(p.sub(ax).mul_(mu))
                    else:
                        ax.copy_(p)
                    state["eta"].fill_(lr / ((1 + lambd * lr * step) ** alpha))
                    state["mu"].fill_(1 / max(1, step - t0))
        return loss
