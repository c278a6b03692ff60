"""Gradient clipping: by total norm (all gradients as one vector) or by value."""
from __future__ import annotations

import math

from ... import _C
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _params(parameters):
    if isinstance(parameters, _C.TensorBase):
        return [parameters]
    return list(parameters)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm_type-norm of all tensors together (inf: the largest absolute value)."""
    tensors = [t for t in _params(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return _C.tensor(0.0)
    with no_grad():
        if math.isinf(norm_type):
            norms = [t.detach().abs().max() if t.numel() else _C.tensor(0.0, dtype=t.dtype) for t in tensors]
            total = _C.stack([n.to(_C.float64) for n in norms]).max()
        else:
            norms = [_C.norm(t.detach(), norm_type, None, False).to(_C.float64) for t in tensors]
            total = _C.norm(_C.stack(norms), norm_type, None, False)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total.to(tensors[0].dtype)


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    coef = float(max_norm) / (float(total_norm) + 1e-6)
    if not coef >= 1:  # a nan norm scales too (to nan), as PyTorch's clamped coefficient does
        with no_grad():
            for g in grads:
                g.mul_(coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales all gradients together so that their total norm is at most max_norm; returns the
    total norm before clipping."""
    params = _params(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _params(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
