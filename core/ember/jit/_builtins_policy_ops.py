"""Script versions of Python-written ops that carry an autocast policy and had none (F.affine_grid, F.cdist,
F.max_unpool2d/3d, F.scaled_dot_product_attention): the eager bodies use Python beyond the script language
(math.isinf, generator expressions, tensor_args); these compute the same with the same ops and messages
(ember/nn/_functional_grid.py, _functional_distance.py, _functional_fold.py, _functional_attention.py).
ember.conv_tbc's eager body (ember/_functional_toplevel.py) is itself in the script language and compiled as it
is. The autocast casts around them are compiled by _builtins_autocast.with_policy."""
from __future__ import annotations

import math
from typing import Any, List, Optional

import ember
import ember.nn.functional as F
from ember import Tensor

from ember._functional_toplevel import _conv_tbc  # eager and script share its body

from . import _builtins_nn


def _base(n: int, align_corners: bool, dtype: int) -> Tensor:
    if n == 1:
        return ember.zeros([1], dtype=dtype)
    steps = ember.arange(n, dtype=dtype)
    if align_corners:
        return steps * (2.0 / (n - 1)) - 1
    return (steps * 2 + 1) / n - 1


def affine_grid(theta: Tensor, size: List[int], align_corners: Optional[bool] = None) -> Tensor:
    corners = False if align_corners is None else align_corners
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[1:] != [2, 3]:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{theta.shape}.")
        n, h, w = size[0], size[2], size[3]
        xs, ys = _base(w, corners, theta.dtype), _base(h, corners, theta.dtype)
        base = ember.stack([xs.reshape([1, w]).expand([h, w]), ys.reshape([h, 1]).expand([h, w]),
                            ember.ones([h, w], dtype=theta.dtype)], -1)
        return ember.matmul(base.reshape([1, h * w, 3]), theta.transpose(1, 2)).reshape([n, h, w, 2])
    if len(size) == 5:
        if theta.dim() != 3 or theta.shape[1:] != [3, 4]:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{theta.shape}.")
        n, d, h, w = size[0], size[2], size[3], size[4]
        xs, ys, zs = _base(w, corners, theta.dtype), _base(h, corners, theta.dtype), _base(d, corners, theta.dtype)
        base = ember.stack([xs.reshape([1, 1, w]).expand([d, h, w]), ys.reshape([1, h, 1]).expand([d, h, w]),
                            zs.reshape([d, 1, 1]).expand([d, h, w]), ember.ones([d, h, w], dtype=theta.dtype)], -1)
        return ember.matmul(base.reshape([1, d * h * w, 4]), theta.transpose(1, 2)).reshape([n, d, h, w, 3])
    raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                              f"respectively. Got size {size}.")


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.size(-1) != x2.size(-1):
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.size(-1)} X2: {x2.size(-1)}")
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if math.isinf(p):  # the whole gradient to every coordinate at the maximum, as eager
        dist = diff.amax([-1])
        at_max = (diff == dist.detach().unsqueeze(-1)).to(diff.dtype)
        return dist.detach() + ((diff - diff.detach()) * at_max).sum(-1)
    if p == 2.0:
        sq = (diff * diff).sum(-1)
        return ember.where(sq > 0, sq.clamp_min(1e-300).sqrt(), sq * 0)
    return ember.norm(diff, p, [-1], False)


