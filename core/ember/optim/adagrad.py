"""Adagrad (Duchi et al., 2011): per-element steps scaled by the root of the summed squared
gradients, with an optional learning-rate decay."""
from .. import div, full_like, mul, sqrt
from ._helpers import (apply_weight_decay, call_closure, check, check_eps, check_lr,
                       check_unsupported, check_weight_decay, no_grad_step, scalar_tensor)
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """s <- s + g^2; p <- p - lr/(1 + (t-1)*lr_decay) * g/(sqrt(s) + eps)."""

    _takes_sparse_grads = True

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        check_weight_decay(weight_decay)
        check(0.0 <= initial_accumulator_value,
              f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        check_eps(eps)
        check_unsupported(fused, differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # PyTorch creates Adagrad's state up front (so a state_dict before any step has it).
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = scalar_tensor(0.0)
                state["sum"] = full_like(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                lr, lr_decay, eps, wd = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
                # No _init_state: the constructor made every parameter's state.
                for p, g, state, step in self._grads_and_state(group):
                    clr = lr / (1 + (step - 1) * lr_decay)
                    if g.is_sparse:
                        _sparse_step(p, g, state["sum"], clr, eps, wd)
                        continue
                    g = apply_weight_decay(p, g, wd)
                    state_sum = state["sum"]
                    tmp = mul(g, g)
                    state_sum.add_(tmp)
                    std = sqrt(state_sum, out=tmp).add_(eps)
                    p.add_(div(g, std, out=std), alpha=-clr)
        return loss


def _sparse_step(p, g, state_sum, clr, eps, weight_decay):
    """PyTorch's update for a sparse gradient: only the gradient's entries (duplicates summed) change their sums
    and values; weight decay is refused, as PyTorch refuses it."""
    if weight_decay != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    g = g.coalesce()
    where = tuple(g._indices().unbind(0))
    values = g._values()
    state_sum.index_put_(where, values * values, accumulate=True)
    std = state_sum[where].sqrt().add_(eps)
    p.index_put_(where, (values / std * -clr).to(p.dtype), accumulate=True)
