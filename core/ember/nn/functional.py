"""ember.nn.functional: the layers as functions, with PyTorch's names, defaults and checks. The
elementwise activations and softmax are kernels of the op database (core/ops/nn.yaml); the rest
are written here with differentiable ops, so autograd (and forward mode) follow."""
from __future__ import annotations

import math
import warnings

from .. import _C
from ._arg_checks import check_int, check_output_shape, check_same_dtype, tensor_args, wrap_dim
from ._reduction import _legacy_reduction

__all__ = [
    "linear", "bilinear", "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_",
    "celu", "celu_", "gelu", "silu", "mish", "softplus", "softsign", "hardtanh", "hardtanh_", "hardsigmoid",
    "hardswish", "logsigmoid", "tanhshrink", "threshold", "threshold_", "softshrink", "hardshrink", "glu", "prelu",
    "rrelu", "sigmoid", "tanh", "softmax", "softmin", "log_softmax", "dropout", "alpha_dropout", "dropout1d",
    "dropout2d", "dropout3d", "feature_alpha_dropout", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    "soft_margin_loss", "cosine_similarity", "pairwise_distance", "one_hot", "normalize",
]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


# ---- linear layers ------------------------------------------------------------------------
@tensor_args("input", "weight", optional=("bias",))
def linear(input, weight, bias=None):
    """y = input @ weight.T + bias, for input (*, in_features) and weight (out_features, in_features)."""
    if weight.dim() not in (1, 2):
        raise RuntimeError(f"linear(): weight must be 1-D or 2-D, got shape {tuple(weight.shape)}")
    if input.dim() == 0 or input.shape[-1] != weight.shape[-1]:
        rows = math.prod(input.shape[:-1]) if input.dim() else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1] if input.dim() else 1} "
                           f"and {weight.shape[-1]}x{weight.shape[0] if weight.dim() == 2 else 1})")
    if bias is not None and bias.dtype != input.dtype:  # addmm's check, also on the matmul path
        raise RuntimeError(f"linear(): self and mat2 must have the same dtype, but got bias {bias.dtype} and input "
                           f"{input.dtype}")
    if input.dim() == 2 and weight.dim() == 2 and bias is not None and bias.dim() <= 1:
        return _C.addmm(bias, input, weight.t())
    out = _C.matmul(input, weight.t() if weight.dim() == 2 else weight)
    return out if bias is None else out + bias


