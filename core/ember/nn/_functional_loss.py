"""ember.nn.functional's pointwise and classification losses (re-exported there): mse, l1, smooth l1,
huber, nll, cross entropy, binary cross entropy (with logits), kl_div and soft margin."""
from __future__ import annotations

import warnings

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import as_float, check_output_shape, check_same_dtype, tensor_args
from ._reduction import _legacy_reduction, _reduce, reduction_code

__all__ = [
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss"
]


def _real_only(name, *tensors):
    for t in tensors:
        if t.is_complex():
            raise NotImplementedError(f"\"{name}\" not implemented for {t.dtype}")


def _same_shape(input, target, name):
    """PyTorch warns (and broadcasts) when a pointwise loss gets shapes that differ."""
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"{name}: Using a target size ({tuple(target.shape)}) that is different to the input size "
                      f"({tuple(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


@tensor_args("input", "target", optional=("weight",))
@autocast_policy("fp32")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _real_only("mse_loss", input, target)
    _same_shape(input, target, "mse_loss")
    return _weighted_reduce((input - target) ** 2, input, weight, reduction)


def _weighted_reduce(loss, input, weight, reduction):
    """mse_loss's and l1_loss's weight= (PyTorch 2.13): the weight has the input's size, and "mean" is the
    weighted mean, sum(weight * loss) / sum(weight)."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


@tensor_args("input", "target", optional=("weight",))
@autocast_policy("fp32")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _same_shape(input, target, "l1_loss")
    return _weighted_reduce((input - target).abs(), input, weight, reduction)


@tensor_args("input", "target", numbers=("beta",))
@autocast_policy("fp32")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not beta >= 0:  # NaN too
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _real_only("smooth_l1_loss", input, target)
    _same_shape(input, target, "smooth_l1_loss")
    beta = as_float("smooth_l1_loss", "beta", beta)
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(_C.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


@tensor_args("input", "target", optional=("weight",), numbers=("delta",))
@autocast_policy("fp32")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if not delta > 0:  # NaN too
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _real_only("huber_loss", input, target)
    _same_shape(input, target, "huber_loss")
    delta = as_float("huber_loss", "delta", delta)  # a float in PyTorch's signature (2**70 must not overflow)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    d = (input - target).abs()
    loss = _C.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(loss if weight is None else loss * weight, reduction)  # "mean": the plain mean, as PyTorch


_NARROW_INTS = (_C.uint8, _C.int8, _C.int16, _C.int32)  # class indices of these dtypes are widened to int64


@tensor_args("input", "target", optional=("weight",))
@autocast_policy("fp32")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-input[n, target[n]] * weight[target[n]], over inputs (N, C, d1...) or (C,), with
    ignore_index skipped and "mean" normalized by the weights of the targets used."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    code = reduction_code(reduction)
    if target.dtype != _C.int64:
        if target.dtype not in _NARROW_INTS:
            raise RuntimeError(f"nll_loss: expected target of an integer dtype (class indices), got {target.dtype}")
        target = target.to(_C.int64)
    check_same_dtype("nll_loss", input, weight=weight)
    # the op checks the input's rank, the target's shape, the weight's and each target's range
    return _C._nll_loss(input, target, weight, code, ignore_index)[0]


@tensor_args("input", "target", optional=("weight",), numbers=("label_smoothing",))
@autocast_policy("fp32")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the class dim (1, or 0 for unbatched input), then the negative log
    likelihood of class-index targets or, for floating targets, of class probabilities."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.dim() < 1:
        raise ValueError("cross_entropy: expected input with at least 1 dimension (the classes), got a 0-D tensor")
    check_same_dtype("cross_entropy", input, weight=weight)
    if target.dtype in _NARROW_INTS:
        target = target.to(_C.int64)  # class indices: the smoothing term below indexes weight with them
    cdim = 1 if input.dim() >= 2 else 0
    logp = _C.log_softmax(input, cdim)
    c = input.shape[cdim]
    wshape = [c] + [1] * (input.dim() - cdim - 1)
    if target.is_floating_point():
        if weight is not None and (weight.dim() != 1 or weight.numel() != c):  # nll_loss checks it for indices
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                               f"weight tensor of shape: {tuple(weight.shape)}")
        if tuple(target.shape) != tuple(input.shape):
            raise ValueError(f"cross_entropy: probability targets must have the input's shape {tuple(input.shape)}, "
                             f"got {tuple(target.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -prod.sum(cdim)
        if reduction == "mean":  # over the N * d1 * ... distributions (numel / C), whatever the weights
            return loss.sum() / (input.numel() // c if c else 0)  # none (no classes, or no samples): NaN
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return nll
    valid = target != ignore_index
    smooth = -(logp * weight.reshape(wshape)).sum(cdim) if weight is not None else -logp.sum(cdim)
    smooth = _C.where(valid, smooth, _C.zeros_like(smooth))  # an ignored row's -inf logits count for nothing
    if reduction == "mean":
        if weight is not None:
            t = _C.where(valid, target, _C.zeros_like(target))
            smooth = smooth.sum() / (weight[t] * valid.to(weight.dtype)).sum()
        else:
            smooth = smooth.sum() / valid.sum()
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / c)


@tensor_args("input", "target", optional=("weight",))
@autocast_policy("fp32")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), the logs clamped at -100 as PyTorch does."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Using a target size ({tuple(target.shape)}) that is different to the input size "
                         f"({tuple(input.shape)}) is deprecated. Please ensure they have the same size.")
    check_output_shape("binary_cross_entropy", input, weight=weight)
    code = reduction_code(reduction)
    if weight is not None and weight.requires_grad and _C.is_grad_enabled():
        raise RuntimeError("The function 'binary_cross_entropy' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    # an op of its own (its kernel checks the dtypes and the input and target ranges, NaN failing):
    # its gradient divides by max(x (1 - x), 1e-12), finite where x is 0 or 1
    return _C._binary_cross_entropy(input, target, weight, code)


@tensor_args("input", "target", optional=("weight", "pos_weight"))
@autocast_policy("fp32")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """BCE of sigmoid(input), computed stably: (1 - t) x + (1 + (pw - 1) t) log(1 + exp(-x))."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({tuple(target.shape)}) must be the same as input size ({tuple(input.shape)})")
    if not target.is_floating_point():
        raise RuntimeError(f"binary_cross_entropy_with_logits(): expected target of a floating dtype, got "
                           f"{target.dtype}")
    check_output_shape("binary_cross_entropy_with_logits", input, weight=weight, pos_weight=pos_weight)
    log_sig_neg = _C._nn.logsigmoid(-input)  # log(1 - sigmoid(x))
    log_sig = _C._nn.logsigmoid(input)
    if pos_weight is not None:
        loss = -(pos_weight * target * log_sig + (1 - target) * log_sig_neg)
    else:
        loss = -(target * log_sig + (1 - target) * log_sig_neg)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@tensor_args("input", "target", bools=("log_target",))
@autocast_policy("fp32")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log target - input), input being log-probabilities (and target too when log_target)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    for t in (input, target):
        if t.is_complex():
            raise RuntimeError("kl_div: Complex inputs not supported.")
        if not t.is_floating_point():
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _C.xlogy(target, target) - target * input  # PyTorch's: 0 log 0 = 0, and 0 * -inf is NaN
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() else 1)
    return _reduce(loss, reduction)


@tensor_args("input", "target")
@autocast_policy("fp32")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype}")
    check_output_shape("soft_margin_loss", input, target=target)
    return _reduce(_C._nn.softplus(-target * input), reduction)
