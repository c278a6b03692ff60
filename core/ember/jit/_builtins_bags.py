"""Script versions of ember.nn.functional's embedding_bag, bilinear, rms_norm, local_response_norm and the
power-average pools (see _builtins_nn.py for why): the same computations over the same ops as the eager
functions (ember/nn/_functional_fold.py, _functional_linear.py, _functional_norm.py)."""
from __future__ import annotations

from typing import Any, List, Optional

import ember
import ember.nn.functional as F
from ember import Tensor

from . import _builtins_layers, _builtins_nn


def embedding_bag(input, weight, offsets: Optional[Tensor] = None, max_norm: Optional[float] = None,
                  norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None, include_last_offset: bool = False,
                  padding_idx: Optional[int] = None):
    """Sums, means or maxes of bags of weight's rows: input 2-D (one bag per row) or 1-D with offsets (bag i is
    input[offsets[i]:offsets[i + 1]]); empty bags give zeros."""
    if mode != "sum" and mode != "mean" and mode != "max":
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    n = input.numel()
    positions = ember.arange(n, dtype=ember.int64)
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences.")
        nbags = input.size(0)
        bag = positions // max(input.size(1), 1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs = offsets.to(ember.int64)
        if offs.numel() > 0 and int(offs[0]) != 0:
            raise ValueError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                             f"position 0. However, got {int(offs[0])}")
        starts = offs.narrow(0, 0, offs.numel() - 1) if include_last_offset else offs
        nbags = starts.numel()
        bag = ember.searchsorted(starts, positions, right=True) - 1
        if include_last_offset and offs.numel() > 0:
            bag = ember.where(positions < offs[-1], bag, ember.full_like(bag, -1))
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    flat = input.reshape([-1])
    rows = F.embedding(flat, weight, None, max_norm, norm_type)  # max_norm renorms weight's looked-up rows in place
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape([-1]).unsqueeze(1)
    used = (bag >= 0).logical_and(bag < nbags)
    count = used.to(weight.dtype)
    if padding_idx is not None:
        count = count * (flat != padding_idx % weight.size(0)).to(weight.dtype)
    bag = ember.where(used, bag, ember.zeros_like(bag))  # unused rows count for nothing (count 0) in bag 0
    dim = weight.size(1)
    per_bag = ember.zeros([nbags], dtype=weight.dtype).index_add(0, bag, count)
    if mode == "max":
        rows = rows.masked_fill(count.unsqueeze(1) == 0, float("-inf"))
        index = bag.unsqueeze(1) + ember.zeros([bag.numel(), dim], dtype=ember.int64)
        out = ember.zeros([nbags, dim], dtype=weight.dtype).scatter_reduce(0, index, rows, "amax",
                                                                            include_self=False)
        return ember.where((per_bag > 0).unsqueeze(1), out, ember.zeros_like(out))
    out = ember.zeros([nbags, dim], dtype=weight.dtype).index_add(0, bag, rows * count.unsqueeze(1))
    if mode == "mean":
        return out / per_bag.clamp_min(1).unsqueeze(1)
    return out


def bilinear(input1, input2, weight, bias: Optional[Tensor] = None):
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    if weight.dim() != 3 or input1.size(-1) != weight.size(1) or input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input1 {input1.shape}, input2 {input2.shape} and weight {weight.shape} do not "
                           f"fit (expected weight (out, {input1.size(-1)}, {input2.size(-1)}))")
    out = ember.einsum("...i,oij,...j->...o", [input1, weight, input2])
    if bias is not None:
        out = out + bias
    return out


def _eps(dtype: int) -> float:
    if dtype == ember.float64:
        return 2.220446049250313e-16
    if dtype == ember.float16:
        return 0.0009765625
    if dtype == ember.bfloat16:
        return 0.0078125
    return 1.1920928955078125e-07


def rms_norm(input, normalized_shape: Any, weight: Optional[Tensor] = None, eps: Optional[float] = None):
    ns = _builtins_nn._int_list(normalized_shape, 1) if isinstance(normalized_shape, int) else \
        _builtins_nn._int_list(normalized_shape, len(normalized_shape))
    n = len(ns)
    if n > input.dim() or input.shape[input.dim() - n:] != ns:
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape [*, "
                           f"{', '.join([str(v) for v in ns])}], but got input of size{input.shape}")
    dims = [d for d in range(input.dim() - n, input.dim())]
    e = _eps(input.dtype) if eps is None else eps
    y = input * ((input * input).mean(dims, keepdim=True) + e).rsqrt()
    if weight is not None:
        return y * weight
    return y


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input / (input * 0 + k) ** beta
    n, c = input.size(0), input.size(1)
    rest = input.numel() // (n * c)
    sq = _builtins_layers.pad((input * input).reshape([n, 1, c, rest]), [0, 0, size // 2, (size - 1) // 2])
    div = F.avg_pool2d(sq, [size, 1], [1, 1], [0, 0], False, True).reshape(input.shape)
    return input / (div * alpha + k) ** beta


def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool, nd: int) -> Tensor:
    if norm_type == 0:
        raise ValueError(f"lp_pool{nd}d(): norm_type must be non-zero, but got norm_type={norm_type}")
    k: List[int] = _builtins_nn._int_list(kernel_size, nd)
    count = 1
    for v in k:
        count *= v
    avg = _builtins_nn._avg_pool(input.pow(norm_type), k, stride, 0, ceil_mode, True, None, nd)
    return (avg.sign() * avg.abs().relu() * count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


NAMES = ["embedding_bag", "bilinear", "rms_norm", "local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d"]