@tensor_args("input1", "input2", "weight", optional=("bias",))
def bilinear(input1, input2, weight, bias=None):
    """y_o = x1^T A_o x2 + b_o, for weight (out, in1, in2)."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    if list(input1.shape[:-1]) != list(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if bias is not None and (bias.dim() != 1 or weight.dim() != 3 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.numel()} but expected "
                           f"{weight.shape[0] if weight.dim() else 0}")
    check_same_dtype("bilinear", input1, input2=input2, weight=weight, bias=bias)
    if weight.dim() != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input1 {tuple(input1.shape)}, input2 {tuple(input2.shape)} and weight "
                           f"{tuple(weight.shape)} do not fit (expected weight (out, {input1.shape[-1]}, "
                           f"{input2.shape[-1]}))")
    out = _C.einsum("...i,oij,...j->...o", [input1, weight, input2])  # _C.einsum takes the operands as a list
    return out if bias is None else out + bias


# ---- activations ----------------------------------------------------------------------------
def _maybe_inplace(name, input, inplace, *args):
    # the in-place variants are Tensor methods only (ember._C has no elu_, leaky_relu_, ...)
    return getattr(input, name + "_")(*args) if inplace else getattr(_C, name)(input, *args)


@tensor_args("input")
def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


@tensor_args("input")
def relu_(input):
    return input.relu_()


@tensor_args("input")
def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


@tensor_args("input")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _maybe_inplace("leaky_relu", input, inplace, negative_slope)


@tensor_args("input")
def leaky_relu_(input, negative_slope=0.01):
    return input.leaky_relu_(negative_slope)


@tensor_args("input")
def elu(input, alpha=1.0, inplace=False):
    return _maybe_inplace("elu", input, inplace, alpha)


@tensor_args("input")
def elu_(input, alpha=1.0):
    return input.elu_(alpha)


@tensor_args("input")
def selu(input, inplace=False):
    return _maybe_inplace("elu", input, inplace, SELU_ALPHA, SELU_SCALE)


@tensor_args("input")
def selu_(input):
    return input.elu_(SELU_ALPHA, SELU_SCALE)


@tensor_args("input", numbers=("alpha",))
def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise ValueError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace("celu", input, inplace, alpha)


@tensor_args("input", numbers=("alpha",))
def celu_(input, alpha=1.0):
    return input.celu_(alpha)


@tensor_args("input")
def gelu(input, approximate="none"):
    return _C.gelu(input, approximate=approximate)


@tensor_args("input")
def silu(input, inplace=False):
    return _maybe_inplace("silu", input, inplace)


@tensor_args("input")
def mish(input, inplace=False):
    return _maybe_inplace("mish", input, inplace)


@tensor_args("input")
def softplus(input, beta=1.0, threshold=20.0):
    return _C.softplus(input, beta, threshold)


@tensor_args("input")
def softsign(input):
    return _C.softsign(input)


@tensor_args("input", numbers=("min_val", "max_val"))
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace("hardtanh", input, inplace, min_val, max_val)


@tensor_args("input", numbers=("min_val", "max_val"))
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


@tensor_args("input")
def hardsigmoid(input, inplace=False):
    return _maybe_inplace("hardsigmoid", input, inplace)


@tensor_args("input")
def hardswish(input, inplace=False):
    return _maybe_inplace("hardswish", input, inplace)


@tensor_args("input")
def logsigmoid(input):
    return _C.logsigmoid(input)


@tensor_args("input")
def tanhshrink(input):
    return _C.tanhshrink(input)


@tensor_args("input")
def threshold(input, threshold, value, inplace=False):
    return _maybe_inplace("threshold", input, inplace, threshold, value)


@tensor_args("input")
def threshold_(input, threshold, value):
    return input.threshold_(threshold, value)


@tensor_args("input", numbers=("lambd",))
def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _C.softshrink(input, lambd)


@tensor_args("input", numbers=("lambd",))
def hardshrink(input, lambd=0.5):
    return _C.hardshrink(input, lambd)


@tensor_args("input")
def sigmoid(input):
    return _C.sigmoid(input)


@tensor_args("input")
def tanh(input):
    return _C.tanh(input)


@tensor_args("input")
def glu(input, dim=-1):
    """a * sigmoid(b) for the two halves a, b of input along dim (whose size must be even)."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"glu\" not implemented for {input.dtype}")
    dim = wrap_dim("glu", dim, input.dim())
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    a, b = input.chunk(2, dim)
    return a * _C.sigmoid(b)


