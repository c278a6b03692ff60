"""ember.nn.functional's likelihood losses (re-exported there): poisson_nll_loss and
gaussian_nll_loss."""
from __future__ import annotations

import math

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import tensor_args
from ._reduction import _legacy_reduction, _reduce

__all__ = ["poisson_nll_loss", "gaussian_nll_loss"]


@tensor_args("input", "target", numbers=("eps",), bools=("log_input", "full"))
@autocast_policy("fp32")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(x) - y x (log_input), else x - y log(x + eps); full adds Stirling's term for y > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.clamp_min(1).log() - target + 0.5 * (2 * math.pi * target.clamp_min(1)).log()
        loss = loss + _C.where(target > 1, stirling, _C.zeros_like(stirling))
    return _reduce(loss, reduction)


@tensor_args("input", "target", numbers=("eps",))
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (x - y)^2 / max(var, eps)) (+ 0.5 log 2 pi when full)."""
    if isinstance(var, (int, float)) and not isinstance(var, bool):  # a homoscedastic variance, as PyTorch takes it
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _C.full(list(input.shape), float(var), dtype=input.dtype)
    elif not isinstance(var, _C.TensorBase):
        raise TypeError(f"gaussian_nll_loss(): argument 'var' (position 3) must be Tensor or float, not "
                        f"{type(var).__name__}")
    if list(var.shape) != list(input.shape):  # one variance per sample (the last dim dropped or of size 1)
        if list(input.shape[:-1]) == list(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() and var.dim() and list(input.shape[:-1]) == list(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    if not var.is_floating_point():
        raise RuntimeError(f"gaussian_nll_loss(): expected var of a floating dtype, got {var.dtype}")
    if (var < 0).any().item():
        raise ValueError("var has negative entry/entries")
    # PyTorch clamps var in place without recording: the value is floored at eps, the gradient
    # still reaches var (a recorded clamp would give var 0 gradient below eps)
    v = var + (var.clamp_min(eps) - var).detach()
    loss = 0.5 * (v.log() + (input - target) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
