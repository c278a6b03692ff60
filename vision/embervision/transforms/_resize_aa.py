"""Antialiased resize of [..., C, H, W] tensors as Pillow resamples, on the core's antialiased interpolate
(ember.nn.functional.interpolate(antialias=True): PyTorch's _upsample_bilinear2d_aa/_upsample_bicubic2d_aa, whose
filters, supports and windows are Pillow's), so it scripts and needs no NumPy. uint8 images resample one axis at a
time in float32, rounded half up and clipped to 0..255 between the passes as Pillow's 8-bit passes are, in Pillow
13's pass order: the vertical pass first when the height shrinks by more than twice as many pixels as the width (its
ImagingResampleInner), horizontal first otherwise (always, up to Pillow 12); where bicubic's overshoot clips in the
first pass (on noise, by up to ~20 levels) the order matters. What remains is Pillow's 22-bit fixed-point taps:
within one level. (The core op's own uint8 path is PyTorch's int16 fixed point, up to 2 levels from Pillow.)"""
import ember
import ember.nn.functional as F

from ._functional_convert import _max as int_max
from ._functional_convert import _min as int_min


def vertical_first(h: int, w: int, out_h: int, out_w: int) -> bool:
    """Pillow 13's pass order: the vertical pass first when the height loses more than twice as many pixels
    as the width does (so the horizontal pass has fewer rows to filter)."""
    return h - out_h > 0 and h - out_h > 2 * (w - out_w)


def _resample(x, out_h: int, out_w: int, mode: str):
    return F.interpolate(x, size=[out_h, out_w], mode=mode, align_corners=False, antialias=True)


def _levels(x, clip: bool):
    """Pillow's 8-bit pass result: rounded half up (its sum from half a unit, shifted), clipped."""
    x = (x + 0.5).floor_()
    return x.clamp_(0.0, 255.0) if clip else x


def _resize_uint8(flat, out_h: int, out_w: int, mode: str):
    h, w = flat.shape[-2], flat.shape[-1]
    if mode == "bilinear":  # no overshoot to clip: the core op's uint8 passes (horizontal first) are within a level
        if h != out_h and w != out_w and vertical_first(h, w, out_h, out_w):
            flat = _resample(flat, out_h, w, mode)
        return _resample(flat, out_h, out_w, mode)
    x = flat.to(ember.float32)
    if h != out_h and w != out_w:  # two passes: Pillow's order, rounded between
        if vertical_first(h, w, out_h, out_w):
            x = _levels(_resample(x, out_h, w, mode), mode == "bicubic")
        else:
            x = _levels(_resample(x, h, out_w, mode), mode == "bicubic")
    return _levels(_resample(x, out_h, out_w, mode), True).to(ember.uint8)


def resize_antialias(img, out_h: int, out_w: int, mode: str):
    """img: [..., C, H, W] (or [H, W]) of any dtype; mode: 'bilinear' or 'bicubic'."""
    shape = list(img.shape)
    dtype = img.dtype
    h, w = shape[-2], shape[-1]
    flat = img.reshape(-1, 1, h, w)
    if dtype == ember.uint8:
        out = _resize_uint8(flat, out_h, out_w, mode)
    elif dtype == ember.float32 or dtype == ember.float64:
        out = _resample(flat, out_h, out_w, mode)
    else:
        out = _resample(flat.to(ember.float32), out_h, out_w, mode)
        if img.is_floating_point():
            out = out.to(dtype)
        else:
            out = out.round().clamp(int_min(dtype), int_max(dtype)).to(dtype)
    return out.reshape(shape[:-2] + [out_h, out_w])