@tensor_args("input", "weight")
def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight of 1 element or one per channel (dim 1)."""
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype} and {weight.dtype}")
    if weight.numel() != 1:
        channels = input.shape[1] if input.dim() >= 2 else input.shape[0] if input.dim() == 1 else 1
        if weight.dim() != 1 or weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
        if input.dim() >= 2:
            weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    return _C.where(input > 0, input, weight * input)


@tensor_args("input", numbers=("lower", "upper"))
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with a random slope from U(lower, upper) per element in training, else their mean."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slope = _C.empty_like(input).uniform_(lower, upper)
    out = _C.where(input >= 0, input, input * slope)
    return input.copy_(out) if inplace else out


def _softmax_dim(name, input, dim, stacklevel):
    if dim is None:  # PyTorch's legacy choice for an implicit dim, with its deprecation warning
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                      "as an argument.", stacklevel=stacklevel)
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return dim


@tensor_args("input")
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.softmax(input, _softmax_dim("softmax", input, dim, _stacklevel), dtype=dtype)


@tensor_args("input")
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return _C.softmax(-input, _softmax_dim("softmin", input, dim, _stacklevel), dtype=dtype)


@tensor_args("input")
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.log_softmax(input, _softmax_dim("log_softmax", input, dim, _stacklevel), dtype=dtype)


# ---- dropout --------------------------------------------------------------------------------
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_scalable(input, training):
    """Dropout in training scales by 1/(1-p): an integer or bool input cannot hold the result."""
    if training and not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype}")


def _apply_mask(input, mask, scale, inplace):
    if inplace:
        return input.mul_(mask).mul_(scale)
    return input * mask * scale


@tensor_args("input", numbers=("p",))
def dropout(input, p=0.5, training=True, inplace=False):
    """Zeros each element with probability p in training, scaling the rest by 1/(1-p)."""
    _check_p(p)
    _check_scalable(input, training)
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    mask = _C.empty_like(input).bernoulli_(1 - p)
    return _apply_mask(input, mask, 1.0 / (1 - p), inplace)


def _feature_dropout(input, p, training, inplace, batched_dim, name):
    _check_p(p)
    _check_scalable(input, training)
    if input.dim() not in (batched_dim, batched_dim + 1):
        raise RuntimeError(f"{name}: expected {batched_dim}-D (unbatched) or {batched_dim + 1}-D (batched) input, "
                           f"got {input.dim()}-D input of shape {tuple(input.shape)}")
    if not training or p == 0:
        return input
    batched = input.dim() == batched_dim + 1
    keep = list(input.shape[:2] if batched else input.shape[:1]) + [1] * (batched_dim - 1)
    mask = _C.empty(keep, dtype=input.dtype).bernoulli_(1 - p)
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    return _apply_mask(input, mask, 1.0 / (1 - p), inplace)


@tensor_args("input", numbers=("p",))
def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 2, "dropout1d")


@tensor_args("input", numbers=("p",))
def dropout2d(input, p=0.5, training=True, inplace=False):
    if input.dim() == 3:  # PyTorch still reads 3-D as (N, C, L): channel-wise 1-D dropout, with this warning
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
        return _feature_dropout(input, p, training, inplace, 2, "dropout2d")
    return _feature_dropout(input, p, training, inplace, 3, "dropout2d")


@tensor_args("input", numbers=("p",))
def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout3d")


def _alpha_dropout(input, p, training, inplace, mask_shape):
    _check_p(p)
    _check_scalable(input, training)
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    # Dropped values become alpha' = -SELU_SCALE*SELU_ALPHA; a and b keep mean 0 and variance 1.
    alpha_p = -SELU_ALPHA * SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = _C.empty(mask_shape, dtype=input.dtype).bernoulli_(1 - p)
    out = (input * keep + alpha_p * (1 - keep)) * a + b
    return input.copy_(out) if inplace else out


@tensor_args("input", numbers=("p",))
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, list(input.shape))


@tensor_args("input", numbers=("p",))
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    return _alpha_dropout(input, p, training, inplace, shape)


# ---- losses ---------------------------------------------------------------------------------
def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


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
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _real_only("mse_loss", input, target)
    _same_shape(input, target, "mse_loss")
    loss = (input - target) ** 2
    return _reduce(loss if weight is None else loss * weight, reduction)


@tensor_args("input", "target")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _same_shape(input, target, "l1_loss")
    return _reduce((input - target).abs(), reduction)


@tensor_args("input", "target", numbers=("beta",))
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _real_only("smooth_l1_loss", input, target)
    _same_shape(input, target, "smooth_l1_loss")
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(_C.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


@tensor_args("input", "target", optional=("weight",), numbers=("delta",))
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _real_only("huber_loss", input, target)
    _same_shape(input, target, "huber_loss")
    d = (input - target).abs()
    loss = _C.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(loss if weight is None else loss * weight, reduction)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_NARROW_INTS = (_C.uint8, _C.int8, _C.int16, _C.int32)  # class indices of these dtypes are widened to int64


@tensor_args("input", "target", optional=("weight",))
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-input[n, target[n]] * weight[target[n]], over inputs (N, C, d1...) or (C,), with
    ignore_index skipped and "mean" normalized by the weights of the targets used."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    code = _REDUCTIONS.get(reduction)
    if code is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if target.dtype != _C.int64:
        if target.dtype not in _NARROW_INTS:
            raise RuntimeError(f"nll_loss: expected target of an integer dtype (class indices), got {target.dtype}")
        target = target.to(_C.int64)
    check_same_dtype("nll_loss", input, weight=weight)
    # the op checks the input's rank, the target's shape, the weight's and each target's range
    return _C._nll_loss(input, target, weight, code, ignore_index)[0]


@tensor_args("input", "target", optional=("weight",), numbers=("label_smoothing",))
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
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), the logs clamped at -100 as PyTorch does."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Using a target size ({tuple(target.shape)}) that is different to the input size "
                         f"({tuple(input.shape)}) is deprecated. Please ensure they have the same size.")
    check_output_shape("binary_cross_entropy", input, weight=weight)
    code = _REDUCTIONS.get(reduction)
    if code is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if weight is not None and weight.requires_grad and _C.is_grad_enabled():
        raise RuntimeError("The function 'binary_cross_entropy' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    # an op of its own (its kernel checks the dtypes and the input and target ranges, NaN failing):
    # its gradient divides by max(x (1 - x), 1e-12), finite where x is 0 or 1
    return _C._binary_cross_entropy(input, target, weight, code)


@tensor_args("input", "target", optional=("weight", "pos_weight"))
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
    log_sig_neg = _C.logsigmoid(-input)  # log(1 - sigmoid(x))
    log_sig = _C.logsigmoid(input)
    if pos_weight is not None:
        loss = -(pos_weight * target * log_sig + (1 - target) * log_sig_neg)
    else:
        loss = -(target * log_sig + (1 - target) * log_sig_neg)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@tensor_args("input", "target", bools=("log_target",))
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
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype}")
    check_output_shape("soft_margin_loss", input, target=target)
    return _reduce(_C.softplus(-target * input), reduction)


# ---- distances and utilities ----------------------------------------------------------------
@tensor_args("x1", "x2", numbers=("eps",))
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / (max(|x1|, eps) max(|x2|, eps)) along dim, the inputs broadcast together."""
    if x1.is_complex() or x2.is_complex():
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{(x1 if x1.is_complex() else x2).dtype}")
    if not (x1.is_floating_point() and x2.is_floating_point()):  # integers are compared as floats, as PyTorch
        to = x1.dtype if x1.is_floating_point() else x2.dtype if x2.is_floating_point() else _C.get_default_dtype()
        x1, x2 = x1.to(to), x2.to(to)
    prod = x1 * x2
    # broadcast first: a size-1 dim that is broadcast along `dim` counts in the norms
    x1, x2 = x1.expand_as(prod), x2.expand_as(prod)
    # each over its norm floored at eps as PyTorch does (in place, unrecorded: the gradient goes
    # through the norm, whose gradient is 0 at a zero vector)
    n1, n2 = x1.norm(dim=dim, keepdim=True), x2.norm(dim=dim, keepdim=True)
    n1 = n1 + (n1.clamp_min(eps) - n1).detach()
    n2 = n2 + (n2.clamp_min(eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@tensor_args("x1", "x2", numbers=("p", "eps"))
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    d = x1 - x2 + eps
    return _C.norm(d, p, [-1], keepdim) if d.dim() else d.abs()


@tensor_args("tensor")
def one_hot(tensor, num_classes=-1):
    """(..., num_classes) int64 with a 1 at each value's class; num_classes=-1 takes max + 1."""
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = check_int("one_hot", "num_classes", num_classes)
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    if tensor.numel() and (tensor.min().item() < 0 or tensor.max().item() >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes." if tensor.min().item() >= 0 else
                           "Class values must be non-negative.")
    out = _C.zeros(list(tensor.shape) + [num_classes], dtype=_C.int64)
    return out.scatter(-1, tensor.unsqueeze(-1), 1)


@tensor_args("input", optional=("out",), numbers=("p", "eps"))
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(|input|_p, eps) along dim."""
    n = _C.norm(input, p, [dim], True).clamp_min(eps)
    res = input / n.expand_as(input)
    if out is not None:
        return out.copy_(res)
    return res


from ._functional_conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: E402
                               conv_transpose3d, pad)

__all__ += ["pad", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

from ._functional_pool import *  # noqa: E402,F401,F403
from ._functional_pool import __all__ as _pool_all  # noqa: E402

__all__ += _pool_all

from ._functional_norm import *  # noqa: E402,F401,F403
from ._functional_norm import __all__ as _norm_all  # noqa: E402

__all__ += _norm_all

from ._functional_attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: E402,F401

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]

from ._functional_more import *  # noqa: E402,F401,F403
from ._functional_more import __all__ as _more_all  # noqa: E402

__all__ += _more_all

from ._functional_interpolate import *  # noqa: E402,F401,F403
from ._functional_interpolate import __all__ as _interp_all  # noqa: E402

__all__ += _interp_all

from ._functional_fold import *  # noqa: E402,F401,F403
from ._functional_fold import __all__ as _fold_all  # noqa: E402

__all__ += _fold_all

from ._functional_grid import affine_grid, grid_sample  # noqa: E402,F401

__all__ += ["affine_grid", "grid_sample"]

from ._functional_ctc import ctc_loss  # noqa: E402,F401

__all__ += ["ctc_loss"]
