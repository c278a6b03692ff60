"""Adadelta (Zeiler, 2012): steps scaled by the ratio of running RMS of updates and of gradients."""
from .. import add, mul, zeros_like
from ._helpers import (apply_weight_decay, call_closure, check, check_eps, check_lr, check_unsupported,
                       check_weight_decay, no_grad_step)
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """v <- rho*v + (1-rho)*g^2; d = sqrt(u+eps)/sqrt(v+eps) * g; u <- rho*u + (1-rho)*d^2; p <- p - lr*d."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        check_eps(eps)
        check_weight_decay(weight_decay)
        check_unsupported(None, differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, g, group):
        state["square_avg"] = zeros_like(p)
        state["acc_delta"] = zeros_like(p)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
                for p, g, state, _ in self._grads_and_state(group):
                    g = apply_weight_decay(p, g, wd)
                    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                    tmp = mul(g, g)
                    square_avg.mul_(rho).add_(tmp, alpha=1 - rho)
                    std = add(square_avg, eps, out=tmp).sqrt_()
                    delta = acc_delta.add(eps).sqrt_().div_(std).mul_(g)
                    acc_delta.mul_(rho).add_(mul(delta, delta, out=tmp), alpha=1 - rho)
                    p.add_(delta, alpha=-lr)
        return loss
