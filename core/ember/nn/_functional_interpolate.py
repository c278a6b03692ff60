"""interpolate / upsample of ember.nn.functional (re-exported there): separable 1-D resampling
along each spatial dim with index_select and weights (nearest, nearest-exact, linear, cubic),
and adaptive average pooling for 'area'; PyTorch's coordinate rules for align_corners and
scale_factor."""
from __future__ import annotations

import numbers
import struct

from .. import _C
from ._arg_checks import check_int, reserve, size_from_float, tensor_args

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = {"nearest": (1, 2, 3), "nearest-exact": (1, 2, 3), "linear": (1,), "bilinear": (2,), "bicubic": (2,),
          "trilinear": (3,), "area": (1, 2, 3)}
_CUBIC_A = -0.75
ANTIALIAS_MODES = "Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input"
_CHANNELS_LAST_CODE = {4: 2, 5: 3}  # the channels_last(_3d) code of ember._C._suggest_memory_format per rank


def _sources(out_size, in_size, scale, align_corners, cubic):
    """The source coordinate of every output index (float64), as PyTorch's area_pixel rule."""
    dst = _C.arange(out_size, dtype=_C.float64)
    if align_corners:
        return dst * (in_size - 1) / (out_size - 1) if out_size > 1 else dst * 0
    src = (dst + 0.5) * scale - 0.5
    return src if cubic else src.clamp_min(0.0)


def cubic_weights(t):
    """The four taps' weights of cubic convolution (Keys, A = -0.75, as PyTorch) at fraction t of
    the way from tap 1 to tap 2; t may be a float or a tensor (then differentiable in t)."""
    def near(d):  # |d| <= 1
        return ((_CUBIC_A + 2) * d - (_CUBIC_A + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((_CUBIC_A * d - 5 * _CUBIC_A) * d + 8 * _CUBIC_A) * d - 4 * _CUBIC_A
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _nearest_sources(n, out_size, scale, exact, shortcuts):
    """The input index of each output (an int64 tensor), as PyTorch's CPU kernels compute it: in
    float32 from the scale; PyTorch's 2-D "nearest" kernel alone takes an output of the input's
    size or twice it as the identity or o // 2 whatever scale_factor says (`shortcuts`)."""
    dst = _C.arange(out_size, dtype=_C.int64)
    if shortcuts and out_size == n:
        return dst
    if shortcuts and out_size == 2 * n:
        return dst // 2
    off = 0.5 if exact else 0.0
    # a product of two float32 values is exact in a double, so rounding it once gives float32's product
    pos = ((dst.to(_C.float64) + off) * _to_float32(scale)).to(_C.float32)
    return pos.floor().to(_C.int64).clamp_max(n - 1)


def _to_float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def _resample(x, dim, out_size, scale, mode, align_corners, nd):
    """x resampled along dim to out_size (scale: input positions per output position); the
    index maps and weights are tensors, one entry per output position."""
    n = x.shape[dim]
    shape = [1] * x.dim()
    shape[dim] = out_size
    if mode in ("nearest", "nearest-exact"):
        shortcuts = mode == "nearest" and nd == 2
        return x.index_select(dim, _nearest_sources(n, out_size, scale, mode == "nearest-exact", shortcuts))
    if mode == "linear":
        if out_size == n:  # PyTorch's linear kernels copy a dim whose size does not change, whatever the scale
            return x
        s = _sources(out_size, n, scale, align_corners, False)
        i0 = s.floor().clamp_max(n - 1)
        w = (s - i0).to(x.dtype).reshape(shape)
        lo = i0.to(_C.int64)
        a = x.index_select(dim, lo)
        b = x.index_select(dim, (lo + 1).clamp_max(n - 1))
        return a + (b - a) * w
    # cubic convolution, taps clamped at the borders
    s = _sources(out_size, n, scale, align_corners, True)
    i0 = s.floor()
    start = i0.to(_C.int64) - 1
    out = None
    for k, wk in enumerate(cubic_weights(s - i0)):
        tap = (start + k).clamp(0, n - 1)
        term = x.index_select(dim, tap) * wk.to(x.dtype).reshape(shape)
        out = term if out is None else out + term
    return out


def _output_sizes(input, size, scale_factor, recompute_scale_factor, nd):
    """The output's spatial sizes and each dim's scale (input positions per output position),
    checked before anything is allocated: positive, and within int64."""
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = [size] * nd if not isinstance(size, (list, tuple)) else list(size)
        if len(out_sizes) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {in_sizes} and output size of {out_sizes}. Please provide input "
                             "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        out_sizes = [check_int("interpolate", "size", o) for o in out_sizes]
        scales = None
    else:
        factors = [scale_factor] * nd if not isinstance(scale_factor, (list, tuple)) else list(scale_factor)
        if len(factors) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {in_sizes} and scale_factor of shape {factors}.")
        for f in factors:
            if isinstance(f, bool) or not isinstance(f, numbers.Real):
                raise TypeError(f"interpolate(): scale_factor must be a float or a sequence of floats, not "
                                f"{type(f).__name__}")
        out_sizes = [size_from_float("interpolate", i * float(f)) for i, f in zip(in_sizes, factors)]
        if any(o <= 0 for o in out_sizes):
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got input {tuple(in_sizes)} "
                               f"and output {tuple(out_sizes)}")
        scales = None if recompute_scale_factor else [1.0 / f for f in factors]
    if any(o <= 0 for o in out_sizes) or any(i <= 0 for i in in_sizes):  # an empty input has no source to read
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input {tuple(in_sizes)} and "
                           f"output {tuple(out_sizes)}")
    if scales is None:
        scales = [i / o for i, o in zip(in_sizes, out_sizes)]
    return out_sizes, scales


