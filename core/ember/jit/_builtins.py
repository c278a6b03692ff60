"""Script versions of ember.nn.functional's Python-written functions: their eager bodies check
arguments with f-strings and helpers outside the script language, so a scripted call compiles one of
these instead (as TorchScript maps functions to builtins). Each computes what the eager function does."""
from __future__ import annotations

from typing import Optional

import ember
import ember.nn.functional as F


def linear(input, weight, bias: Optional[ember.Tensor] = None):
    # the kernels eager F.linear picks, so the sums round alike: one addmm with the bias when it can (a contiguous
    # input's leading dims folded into its rows), else matmul then + bias
    if bias is not None and weight.dim() == 2 and bias.dim() <= 1:
        if input.dim() == 2:
            return ember.addmm(bias, input, weight.t())
        if input.dim() > 2:
            out = ember.addmm(bias, input.reshape([-1, input.shape[-1]]), weight.t())
            return out.reshape(input.shape[:-1] + [weight.shape[0]])
    out = ember.matmul(input, weight.t())
    if bias is not None:
        out = out + bias
    return out


def relu(input, inplace: bool = False):
    if inplace:
        return ember.relu_(input)
    return ember.relu(input)


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = ember.bernoulli(ember.ones_like(input), 1.0 - p)
    return input * keep / (1.0 - p)


def _nn_impls() -> dict:
    from . import _builtins_nn, _builtins_norm

    names = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"] + \
        [f"{kind}_pool{n}d" for kind in ("max", "avg", "adaptive_avg", "adaptive_max") for n in (1, 2, 3)]
    impls = {getattr(F, n): getattr(_builtins_nn, n) for n in names}
    for n in ("layer_norm", "group_norm", "batch_norm", "instance_norm", "embedding"):
        impls[getattr(F, n)] = getattr(_builtins_norm, n)
    from . import _builtins_attention

    impls[F.multi_head_attention_forward] = _builtins_attention.multi_head_attention_forward
    from . import _builtins_bags, _builtins_ctc, _builtins_fold, _builtins_interpolate, _builtins_layers, _builtins_loss

    for module in (_builtins_loss, _builtins_layers, _builtins_bags, _builtins_fold, _builtins_interpolate,
                   _builtins_ctc):
        impls.update({getattr(F, n): getattr(module, n) for n in module.NAMES})
    return impls


def _misc_impls() -> dict:
    from ._builtins_misc import misc_impls
    from ._builtins_math import math_impls
    from ._builtins_sampling import sampling_impls
    from ._builtins_math_extra import math_extra_impls
    from ._builtins_methods_extra import method_function_impls
    from ._builtins_spectral import spectral_impls
    from ._builtins_windows import window_impls
    from ._builtins_meshgrid import meshgrid
    from ._builtins_autocast import is_autocast_enabled
    from ._builtins_policy_ops import policy_op_impls

    return {**misc_impls(), **sampling_impls(), **math_impls(), **math_extra_impls(), **spectral_impls(),
            **method_function_impls(), **window_impls(), ember.meshgrid: meshgrid,
            ember.is_autocast_enabled: is_autocast_enabled, **policy_op_impls()}


SCRIPT_IMPLS = {F.linear: linear, F.relu: relu, F.dropout: dropout, **_nn_impls(), **_misc_impls()}
