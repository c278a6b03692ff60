"""Script version of ember.nn.functional.interpolate (see _builtins_nn.py for why): separable 1-D resampling
along each spatial dim with index_select and weights (nearest, nearest-exact, linear, cubic) and adaptive
average pooling for 'area', with the eager function's coordinate rules (ember/nn/_functional_interpolate.py)."""
from __future__ import annotations

from typing import Any, List, Optional

import ember
import ember.nn.functional as F
from ember import Tensor

from ._ops import aten

_CUBIC_A = -0.75


def _sources(out_size: int, in_size: int, scale: float, align_corners: bool, cubic: bool) -> Tensor:
    dst = ember.arange(out_size, dtype=ember.float64)
    if align_corners:
        if out_size > 1:
            return dst * (in_size - 1) / (out_size - 1)
        return dst * 0
    src = (dst + 0.5) * scale - 0.5
    return src if cubic else src.clamp_min(0.0)


def _nearest_sources(n: int, out_size: int, scale: float, exact: bool, shortcuts: bool) -> Tensor:
    """As the eager function: in float32 from the scale (PyTorch's CPU kernels), with the 2-D nearest kernel's
    shortcuts for an output of the input's size or twice it."""
    dst = ember.arange(out_size, dtype=ember.int64)
    if shortcuts and out_size == n:
        return dst
    if shortcuts and out_size == 2 * n:
        return dst // 2
    off = 0.5 if exact else 0.0
    scale32 = ember.full([1], scale, dtype=ember.float32).to(ember.float64)  # the scale rounded to float32
    pos = ((dst.to(ember.float64) + off) * scale32).to(ember.float32)
    return pos.floor().to(ember.int64).clamp_max(n - 1)


def _near(d: Tensor) -> Tensor:
    return ((_CUBIC_A + 2) * d - (_CUBIC_A + 3)) * d * d + 1


def _far(d: Tensor) -> Tensor:
    return ((_CUBIC_A * d - 5 * _CUBIC_A) * d + 8 * _CUBIC_A) * d - 4 * _CUBIC_A


def _resample(x: Tensor, dim: int, out_size: int, scale: float, mode: str, align_corners: bool, nd: int) -> Tensor:
    n = x.size(dim)
    shape = [1 for _ in range(x.dim())]
    shape[dim] = out_size
    if mode == "nearest" or mode == "nearest-exact":
        shortcuts = mode == "nearest" and nd == 2
        return x.index_select(dim, _nearest_sources(n, out_size, scale, mode == "nearest-exact", shortcuts))
    if mode == "linear":
        if out_size == n:
            return x
        s = _sources(out_size, n, scale, align_corners, False)
        i0 = s.floor().clamp_max(n - 1)
        w = (s - i0).to(x.dtype).reshape(shape)
        lo = i0.to(ember.int64)
        a = x.index_select(dim, lo)
        b = x.index_select(dim, (lo + 1).clamp_max(n - 1))
        return a + (b - a) * w
    s = _sources(out_size, n, scale, align_corners, True)
    i0 = s.floor()
    t = s - i0
    start = i0.to(ember.int64) - 1
    weights = [_far(t + 1), _near(t), _near(1 - t), _far(2 - t)]
    out = x.index_select(dim, start.clamp(0, n - 1)) * weights[0].to(x.dtype).reshape(shape)
    for k in range(1, 4):
        tap = (start + k).clamp(0, n - 1)
        out = out + x.index_select(dim, tap) * weights[k].to(x.dtype).reshape(shape)
    return out


def _dims_for(mode: str) -> List[int]:
    if mode == "linear":
        return [1]
    if mode == "bilinear" or mode == "bicubic":
        return [2]
    if mode == "trilinear":
        return [3]
    if mode == "nearest" or mode == "nearest-exact" or mode == "area":
        return [1, 2, 3]
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported for the modes: nearest | "
                              f"linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})")


def interpolate(input, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False):
    nd = input.dim() - 2
    if nd not in _dims_for(mode):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs other input")
    if (mode == "nearest" or mode == "nearest-exact" or mode == "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if antialias and not ((mode == "bilinear" or mode == "bicubic") and nd == 2):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as "
                         "input")
    corners = False if align_corners is None else align_corners
    in_sizes = input.shape[2:]
    out_sizes: List[int] = []
    scales: List[float] = []
    factors: List[float] = []
    given_factors = False
    if size is not None:
        if scale_factor is not None:
            raise ValueError("only one of size or scale_factor should be defined")
        if isinstance(size, int):
            out_sizes = [size for _ in range(nd)]
        else:
            for v in size:
                out_sizes.append(v)
        if len(out_sizes) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {in_sizes} and output size of {out_sizes}.")
        for d in range(nd):
            scales.append(in_sizes[d] / out_sizes[d])
    else:
        if scale_factor is None:
            raise ValueError("only one of size or scale_factor should be defined")
        if isinstance(scale_factor, float):
            factors = [scale_factor for _ in range(nd)]
        else:
            for f in scale_factor:
                factors.append(f)
        if len(factors) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {in_sizes} and scale_factor of shape {factors}.")
        recompute = False if recompute_scale_factor is None else recompute_scale_factor
        given_factors = not recompute
        for d in range(nd):
            out_sizes.append(int(in_sizes[d] * factors[d]))
            scales.append(in_sizes[d] / out_sizes[d] if recompute else 1.0 / factors[d])
    for d in range(nd):
        if out_sizes[d] <= 0 or in_sizes[d] <= 0:
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got input {in_sizes} and "
                               f"output {out_sizes}")
    if mode == "area":
        if nd == 1:
            return F.adaptive_avg_pool1d(input, out_sizes)
        if nd == 2:
            return F.adaptive_avg_pool2d(input, out_sizes)
        return F.adaptive_avg_pool3d(input, out_sizes)
    if antialias:  # the op takes the factors themselves (None: from the sizes), as PyTorch's
        scale_h: Optional[float] = None
        scale_w: Optional[float] = None
        if given_factors:
            scale_h = factors[0]
            scale_w = factors[1]
        if mode == "bilinear":
            return aten._upsample_bilinear2d_aa(input, out_sizes, corners, scale_h, scale_w)
        return aten._upsample_bicubic2d_aa(input, out_sizes, corners, scale_h, scale_w)
    kind = "linear"
    if mode == "nearest" or mode == "nearest-exact":
        kind = mode
    elif mode == "bicubic":
        kind = "cubic"
    out = input
    for d in range(nd):
        out = _resample(out, 2 + d, out_sizes[d], scales[d], kind, corners, nd)
    return out.clone() if out.shape == input.shape else out


NAMES = ["interpolate"]