@tensor_args("input")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resizes the spatial dims (all dims after N, C) to `size` or by `scale_factor`."""
    if not isinstance(mode, str) or mode not in _MODES:  # (a list would not even hash)
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
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError(ANTIALIAS_MODES)
    align_corners = bool(align_corners)
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    out_sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor, nd)
    # the output's memory asked for once, before any index map is built: a size beyond the machine's
    # memory fails at once, naming the op and the bytes
    reserve("interpolate", list(input.shape[:2]) + out_sizes, input.dtype)
    if mode == "area":
        return _C._nn.adaptive_avg_pool(input, out_sizes)
    if antialias:  # the op takes the factors themselves (None: from the sizes), as PyTorch's
        factors = None
        if scale_factor is not None and not recompute_scale_factor:
            given = scale_factor if isinstance(scale_factor, (list, tuple)) else [scale_factor] * 2
            factors = [float(f) for f in given]
        op = _C._nn._upsample_bilinear2d_aa if mode == "bilinear" else _C._nn._upsample_bicubic2d_aa
        return op(input, out_sizes, align_corners, *(factors or [None, None]))
    kind = "nearest" if mode == "nearest" else "nearest-exact" if mode == "nearest-exact" else \
        "cubic" if mode == "bicubic" else "linear"
    out = input
    # A channels_last input resamples as (N, *spatial, C): each gathered position is a run of C values and
    # the result is channels_last again, as PyTorch's upsample kernels give (no transposes in between).
    channels_last = _C._suggest_memory_format(input) == _CHANNELS_LAST_CODE.get(input.dim())
    out = input.movedim(1, -1) if channels_last else input
    unchanged = True  # every dim kept its size: the result must still be a new tensor
    for d in range(nd):
        resampled = _resample(out, (1 if channels_last else 2) + d, out_sizes[d], scales[d], kind, align_corners, nd)
        unchanged, out = unchanged and resampled is out, resampled
    if channels_last:
        out = out.movedim(-1, 1)
    return input.clone() if unchanged else out


@tensor_args("input")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


@tensor_args("input")
def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


@tensor_args("input")
def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
