"""RMSprop (Hinton's lecture 6e; centered form from Graves 2013), with optional momentum."""
from .. import div, mul, sqrt, sub, zeros_like
from ._helpers import (apply_weight_decay, call_closure, check, check_eps, check_lr,
                       check_unsupported, check_weight_decay, no_grad_step)
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """v <- alpha*v + (1-alpha)*g^2; centered: avg = sqrt(v - gbar^2) with gbar <- lerp(gbar, g, 1-alpha),
    else sqrt(v); with momentum b <- mu*b + g/(avg+eps), p <- p - lr*b, else p <- p - lr*g/(avg+eps)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        check_eps(eps)
        check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        check_weight_decay(weight_decay)
        check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        check_unsupported(None, differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, g, group):
        state["square_avg"] = zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = zeros_like(p)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
                momentum, centered = group["momentum"], group["centered"]
                for p, g, state, _ in self._grads_and_state(group):
                    g = apply_weight_decay(p, g, wd)
                    square_avg = state["square_avg"]
                    tmp = mul(g, g)  # the step's one temporary: g^2, then avg, then g/avg
                    square_avg.mul_(alpha).add_(tmp, alpha=1 - alpha)
                    if centered:
                        grad_avg = state["grad_avg"]
                        grad_avg.lerp_(g, 1 - alpha)
                        avg = sub(square_avg, mul(grad_avg, grad_avg, out=tmp), out=tmp).sqrt_()
                    else:
                        avg = sqrt(square_avg, out=tmp)
                    ratio = div(g, avg.add_(eps), out=tmp)
                    if momentum > 0:
                        buf = state["momentum_buffer"]
                        buf.mul_(momentum).add_(ratio)
                        p.add_(buf, alpha=-lr)
                    else:
                        p.add_(ratio, alpha=-lr)
        return loss
