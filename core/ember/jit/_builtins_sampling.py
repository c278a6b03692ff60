"""Script versions of F.pad, F.interpolate (given `size`) and F.grid_sample (2-D): their eager bodies are
Python over index maps built with Python-only helpers, so a scripted call compiles these instead. Each
follows the eager function's rules (core/ember/nn/_functional_pad*.py, _functional_interpolate.py,
_functional_grid.py): the same index maps and weights, built from ops of the table."""
from __future__ import annotations

from typing import Any, List, Optional

import ember
from ember import Tensor

_CUBIC_A = -0.75


def _pad_indices(n: int, left: int, right: int, mode: str, dim: int, shape: List[int]) -> Tensor:
    """The source index of every position of a dim of size n padded by left/right (negative crops)."""
    if mode == "reflect" and (left >= n or right >= n):
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, but "
                           f"got: padding ({left}, {right}) at dimension {dim} of input {shape}")
    if mode == "circular" and (left > n or right > n):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    if n == 0:
        raise RuntimeError(f"{mode} padding of an empty dimension {dim} of input {shape}")
    idx = ember.arange(-left, n + right, dtype=ember.int64)
    if mode == "reflect":
        period = 2 * (n - 1)
        if period == 0:
            return idx * 0
        r = ember.remainder(ember.abs(idx), period)
        return ember.where(r >= n, period - r, r)
    if mode == "replicate":
        return ember.clamp(idx, 0, n - 1)
    return ember.remainder(idx, n)  # circular


def pad(input, pad: List[int], mode: str = "constant", value: Optional[float] = None):
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension")
    if mode != "constant" and mode != "reflect" and mode != "replicate" and mode != "circular":
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    out, changed = input, False  # an unchanged input is still returned as a new tensor
    for i in range(k):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        if mode != "constant":
            if left != 0 or right != 0:
                out, changed = ember.index_select(out, dim, _pad_indices(n, left, right, mode, dim, input.shape)), True
            continue
        if left < 0 or right < 0:  # negative amounts crop
            start = -left if left < 0 else 0
            stop = n + right if right < 0 else n
            if stop - start < 0:
                raise RuntimeError(f"The input size {n}, plus negative padding {left} and {right} resulted in a "
                                   f"negative output size, which is invalid. Check dimension {dim} of your input.")
            out, changed = ember.narrow(out, dim, start, stop - start), True
        fill = 0.0 if value is None else value
        parts: List[Tensor] = []
        for amount in (max(left, 0), max(right, 0)):
            shape = out.shape
            shape[dim] = amount
            parts.append(ember.full(shape, fill, dtype=input.dtype))
        if left > 0 or right > 0:
            out, changed = ember.cat([parts[0], out, parts[1]], dim), True
    return out if changed else out.clone()


def _sources(out_size: int, in_size: int, scale: float, align_corners: bool, cubic: bool) -> Tensor:
    dst = ember.arange(out_size, dtype=ember.float64)
    if align_corners:
        return dst * (in_size - 1) / (out_size - 1) if out_size > 1 else dst * 0
    src = (dst + 0.5) * scale - 0.5
    return src if cubic else ember.clamp(src, 0.0)


def _cubic_near(d: Tensor) -> Tensor:
    return ((_CUBIC_A + 2) * d - (_CUBIC_A + 3)) * d * d + 1


def _cubic_far(d: Tensor) -> Tensor:
    return ((_CUBIC_A * d - 5 * _CUBIC_A) * d + 8 * _CUBIC_A) * d - 4 * _CUBIC_A


def _resample(x: Tensor, dim: int, out_size: int, scale: float, mode: str, align_corners: bool, nd: int) -> Tensor:
    n = x.shape[dim]
    shape = [1] * x.dim()
    shape[dim] = out_size
    if mode == "nearest" or mode == "nearest-exact":
        dst = ember.arange(out_size, dtype=ember.int64)
        if mode == "nearest" and nd == 2 and out_size == n:
            return ember.index_select(x, dim, dst)
        if mode == "nearest" and nd == 2 and out_size == 2 * n:
            return ember.index_select(x, dim, ember.floor_divide(dst, 2))
        off = 0.5 if mode == "nearest-exact" else 0.0
        scale32 = float(ember.scalar_tensor(scale, dtype=ember.float32))  # the kernels compute in float32
        pos = ((dst.to(ember.float64) + off) * scale32).to(ember.float32)
        return ember.index_select(x, dim, ember.clamp(ember.floor(pos).to(ember.int64), None, n - 1))
    if mode == "linear":
        if out_size == n:
            return x
        s = _sources(out_size, n, scale, align_corners, False)
        i0 = ember.clamp(ember.floor(s), None, n - 1)
        w = (s - i0).to(x.dtype).reshape(shape)
        lo = i0.to(ember.int64)
        a = ember.index_select(x, dim, lo)
        b = ember.index_select(x, dim, ember.clamp(lo + 1, None, n - 1))
        return a + (b - a) * w
    s = _sources(out_size, n, scale, align_corners, True)
    i0 = ember.floor(s)
    t = s - i0
    start = i0.to(ember.int64) - 1
    weights = [_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t)]
    out = ember.index_select(x, dim, ember.clamp(start, 0, n - 1)) * weights[0].to(x.dtype).reshape(shape)
    for k in range(1, 4):
        tap = ember.clamp(start + k, 0, n - 1)
        out = out + ember.index_select(x, dim, tap) * weights[k].to(x.dtype).reshape(shape)
    return out


def interpolate(input, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False):
    nd = input.dim() - 2
    if nd < 1 or nd > 3:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D)")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if scale_factor is not None or size is None:
        raise NotImplementedError("interpolate in scripted code takes `size` (not scale_factor)")
    if isinstance(size, int):
        out_sizes = [size] * nd
    else:
        out_sizes = list(size)
    if len(out_sizes) != nd:
        raise ValueError("Input and output must have the same number of spatial dimensions")
    if (mode == "nearest" or mode == "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    kind = "linear" if mode == "bilinear" or mode == "trilinear" or mode == "linear" else \
        "cubic" if mode == "bicubic" else mode
    if kind != "linear" and kind != "cubic" and kind != "nearest" and kind != "nearest-exact":
        raise NotImplementedError(f"interpolate in scripted code has no mode {mode}")
    align = align_corners is not None and align_corners
    out, changed = input, False
    for d in range(nd):
        n = input.shape[2 + d]
        if n <= 0 or out_sizes[d] <= 0:
            raise RuntimeError("Input and output sizes should be greater than 0")
        out = _resample(out, 2 + d, out_sizes[d], n / out_sizes[d], kind, align, nd)
        changed = changed or not (kind == "linear" and out_sizes[d] == n)  # linear keeps a same-size dim as is
    return out if changed else input.clone()


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

    return {F.pad: pad, F.interpolate: interpolate, F.grid_sample: grid_sample}
