"""The PIL half of transforms.functional: each op on a PIL image through Pillow (torchvision 0.10's
semantics). The public functions in functional.py check arguments and dispatch here."""
import numbers

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

from ._interpolation import PIL_MODES, InterpolationMode


def is_pil_image(img):
    return isinstance(img, Image.Image)


def _check(img):
    if not is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_image_size(img):
    _check(img)
    return list(img.size)  # [width, height]


def get_image_num_channels(img):
    _check(img)
    return 1 if img.mode in ("1", "L", "I", "F", "P", "I;16") else len(img.getbands())


def hflip(img):
    _check(img)
    return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)


def crop(img, top, left, height, width):
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation):
    """`size` is the final [h, w] (functional.resize computed it)."""
    _check(img)
    h, w = size
    return img.resize((w, h), PIL_MODES[interpolation])


def pad(img, padding, fill=0, padding_mode="constant"):
    """`padding` is [left, top, right, bottom]; negative values crop, as in torchvision."""
    _check(img)
    left, top, right, bottom = padding
    if padding_mode == "constant":
        fill = _parse_fill(fill, img)
        if img.mode == "P":
            palette = img.getpalette()
            out = ImageOps.expand(img, border=(left, top, right, bottom), **fill)
            out.putpalette(palette)
            return out
        if min(padding) >= 0:
            return ImageOps.expand(img, border=(left, top, right, bottom), **fill)
    arr = np.asarray(img)
    # negative padding crops first, then the rest pads through NumPy's modes (edge/reflect/symmetric)
    crop_l, crop_t, crop_r, crop_b = (-min(p, 0) for p in (left, top, right, bottom))
    arr = arr[crop_t:arr.shape[0] - crop_b, crop_l:arr.shape[1] - crop_r]
    left, top, right, bottom = (max(p, 0) for p in (left, top, right, bottom))
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    if padding_mode == "constant":
        value = fill.get("fill", 0)
        if arr.ndim == 3 and isinstance(value, tuple):
            out = np.stack([np.pad(arr[..., c], widths[:2], mode="constant", constant_values=value[c])
                            for c in range(arr.shape[2])], -1)
        else:
            out = np.pad(arr, widths, mode="constant", constant_values=value)
    else:
        out = np.pad(arr, widths, mode=padding_mode)
    if img.mode == "P":
        res = Image.fromarray(out, mode="P")
        res.putpalette(img.getpalette())
        return res
    return Image.fromarray(out, mode=img.mode)


def _parse_fill(fill, img, name="fill"):
    """Pillow's form of a fill value: a number for one band, a tuple for several."""
    bands = len(img.getbands())
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) != bands:
            raise ValueError(f"The number of elements in 'fill' does not match the number of bands of the image "
                             f"({len(fill)} != {bands})")
        fill = tuple(int(v) if img.mode != "F" else float(v) for v in fill)
        if bands == 1:
            fill = fill[0]
    return {name: fill}


def affine(img, matrix, interpolation=InterpolationMode.NEAREST, fill=None):
    """`matrix` is the inverse affine (output pixel -> input pixel), 6 floats, as Pillow wants."""
    _check(img)
    opts = _parse_fill(fill, img, "fillcolor")
    return img.transform(img.size, Image.Transform.AFFINE, matrix, PIL_MODES[interpolation], **opts)


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    _check(img)
    opts = _parse_fill(fill, img, "fillcolor")
    return img.rotate(angle, PIL_MODES[interpolation], expand, center, **opts)


def perspective(img, perspective_coeffs, interpolation=InterpolationMode.BICUBIC, fill=None):
    _check(img)
    opts = _parse_fill(fill, img, "fillcolor")
    return img.transform(img.size, Image.Transform.PERSPECTIVE, perspective_coeffs, PIL_MODES[interpolation], **opts)


def to_grayscale(img, num_output_channels):
    _check(img)
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        gray = np.asarray(img.convert("L"))
        return Image.fromarray(np.stack([gray] * 3, -1), "RGB")
    raise ValueError("num_output_channels should be either 1 or 3")


def adjust_brightness(img, brightness_factor):
    _check(img)
    return ImageEnhance.Brightness(img).enhance(brightness_factor)


def adjust_contrast(img, contrast_factor):
    _check(img)
    return ImageEnhance.Contrast(img).enhance(contrast_factor)


def adjust_saturation(img, saturation_factor):
    _check(img)
    return ImageEnhance.Color(img).enhance(saturation_factor)


def adjust_hue(img, hue_factor):
    _check(img)
    if img.mode in {"L", "1", "I", "F"}:
        return img
    mode = img.mode
    h, s, v = img.convert("HSV").split()
    shifted = (np.asarray(h).astype(np.int16) + np.int16(round(hue_factor * 255))) % 256  # hue wraps around
    h = Image.fromarray(shifted.astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(mode)


def adjust_gamma(img, gamma, gain=1.0):
    _check(img)
    mode = img.mode
    rgb = img.convert("RGB")
    table = [int((255 + 1 - 1e-3) * gain * pow(ele / 255.0, gamma)) for ele in range(256)] * 3
    return rgb.point(table).convert(mode)


def invert(img):
    _check(img)
    return ImageOps.invert(img)


def posterize(img, bits):
    _check(img)
    return ImageOps.posterize(img, bits)


def solarize(img, threshold):
    _check(img)
    return ImageOps.solarize(img, threshold)


def adjust_sharpness(img, sharpness_factor):
    _check(img)
    return ImageEnhance.Sharpness(img).enhance(sharpness_factor)


def autocontrast(img):
    _check(img)
    return ImageOps.autocontrast(img)


def equalize(img):
    _check(img)
    return ImageOps.equalize(img)


def is_number(v):
    return isinstance(v, numbers.Number)
