"""ember.nn.functional's activations and softmax family (re-exported there); the elementwise ones
are kernels of the op database (core/ops/nn.yaml)."""
from __future__ import annotations

import math
import warnings

from ..amp._policy import autocast_policy
from .. import _C
from .._dtype_info import finfo
from ._arg_checks import tensor_args, wrap_dim

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_", "celu", "celu_",
    "gelu", "silu", "mish", "softplus", "softsign", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish",
    "logsigmoid", "tanhshrink", "threshold", "threshold_", "softshrink", "hardshrink", "sigmoid", "tanh", "glu",
    "prelu", "rrelu", "softmax", "softmin", "log_softmax"
]


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _maybe_inplace(name, input, inplace, *args):
    # the in-place variants are Tensor methods only (ember._C has no elu_, leaky_relu_, ...); the
    # functions are in ember._C._nn (`namespace: nn.functional`) or, as celu and threshold, top level
    if inplace:
        return getattr(input, name + "_")(*args)
    return (getattr(_C._nn, name, None) or getattr(_C, name))(input, *args)


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
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")  # PyTorch's kernel check
    return _maybe_inplace("celu", input, inplace, alpha)


@tensor_args("input", numbers=("alpha",))
def celu_(input, alpha=1.0):
    return input.celu_(alpha)


@tensor_args("input")
def gelu(input, approximate="none"):
    return _C._nn.gelu(input, approximate=approximate)


@tensor_args("input")
def silu(input, inplace=False):
    return _maybe_inplace("silu", input, inplace)


@tensor_args("input")
def mish(input, inplace=False):
    return _maybe_inplace("mish", input, inplace)


@tensor_args("input")
def softplus(input, beta=1.0, threshold=20.0):
    return _C._nn.softplus(input, beta, threshold)


@tensor_args("input")
def softsign(input):
    return _C._nn.softsign(input)


@tensor_args("input", numbers=("min_val", "max_val"))
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype == _C.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
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
    return _C._nn.logsigmoid(input)


@tensor_args("input")
def tanhshrink(input):
    return _C._nn.tanhshrink(input)


@tensor_args("input")
def threshold(input, threshold, value, inplace=False):
    return _maybe_inplace("threshold", input, inplace, threshold, value)


@tensor_args("input")
def threshold_(input, threshold, value):
    return input.threshold_(threshold, value)


_SHRINK_DTYPE_NAMES = {_C.float32: "Float", _C.float64: "Double", _C.float16: "Half", _C.bfloat16: "BFloat16"}


@tensor_args("input", numbers=("lambd",))
def softshrink(input, lambd=0.5):
    if input.dtype in _SHRINK_DTYPE_NAMES:  # PyTorch's range check, NaN and inf included
        top = finfo(input.dtype).max
        if not 0 <= lambd <= top:
            raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                               f"{_SHRINK_DTYPE_NAMES[input.dtype]}, but found {float(lambd):g}")
    elif lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _C._nn.softshrink(input, lambd)


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
@autocast_policy("lower_precision_fp")
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
    for bound, v in (("lower", lower), ("upper", upper)):
        if not math.isfinite(v):
            raise RuntimeError(f"rrelu: {bound} bound must be finite, got {float(v):g}")
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
