"""The script version of F.grid_sample (2-D): its eager body is Python over index maps built with
Python-only helpers, so a scripted call compiles this instead, following the eager function's rules
(core/ember/nn/_functional_grid.py) with ops of the table. (F.pad and F.interpolate have theirs in
_builtins_layers.py and _builtins_interpolate.py.)"""
from __future__ import annotations

from typing import Optional

import ember
from ember import Tensor


def _tap(flat: Tensor, iy: Tensor, ix: Tensor, h: int, w: int) -> Tensor:
    """flat [N, C, H*W] read at integer (iy, ix) [N, Ho, Wo] -> [N, C, Ho, Wo]; zero outside."""
    n, c = flat.shape[0], flat.shape[1]
    oh, ow = iy.shape[1], iy.shape[2]
    inside = ember.logical_and(ember.logical_and(iy >= 0, iy <= h - 1), ember.logical_and(ix >= 0, ix <= w - 1))
    lin = ember.where(inside, iy, ember.zeros_like(iy)) * w + ember.where(inside, ix, ember.zeros_like(ix))
    lin = lin.to(ember.int64).reshape(n, 1, oh * ow).expand(n, c, oh * ow)
    vals = ember.gather(flat, 2, lin).reshape(n, c, oh, ow)
    return vals * inside.to(flat.dtype).unsqueeze(1)


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Optional[bool] = None):
    if input.dim() != 4 or grid.dim() != 4:
        raise NotImplementedError("grid_sample in scripted code takes 4-D input and grid")
    if padding_mode != "zeros" or (mode != "bilinear" and mode != "nearest"):
        raise NotImplementedError("grid_sample in scripted code has bilinear/nearest sampling with zeros padding")
    align = align_corners is not None and align_corners
    n, c, h, w = input.shape[0], input.shape[1], input.shape[2], input.shape[3]
    flat = input.reshape(n, c, h * w)
    gx, gy = grid.select(-1, 0), grid.select(-1, 1)
    if align:
        x, y = (gx + 1) / 2 * (w - 1), (gy + 1) / 2 * (h - 1)
    else:
        x, y = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2
    if mode == "nearest":
        return _tap(flat, ember.round(y), ember.round(x), h, w)
    y0, x0 = ember.floor(y), ember.floor(x)
    fy, fx = (y - y0).unsqueeze(1), (x - x0).unsqueeze(1)
    out = _tap(flat, y0, x0, h, w) * ((1 - fy) * (1 - fx))
    out = out + _tap(flat, y0, x0 + 1, h, w) * ((1 - fy) * fx)
    out = out + _tap(flat, y0 + 1, x0, h, w) * (fy * (1 - fx))
    return out + _tap(flat, y0 + 1, x0 + 1, h, w) * (fy * fx)


def sampling_impls() -> dict:
    import ember.nn.functional as F

    return {F.grid_sample: grid_sample}
