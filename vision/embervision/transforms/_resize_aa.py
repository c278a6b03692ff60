"""Antialiased resize of [..., C, H, W] tensors with Pillow's separable resampling: for each output
pixel, Pillow's filter (triangle for bilinear, Keys a=-0.5 for bicubic) is stretched by the downscale
factor and normalised over the input pixels it covers. The weights of one axis form a dense
(out, in) matrix here; its band (a start and ksize taps per output pixel) drives the C++ op
vision::_resize_aa (vision/csrc/transforms/resize_aa.cpp). uint8 rounds and clips between passes as
Pillow does. The horizontal pass goes first, as in Pillow up to 12; Pillow 13 does some strong vertical
reductions vertically first, and where bicubic's overshoot clips in its first pass, the two orders
can differ by more than a level (bilinear never overshoots, so it stays within one)."""
import functools

import ember
import numpy as np


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x, a=-0.5):
    x = np.abs(x)
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


_FILTERS = {"bilinear": (_triangle, 1.0), "bicubic": (_keys_cubic, 2.0)}


def resample_weights(in_size, out_size, mode):
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
        taps = kernel((np.arange(lo, hi) - center + 0.5) / filterscale)
        total = taps.sum()
        weights[i, lo:hi] = taps / total if total != 0 else taps
    return weights


@functools.lru_cache(maxsize=64)
def _taps_numpy(in_size, out_size, mode):
    dense = resample_weights(in_size, out_size, mode)
    nonzero = dense != 0
    lo = np.where(nonzero.any(1), nonzero.argmax(1), 0)
    hi = np.where(nonzero.any(1), in_size - nonzero[:, ::-1].argmax(1), 1)
    ksize = int(max(1, (hi - lo).max()))
    start = np.minimum(lo, in_size - ksize)  # a window near the end starts earlier, its extra taps zero
    taps = np.stack([dense[i, start[i]:start[i] + ksize] for i in range(out_size)])
    return start.astype(np.int64), taps.astype(np.float32)


def resample_taps(in_size, out_size, mode):
    """Banded form of resample_weights for the C++ op: (start int64 [out], weights float32 [out, ksize]);
    a pipeline resizes many images between the same sizes, so the NumPy taps are cached."""
    start, taps = _taps_numpy(in_size, out_size, mode)
    return ember.from_numpy(start.copy()), ember.from_numpy(taps.copy())


def _axis(in_size, out_size, mode):
    if in_size == out_size:
        return ember.empty(0, dtype=ember.int64), ember.empty(0, 0)
    return resample_taps(in_size, out_size, mode)


def resize_antialias(img, out_h, out_w, mode):
    """img: [..., C, H, W] (or [H, W]) uint8 or float; mode: 'bilinear' or 'bicubic'."""
    import embervision  # noqa: F401  (registers ember.ops.vision)
    shape, dtype = list(img.shape), img.dtype
    h, w = shape[-2], shape[-1]
    flat = img.reshape(-1, h, w)
    native = dtype in (ember.uint8, ember.float32, ember.float64)
    work = flat if native else flat.to(ember.float32)
    v_start, v_weight = _axis(h, out_h, mode)
    h_start, h_weight = _axis(w, out_w, mode)
    out = ember.ops.vision._resize_aa(work, v_start, v_weight, h_start, h_weight)
    if not native:
        info = ember.iinfo(dtype) if not dtype.is_floating_point else None
        out = out.to(dtype) if info is None else out.round().clamp(info.min, info.max).to(dtype)
    return out.reshape(shape[:-2] + [out_h, out_w])
