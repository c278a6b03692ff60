"""Script versions of ember.nn.functional's unfold and fold (see _builtins_nn.py for why): the same index
arithmetic over the same ops as the eager functions (ember/nn/_functional_fold.py)."""
from __future__ import annotations

from typing import Any, List, Tuple

import ember
from ember import Tensor

from ._builtins_layers import pad as _pad
from ._builtins_nn import _int_list


def _checked(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> List[List[int]]:
    k, d, p, s = _int_list(kernel_size, 2), _int_list(dilation, 2), _int_list(padding, 2), _int_list(stride, 2)
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} kernel_width: "
                           f"{k[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} dilation_width: "
                           f"{d[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    return [k, d, p, s]


def _patch_index(h: int, w: int, k: List[int], d: List[int], p: List[int], s: List[int]) -> Tuple[Tensor, int, int]:
    """For every (kernel offset, output position): the flat index into the padded plane."""
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    oh = (hp - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (wp - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, padding={p}, "
                           f"calculated shape of the array of sliding blocks as ({oh}, {ow}), but its components "
                           "must be at least one.")
    i = ember.arange(k[0], dtype=ember.int64).reshape([k[0], 1, 1, 1])
    j = ember.arange(k[1], dtype=ember.int64).reshape([1, k[1], 1, 1])
    a = ember.arange(oh, dtype=ember.int64).reshape([1, 1, oh, 1])
    b = ember.arange(ow, dtype=ember.int64).reshape([1, 1, 1, ow])
    idx = (a * s[0] + i * d[0]) * wp + (b * s[1] + j * d[1])
    return idx.reshape([-1]), oh, ow


def unfold(input, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1):
    if input.dim() != 3 and input.dim() != 4:
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    k, d, p, s = _checked(kernel_size, dilation, padding, stride)
    n, c, h, w = x.size(0), x.size(1), x.size(2), x.size(3)
    xp = _pad(x, [p[1], p[1], p[0], p[0]]) if p[0] > 0 or p[1] > 0 else x
    idx, oh, ow = _patch_index(h, w, k, d, p, s)
    plane = (h + 2 * p[0]) * (w + 2 * p[1])
    cols = xp.reshape([n, c, plane]).index_select(2, idx).reshape([n, c * k[0] * k[1], oh * ow])
    return cols.squeeze(0) if unbatched else cols


def fold(input, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1):
    if input.dim() != 2 and input.dim() != 3:
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
                           f"{input.dim()}D)")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    o = _int_list(output_size, 2)
    k, d, p, s = _checked(kernel_size, dilation, padding, stride)
    n, ckk, blocks = x.size(0), x.size(1), x.size(2)
    if ckk % (k[0] * k[1]) != 0:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={ckk} and kernel_size={k}")
    c = ckk // (k[0] * k[1])
    idx, oh, ow = _patch_index(o[0], o[1], k, d, p, s)
    if oh * ow != blocks:
        raise RuntimeError(f"Given output_size={o}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, expected "
                           f"size of input's dimension 2 to match the calculated number of sliding blocks {oh} * {ow} "
                           f"= {oh * ow}, but got input.size(2)={blocks}.")
    hp, wp = o[0] + 2 * p[0], o[1] + 2 * p[1]
    flat = ember.zeros([n, c, hp * wp], dtype=x.dtype).index_add(2, idx, x.reshape([n, c, k[0] * k[1] * blocks]))
    out = flat.reshape([n, c, hp, wp]).narrow(2, p[0], o[0]).narrow(3, p[1], o[1])
    return out.squeeze(0) if unbatched else out


NAMES = ["unfold", "fold"]
