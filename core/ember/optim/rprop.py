"""Rprop (Riedmiller & Braun, 1993): per-element step sizes grown by etaplus while the gradient
keeps its sign and shrunk by etaminus when it flips (the step is then skipped)."""
from .. import full_like, ones_like, where, zeros_like
from ._helpers import call_closure, check, check_lr, check_unsupported, no_grad_step
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        check_unsupported(None, differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, g, group):
        state["prev"] = zeros_like(p)
        state["step_size"] = full_like(g, group["lr"])

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                etaminus, etaplus = group["etas"]
                step_size_min, step_size_max = group["step_sizes"]
                for p, g, state, _ in self._grads_and_state(group):
                    prev, step_size = state["prev"], state["step_size"]
                    sign = g.mul(prev).sign()
                    # factor: etaplus where the sign held, etaminus where it flipped, 1 where either was 0
                    # (the ones tensor gives the result g's dtype: etas stay exact in float64)
                    factor = where(sign > 0, etaplus, where(sign < 0, etaminus, ones_like(g)))
                    step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                    # after a flip the gradient counts as zero: no step now, no flip test next time
                    g = where(sign < 0, 0.0, g)
                    p.add_(g.sign().mul_(step_size), alpha=-1)
                    prev.copy_(g)
        return loss
