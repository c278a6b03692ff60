"""The tensor half of transforms.functional's colour ops on [..., C, H, W] uint8 or float tensors
(torchvision 0.10's formulas: blends clamp to the dtype's range; uint8 results truncate as its
`.to(uint8)` does, except grayscale, which rounds as Pillow's convert("L") does)."""
from typing import Any

import ember
import ember.nn.functional as F

from ._functional_convert import convert_image_dtype
from ._functional_tensor import check_image, from_batch, max_value, to_batch


def _channels(img):
    check_image(img)
    return 1 if img.dim() == 2 else img.shape[-3]


def _assert_channels(img, permitted: Any):
    c = _channels(img)
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but found {c}")


def _blend(img1: Any, img2: Any, ratio: Any):
    bound = max_value(img1.dtype)
    return (ratio * img1.float() + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def rgb_to_grayscale(img, num_output_channels: Any = 1):
    if img.dim() < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.dim()}")
    _assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.float().unbind(-3)
        gray = (0.2989 * r + 0.587 * g + 0.114 * b).unsqueeze(-3)
        gray = gray if img.is_floating_point() else gray.round()
        gray = gray.to(img.dtype)
    else:
        gray = img.clone()
    if num_output_channels == 3:
        return gray.expand(list(gray.shape[:-3]) + [3] + list(gray.shape[-2:])).contiguous()
    return gray


def adjust_brightness(img, brightness_factor: Any):
    _assert_channels(img, [1, 3])
    return _blend(img, ember.zeros_like(img, dtype=ember.float32), brightness_factor)


def adjust_contrast(img, contrast_factor: Any):
    _assert_channels(img, [3, 1])
    gray = rgb_to_grayscale(img) if _channels(img) == 3 else img
    mean = gray.float().mean(dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img, saturation_factor: Any):
    _assert_channels(img, [1, 3])
    if _channels(img) == 1:
        return img
    return _blend(img, rgb_to_grayscale(img).float(), saturation_factor)


def _rgb2hsv(img):
    r, g, b = img.unbind(-3)
    maxc, minc = img.amax(-3), img.amin(-3)
    eqc = maxc == minc
    cr = maxc - minc
    ones = ember.ones_like(maxc)
    s = cr / ember.where(eqc, ones, maxc)
    cr_divisor = ember.where(eqc, ones, cr)
    rc, gc, bc = (maxc - r) / cr_divisor, (maxc - g) / cr_divisor, (maxc - b) / cr_divisor
    hr = (maxc == r).float() * (bc - gc)
    hg = ((maxc == g) & (maxc != r)).float() * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)).float() * (4.0 + gc - rc)
    h = ember.remainder((hr + hg + hb) / 6.0 + 1.0, 1.0)
    return ember.stack([h, s, maxc], -3)


def _hsv2rgb(img):
    h, s, v = img.unbind(-3)
    i = ember.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.to(ember.int64) % 6
    p = (v * (1.0 - s)).clamp(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0)
    # sextant i picks (r, g, b) among (v, q, p, t)
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    r, g, b = ember.zeros_like(v), ember.zeros_like(v), ember.zeros_like(v)
    for k in range(6):
        sel = i == k
        cr, cg, cb = table[k]
        r, g, b = ember.where(sel, cr, r), ember.where(sel, cg, g), ember.where(sel, cb, b)
    return ember.stack([r, g, b], -3)


def adjust_hue(img, hue_factor: Any):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _assert_channels(img, [1, 3])
    if _channels(img) == 1:
        return img
    dtype = img.dtype
    work = img.float() / 255.0 if dtype == ember.uint8 else img.float()
    hsv = _rgb2hsv(work)
    h, s, v = hsv.unbind(-3)
    h = ember.remainder(h + hue_factor, 1.0)
    out = _hsv2rgb(ember.stack([h, s, v], -3))
    return (out * 255.0).to(dtype) if dtype == ember.uint8 else out.to(dtype)


def adjust_gamma(img, gamma: Any, gain: Any = 1.0):
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    _assert_channels(img, [1, 3])
    work = img if img.is_floating_point() else convert_image_dtype(img, ember.float32)
    out = (gain * work ** gamma).clamp(0, 1)
    return convert_image_dtype(out, img.dtype)


def invert(img):
    _assert_channels(img, [1, 3])
    return max_value(img.dtype) - img if img.is_floating_point() else (255 - img).to(img.dtype)


def posterize(img, bits: Any):
    if img.dtype != ember.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    mask = 256 - int(2 ** (8 - bits))  # keeps the top `bits` bits
    return img & mask


def solarize(img, threshold: Any):
    _assert_channels(img, [1, 3])
    if threshold > max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return ember.where(img >= threshold, invert(img), img)


def _blurred_degenerate(img):
    """Pillow's SMOOTH filter (3x3, centre 5, others 1, over 13) inside, the border pixels unchanged."""
    flat = to_batch(img)
    work = flat.float()
    c = work.shape[1]
    kernel = ember.ones(3, 3)
    kernel[1, 1] = 5.0
    kernel = (kernel / kernel.sum()).expand(c, 1, 3, 3)
    inner = F.conv2d(work, kernel, groups=c)
    if not img.is_floating_point():
        inner = inner.round()
    out = work.clone()
    out[..., 1:-1, 1:-1] = inner
    return from_batch(out, img)


def adjust_sharpness(img, sharpness_factor: Any):
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    _assert_channels(img, [1, 3])
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    return _blend(img, _blurred_degenerate(img), sharpness_factor)


def autocontrast(img):
    if img.dim() < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.dim()}")
    _assert_channels(img, [1, 3])
    bound = max_value(img.dtype)
    work = img.float()
    low = work.amin(dim=(-2, -1), keepdim=True)
    high = work.amax(dim=(-2, -1), keepdim=True)
    flat = high == low
    scale = bound / ember.where(flat, ember.ones_like(high), high - low)
    low = ember.where(flat, ember.zeros_like(low), low)
    scale = ember.where(flat, ember.ones_like(scale), scale)
    return ((work - low) * scale).clamp(0, bound).to(img.dtype)


def _equalize_channel(chan: Any):
    """Pillow's equalize of one uint8 channel: a lookup table from the cumulative histogram."""
    hist = ember.bincount(chan.flatten().to(ember.int64), minlength=256)
    nonzero = ember.masked_select(hist, hist != 0)
    step = int(nonzero[:-1].sum() // 255) if nonzero.numel() > 0 else 0
    if step == 0:
        return chan
    lut = (ember.cumsum(hist, 0) + step // 2) // step
    lut = ember.cat([ember.zeros(1, dtype=lut.dtype), lut[:-1]]).clamp(0, 255)
    index = chan.to(ember.int64)
    return lut.index_select(0, index.flatten()).reshape(index.shape).to(ember.uint8)


def equalize(img):
    if img.dtype != ember.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    if img.dim() < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.dim()}")
    flat = img.reshape(-1, img.shape[-2], img.shape[-1])
    return ember.stack([_equalize_channel(c) for c in flat.unbind(0)]).reshape(img.shape)
