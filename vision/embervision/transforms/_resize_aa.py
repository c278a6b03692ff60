"""Antialiased resize of [..., C, H, W] tensors with Pillow's separable resampling: for each output
pixel, Pillow's filter (triangle for bilinear, Keys a=-0.5 for bicubic) is stretched by the downscale
factor and normalised over the input pixels it covers. The weights of one axis form a dense
(out, in) matrix here; its band (a start and ksize taps per output pixel) drives the C++ op
vision::_resize_aa (vision/csrc/transforms/resize_aa.cpp). uint8 rounds and clips between passes as
Pillow does, so the pass order matters where bicubic's overshoot clips in the first pass (on noise, by up
to ~20 levels): we take Pillow 13's order, vertical first when the height shrinks by more than twice as
many pixels as the width (its ImagingResampleInner), horizontal first otherwise (always, up to Pillow 12).
What remains is Pillow's fixed-point rounding (22-bit integer taps): within one level."""
from typing import Any

import functools

import ember
import numpy as np


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x, a: Any = -0.5):
    x = np.abs(x)
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


_FILTERS = {"bilinear": (_triangle, 1.0), "bicubic": (_keys_cubic, 2.0)}


def resample_weights(in_size: Any, out_size: Any, mode: Any):
    """The (out_size, in_size) float64 matrix of Pillow's normalised filter weights for one axis."""
    kernel, support = _FILTERS[mode]
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = support * filterscale
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        center = (i + 0.5) * scale
        lo = max(int(center - support + 0.5), 0)  # int() truncates as Pillow's C cast does
        hi = min(int(center + support + 0.5), in_size)
        taps = kernel((np.arange(lo, hi) - center + 0.5) * (1.0 / filterscale))  # Pillow's ss = 1 / filterscale
        total = taps.sum()
        weights[i, lo:hi] = taps / total if total != 0 else taps
    return weights


@functools.lru_cache(maxsize=64)
def _taps_numpy(in_size: Any, out_size: Any, mode: Any):
    dense = resample_weights(in_size, out_size, mode)
    nonzero = dense != 0
    lo = np.where(nonzero.any(1), nonzero.argmax(1), 0)
    hi = np.where(nonzero.any(1), in_size - nonzero[:, ::-1].argmax(1), 1)
    ksize = int(max(1, (hi - lo).max()))
    start = np.minimum(lo, in_size - ksize)  # a window near the end starts earlier, its extra taps zero
    taps = np.stack([dense[i, start[i]:start[i] + ksize] for i in range(out_size)])
    # Pillow's 8-bit taps: the weight in 22-bit fixed point, rounded half away from zero (its C cast truncates)
    fixed = np.trunc(taps * (1 << _PRECISION_BITS) + np.where(taps < 0, -0.5, 0.5)).astype(np.int32)
    return start.astype(np.int64), taps.astype(np.float32), fixed


_PRECISION_BITS = 22  # Pillow's PRECISION_BITS for 8-bit images (32 - 8 - 2)


def resample_taps(in_size: Any, out_size: Any, mode: Any, fixed: Any = False):
    """Banded form of resample_weights for the C++ op: (start int64 [out], weights [out, ksize]), float32, or
    for uint8 images (fixed=True) int32 in Pillow's fixed point; a pipeline resizes many images between the same
    sizes, so the NumPy taps are cached."""
    start, taps, fixed_taps = _taps_numpy(in_size, out_size, mode)
    return ember.from_numpy(start.copy()), ember.from_numpy((fixed_taps if fixed else taps).copy())


def _axis(in_size: Any, out_size: Any, mode: Any, fixed: Any):
    if in_size == out_size:
        return ember.empty(0, dtype=ember.int64), ember.empty(0, 0)
    return resample_taps(in_size, out_size, mode, fixed)


def vertical_first(h: Any, w: Any, out_h: Any, out_w: Any):
    """Pillow 13's pass order: the vertical pass first when the height loses more than twice as many pixels
    as the width does (so the horizontal pass has fewer rows to filter)."""
    return h - out_h > 0 and h - out_h > 2 * (w - out_w)


def resize_antialias(img, out_h: Any, out_w: Any, mode: Any):
    """img: [..., C, H, W] (or [H, W]) uint8 or float; mode: 'bilinear' or 'bicubic'."""
    import embervision  # noqa: F401  (registers ember.ops.vision)
    shape, dtype = list(img.shape), img.dtype
    h, w = shape[-2], shape[-1]
    flat = img.reshape(-1, h, w)
    native = dtype in (ember.uint8, ember.float32, ember.float64)
    work = flat if native else flat.to(ember.float32)
    fixed = work.dtype == ember.uint8
    v_start, v_weight = _axis(h, out_h, mode, fixed)
    h_start, h_weight = _axis(w, out_w, mode, fixed)
    resample = ember.ops.vision._resize_aa
    if len(v_start) and len(h_start) and vertical_first(h, w, out_h, out_w):
        none = ember.empty(0, dtype=ember.int64), ember.empty(0, 0)
        out = resample(resample(work, v_start, v_weight, *none), *none, h_start, h_weight)
    else:
        out = resample(work, v_start, v_weight, h_start, h_weight)
    if not native:
        info = ember.iinfo(dtype) if not dtype.is_floating_point else None
        out = out.to(dtype) if info is None else out.round().clamp(info.min, info.max).to(dtype)
    return out.reshape(shape[:-2] + [out_h, out_w])
