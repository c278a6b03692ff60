"""Antialiased resize of [..., C, H, W] tensors with Pillow's separable resampling: for each output
pixel, Pillow's filter (triangle for bilinear, Keys a=-0.5 for bicubic) is stretched by the downscale
factor and normalised over the input pixels it covers. The weights of one axis form a dense
(out, in) matrix, so each pass is one batched matmul; uint8 rounds and clips between passes as Pillow
does. The horizontal pass goes first, as in Pillow up to 12; Pillow 13 does some strong vertical
reductions vertically first, and where bicubic's overshoot clips in its first pass, the two orders
can differ by more than a level (bilinear never overshoots, so it stays within one)."""
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


def _round_to(x, dtype):
    if dtype.is_floating_point:
        return x
    return x.round_().clamp_(0, 255).to(dtype)


def resize_antialias(img, out_h, out_w, mode):
    """img: [..., C, H, W] uint8 or float; mode: 'bilinear' or 'bicubic'."""
    dtype = img.dtype
    work = ember.float64 if dtype == ember.float64 else ember.float32
    out = img.to(work)
    h, w = img.shape[-2], img.shape[-1]
    if out_w != w:  # Pillow resizes horizontally first, into a rounded intermediate for 8-bit images
        ww = ember.from_numpy(resample_weights(w, out_w, mode).T.copy()).to(work)
        out = _round_to(ember.matmul(out, ww), dtype).to(work)
    if out_h != h:
        wh = ember.from_numpy(resample_weights(h, out_h, mode)).to(work)
        out = ember.matmul(wh, out)
    return _round_to(out, dtype) if out.dtype != dtype else out.clone() if out is img else out
