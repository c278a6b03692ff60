"""Stochastic gradient descent with optional (Nesterov) momentum, dampening and weight decay."""
from ._helpers import call_closure, check, check_lr, check_unsupported, check_weight_decay, no_grad_step
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD: with momentum mu, dampening tau, b <- mu*b + (1-tau)*g (b = g on the first step);
    the step is g + mu*b with nesterov, else b; p <- p - lr*step."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_lr(lr)
        check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        check_weight_decay(weight_decay)
        check_unsupported(fused, differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                lr = group["lr"]
                momentum = group["momentum"]
                dampening = group["dampening"]
                weight_decay = group["weight_decay"]
                nesterov = group["nesterov"]
                maximize = group["maximize"]
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if maximize:
                        g = g.neg()
                    if weight_decay != 0:
                        g = g.add(p, alpha=weight_decay)
                    if momentum != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = state["momentum_buffer"] = g.clone().detach()
                        else:
                            buf.mul_(momentum).add_(g, alpha=1 - dampening)
                        g = g.add(buf, alpha=momentum) if nesterov else buf
                    p.add_(g, alpha=-lr)
        return loss
