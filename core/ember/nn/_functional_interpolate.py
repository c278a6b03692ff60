"""interpolate / upsample of ember.nn.functional (re-exported there): separable 1-D resampling
along each spatial dim with index_select and weights (nearest, nearest-exact, linear, cubic),
and adaptive average pooling for 'area'; PyTorch's coordinate rules for align_corners and
scale_factor."""
from __future__ import annotations

import math
import struct

from .. import _C

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = {"nearest": (1, 2, 3), "nearest-exact": (1, 2, 3), "linear": (1,), "bilinear": (2,), "bicubic": (2,),
          "trilinear": (3,), "area": (1, 2, 3)}
_CUBIC_A = -0.75


def _source(dst, in_size, out_size, scale, align_corners, cubic):
    """The source coordinate of output index dst."""
    if align_corners:
        return dst * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    src = (dst + 0.5) * scale - 0.5
    return src if cubic else max(src, 0.0)


def cubic_weights(t):
    """The four taps' weights of cubic convolution (Keys, A = -0.75, as PyTorch) at fraction t of
    the way from tap 1 to tap 2; t may be a float or a tensor (then differentiable in t)."""
    def near(d):  # |d| <= 1
        return ((_CUBIC_A + 2) * d - (_CUBIC_A + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((_CUBIC_A * d - 5 * _CUBIC_A) * d + 8 * _CUBIC_A) * d - 4 * _CUBIC_A
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _nearest_sources(n, out_size, scale, exact):
    """The input index of each output, as PyTorch's kernels compute it: in float32, and for
    "nearest" the identity and exact doubling taken as special cases (no rounding there)."""
    if not exact and out_size == n:
        return list(range(out_size))
    if not exact and out_size == 2 * n:
        return [o >> 1 for o in range(out_size)]
    off = 0.5 if exact else 0.0
    scale32 = _to_float32(scale)
    # a product of two float32 values is exact in a double, so rounding it once gives float32's product
    return [min(int(math.floor(_to_float32((o + off) * scale32))), n - 1) for o in range(out_size)]


def _to_float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def _resample(x, dim, out_size, scale, mode, align_corners):
    """x resampled along dim to out_size (scale: input positions per output position)."""
    n = x.shape[dim]
    shape = [1] * x.dim()
    shape[dim] = out_size
    if mode in ("nearest", "nearest-exact"):
        idx = _nearest_sources(n, out_size, scale, mode == "nearest-exact")
        return x.index_select(dim, _C.tensor(idx, dtype=_C.int64))
    if mode == "linear":
        lo, hi, w = [], [], []
        for o in range(out_size):
            s = _source(o, n, out_size, scale, align_corners, False)
            i0 = min(int(math.floor(s)), n - 1)
            i1 = min(i0 + 1, n - 1)
            lo.append(i0)
            hi.append(i1)
            w.append(s - i0)
        wt = _C.tensor(w, dtype=x.dtype).reshape(shape)
        a = x.index_select(dim, _C.tensor(lo, dtype=_C.int64))
        b = x.index_select(dim, _C.tensor(hi, dtype=_C.int64))
        return a + (b - a) * wt
    # cubic convolution, taps clamped at the borders
    taps = [[] for _ in range(4)]
    weights = [[] for _ in range(4)]
    for o in range(out_size):
        s = _source(o, n, out_size, scale, align_corners, True)
        i0 = int(math.floor(s))
        t = s - i0
        for k, wk in enumerate(cubic_weights(t)):
            taps[k].append(min(max(i0 - 1 + k, 0), n - 1))
            weights[k].append(wk)
    out = None
    for k in range(4):
        term = x.index_select(dim, _C.tensor(taps[k], dtype=_C.int64)) * _C.tensor(weights[k], dtype=x.dtype).reshape(shape)
        out = term if out is None else out + term
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resizes the spatial dims (all dims after N, C) to `size` or by `scale_factor`."""
    if mode not in _MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    nd = input.dim() - 2
    if nd not in _MODES[mode]:
        need = " or ".join(f"{d + 2}D" for d in _MODES[mode])
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {need} input")
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    align_corners = bool(align_corners)
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = [size] * nd if isinstance(size, int) else list(size)
        if len(out_sizes) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {in_sizes} and output size of {out_sizes}. Please provide input "
                             "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        scales = [i / o for i, o in zip(in_sizes, out_sizes)]
    else:
        factors = [scale_factor] * nd if isinstance(scale_factor, (int, float)) else list(scale_factor)
        if len(factors) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {in_sizes} and scale_factor of shape {factors}.")
        out_sizes = [int(math.floor(i * f)) for i, f in zip(in_sizes, factors)]
        scales = [i / o for i, o in zip(in_sizes, out_sizes)] if recompute_scale_factor else \
            [1.0 / f for f in factors]
    if any(o <= 0 for o in out_sizes):
        raise ValueError(f"interpolate: output size {out_sizes} must be positive")
    if mode == "area":
        return _C.adaptive_avg_pool(input, out_sizes)
    kind = "nearest" if mode == "nearest" else "nearest-exact" if mode == "nearest-exact" else \
        "cubic" if mode == "bicubic" else "linear"
    out = input
    for d in range(nd):
        out = _resample(out, 2 + d, out_sizes[d], scales[d], kind, align_corners)
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
