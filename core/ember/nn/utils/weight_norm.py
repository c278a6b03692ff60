"""The hook-based nn.utils.weight_norm / remove_weight_norm (PyTorch's older API, beside
nn.utils.parametrizations.weight_norm): weight recomputed from weight_g and weight_v before each
forward."""
from __future__ import annotations

from ..parameter import Parameter

__all__ = ["weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    if dim is None or dim == -1:
        return v.norm()
    dims = [d for d in range(v.dim()) if d != dim % v.dim()]
    if not dims:  # a 1-D v keeps every element: its norm is |v| (an empty dim list would reduce all)
        return v.abs()
    return (v * v).sum(dims, keepdim=True).sqrt()


def _compute(module, name, dim):
    g, v = getattr(module, name + "_g"), getattr(module, name + "_v")
    return v * (g / _norm_except_dim(v, dim))


def weight_norm(module, name="weight", dim=0):
    """Replaces parameter `name` by name_g (its norm over every dim but `dim`) and name_v (its
    direction): name = g * v / ||v||."""
    hooks = module.__dict__.setdefault("_weight_norm_hooks", {})
    if name in hooks:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"weight_norm: module has no parameter '{name}'")
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    object.__setattr__(module, name, _compute(module, name, dim))
    handle = module.register_forward_pre_hook(lambda m, args: object.__setattr__(m, name, _compute(m, name, dim)))
    hooks[name] = (handle, dim)
    return module


def remove_weight_norm(module, name="weight"):
    hooks = module.__dict__.get("_weight_norm_hooks", {})
    if name not in hooks:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    handle, dim = hooks.pop(name)
    handle.remove()
    weight = _compute(module, name, dim).detach()
    del module._parameters[name + "_g"]
    del module._parameters[name + "_v"]
    object.__delattr__(module, name)
    module.register_parameter(name, Parameter(weight))
    return module