def _max_unpool(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any, padding: Any,
                output_size: Optional[List[int]], nd: int) -> Tensor:
    name = f"max_unpool{nd}d"
    k = _builtins_nn._int_list(kernel_size, nd)
    s = k if stride is None else _builtins_nn._int_list(stride, nd)
    p = _builtins_nn._int_list(padding, nd)
    if indices.dtype != ember.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    if input.dim() != nd + 1 and input.dim() != nd + 2:
        raise RuntimeError(f"Input to max_unpooling{max(nd, 2)}d should be a {nd + 1}d or {nd + 2}d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if indices.shape != input.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({input.shape}) "
                           f"but got indices tensor with shape: {indices.shape}")
    for d in range(input.dim() - nd - 1, input.dim()):
        if input.size(d) == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{input.shape}")
    default = [(input.size(input.dim() - nd + d) - 1) * s[d] + k[d] - 2 * p[d] for d in range(nd)]
    size = default
    if output_size is not None:
        size = output_size[2:] if len(output_size) == nd + 2 else output_size
        if len(size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                             f"length of '{len(size)}'")
        for d in range(nd):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not (lo < size[d] and size[d] < hi):
                raise ValueError(f'invalid output_size "{size}" (dim {d} must be between {lo} and {hi})')
    for v in size:
        if v < 0:
            raise RuntimeError(f"{name}(): the output size {size} is negative (kernel_size={k}, stride={s}, "
                               f"padding={p})")
    lead = input.shape[:input.dim() - nd]
    plane = 1
    for v in size:
        plane *= v
    invalid = ((indices < 0).logical_or(indices >= plane)).reshape([-1])
    if bool(invalid.any()):
        bad = int(indices.reshape([-1])[invalid.to(ember.int64).argmax()])
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join([str(v) for v in size])}")
    flat_in = input.reshape(lead + [-1])
    out = ember.zeros(lead + [plane], dtype=input.dtype).scatter(-1, indices.reshape(lead + [-1]), flat_in)
    return out.reshape(lead + size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Optional[List[int]] = None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Optional[List[int]] = None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def _mask_bias(mask: Tensor, dtype: int) -> Tensor:
    if mask.dtype == ember.bool:
        return ember.zeros(mask.shape, dtype=dtype).masked_fill(mask.logical_not(), float("-inf"))
    return mask.to(dtype)


def _repeat_heads(t: Tensor, heads: int) -> Tensor:
    hk = t.size(-3)
    if heads % hk != 0:
        raise RuntimeError(f"scaled_dot_product_attention: {heads} query heads are not a multiple of {hk} key/value "
                           "heads")
    shape = t.shape
    expanded = t.unsqueeze(-3).expand(shape[:-2] + [heads // hk] + shape[-2:])
    return expanded.reshape(shape[:-3] + [heads] + shape[-2:])


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dims")
    if query.size(-1) != key.size(-1):
        raise RuntimeError(f"scaled_dot_product_attention: query's embedding size {query.size(-1)} differs from "
                           f"key's {key.size(-1)}")
    if key.size(-2) != value.size(-2):
        raise RuntimeError(f"scaled_dot_product_attention: key has {key.size(-2)} positions, value {value.size(-2)}")
    if attn_mask is not None and attn_mask.dtype != ember.bool and attn_mask.dtype != query.dtype:
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead.")
    if enable_gqa and query.dim() >= 3 and key.size(-3) != query.size(-3):
        key, value = _repeat_heads(key, query.size(-3)), _repeat_heads(value, query.size(-3))
    L, S = query.size(-2), key.size(-2)
    scores = ember.matmul(query, key.transpose(-2, -1))
    if query.size(-1) != 0:
        scores = scores * (1.0 / math.sqrt(query.size(-1)) if scale is None else scale)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("scaled_dot_product_attention: give attn_mask or is_causal, not both")
        scores = scores + _mask_bias(ember.ones([L, S], dtype=ember.bool).tril(), scores.dtype)
    elif attn_mask is not None:
        scores = scores + _mask_bias(attn_mask, scores.dtype)
    if attn_mask is not None:  # a row that may attend nowhere gives zeros, not NaN
        nowhere = (scores == float("-inf")).all(-1, keepdim=True)
        attn = ember.softmax(ember.where(nowhere, ember.zeros([], dtype=scores.dtype), scores), -1)
        attn = attn.masked_fill(nowhere, 0.0)
    else:
        attn = ember.softmax(scores, -1)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return ember.matmul(attn, value)


def policy_op_impls() -> dict:
    return {F.affine_grid: affine_grid, F.cdist: cdist, F.max_unpool2d: max_unpool2d, F.max_unpool3d: max_unpool3d,
            F.scaled_dot_product_attention: scaled_dot_product_attention, ember.conv_tbc: _conv_tbc}
