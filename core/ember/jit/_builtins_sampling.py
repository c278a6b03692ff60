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


_CUBIC_A = -0.75


def _reflect(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """x reflected into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return x * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = (x - low).abs()
    flips = ember.floor(x / span)
    extra = x - flips * span
    return ember.where(ember.remainder(flips, 2) == 0, extra + low, span - extra + low)


def _pad_coord(x: Tensor, size: int, padding_mode: str, align: bool) -> Tensor:
    if padding_mode == "border":
        return x.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align:
            x = _reflect(x, 0, 2 * (size - 1))
        else:
            x = _reflect(x, -1, 2 * size - 1)
        return x.clamp(0, size - 1)
    return x


def _near(d: Tensor) -> Tensor:
    return ((_CUBIC_A + 2) * d - (_CUBIC_A + 3)) * d * d + 1


def _far(d: Tensor) -> Tensor:
    return ((_CUBIC_A * d - 5 * _CUBIC_A) * d + 8 * _CUBIC_A) * d - 4 * _CUBIC_A


def _bicubic(flat: Tensor, y: Tensor, x: Tensor, h: int, w: int, padding_mode: str, align: bool) -> Tensor:
    """A 4x4 neighbourhood of the unpadded coordinate, each tap's integer coordinate padded on its own, weighted by
    cubic convolution (A = -0.75) in y and x: the eager _bicubic's sums in its order."""
    y0, x0 = ember.floor(y.detach()), ember.floor(x.detach())
    ty, tx = (y - y0).unsqueeze(1), (x - x0).unsqueeze(1)
    wy = [_far(ty + 1), _near(ty), _near(1 - ty), _far(2 - ty)]
    wx = [_far(tx + 1), _near(tx), _near(1 - tx), _far(2 - tx)]
    out = ember.zeros(0)
    for i in range(4):
        iy = _pad_coord(y0 + (i - 1), h, padding_mode, align)
        row = _tap(flat, iy, _pad_coord(x0 - 1, w, padding_mode, align), h, w) * wx[0]
        for j in range(1, 4):
            row = row + _tap(flat, iy, _pad_coord(x0 + (j - 1), w, padding_mode, align), h, w) * wx[j]
        if i == 0:
            out = row * wy[0]
        else:
            out = out + row * wy[i]
    return out


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Optional[bool] = None):
    if mode != "bilinear" and mode != "nearest" and mode != "bicubic":
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode != "zeros" and padding_mode != "border" and padding_mode != "reflection":
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.dim() != 4 or grid.dim() != 4:
        raise NotImplementedError("grid_sample in scripted code takes 4-D input and grid")
    align = align_corners is not None and align_corners
    n, c, h, w = input.shape[0], input.shape[1], input.shape[2], input.shape[3]
    flat = input.reshape(n, c, h * w)
    gx, gy = grid.select(-1, 0), grid.select(-1, 1)
    if align:
        x, y = (gx + 1) / 2 * (w - 1), (gy + 1) / 2 * (h - 1)
    else:
        x, y = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2
    if mode == "bicubic":
        return _bicubic(flat, y, x, h, w, padding_mode, align)
    y = _pad_coord(y, h, padding_mode, align)
    x = _pad_coord(x, w, padding_mode, align)
    if mode == "nearest":
        return _tap(flat, ember.round(y.detach()), ember.round(x.detach()), h, w)
    y0, x0 = ember.floor(y.detach()), ember.floor(x.detach())
    fy, fx = (y - y0).unsqueeze(1), (x - x0).unsqueeze(1)
    out = _tap(flat, y0, x0, h, w) * ((1 - fy) * (1 - fx))
    out = out + _tap(flat, y0, x0 + 1, h, w) * ((1 - fy) * fx)
    out = out + _tap(flat, y0 + 1, x0, h, w) * (fy * (1 - fx))
    return out + _tap(flat, y0 + 1, x0 + 1, h, w) * (fy * fx)


def sampling_impls() -> dict:
    import ember.nn.functional as F

    return {F.grid_sample: grid_sample}
