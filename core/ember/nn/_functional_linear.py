"""ember.nn.functional's linear layers (re-exported there): linear and bilinear."""
from __future__ import annotations

import math

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import check_same_dtype, tensor_args

__all__ = ["linear", "bilinear"]


@tensor_args("input", "weight", optional=("bias",))
@autocast_policy("lower_precision_fp")
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
    if input.dim() > 2 and input.is_contiguous() and weight.dim() == 2 and bias is not None and bias.dim() <= 1:
        # PyTorch folds a contiguous input's leading dims into one addmm: the bias joins the sum before
        # its one rounding (bfloat16 results differ from matmul then + bias)
        out = _C.addmm(bias, input.reshape(-1, input.shape[-1]), weight.t())
        return out.reshape(*input.shape[:-1], weight.shape[0])
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
