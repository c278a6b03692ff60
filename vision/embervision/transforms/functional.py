"""transforms.functional: every op works on a PIL image (through Pillow) and on a tensor
[..., C, H, W] (through ember ops), with torchvision 0.10's arguments and semantics."""
from typing import Any, List

import math
import numbers
import warnings

import ember

from . import _functional_pil as F_pil
from . import _functional_tensor as F_t
from . import _functional_tensor_color as F_c
from ._functional_convert import convert_image_dtype, normalize, pil_to_tensor, to_pil_image, to_tensor
from ._interpolation import InterpolationMode, to_interpolation_mode

__all__ = ["InterpolationMode", "to_tensor", "pil_to_tensor", "convert_image_dtype", "to_pil_image", "normalize",
           "get_image_size", "get_image_num_channels", "resize", "pad", "crop", "center_crop", "resized_crop",
           "hflip", "vflip", "five_crop", "ten_crop", "adjust_brightness", "adjust_contrast", "adjust_saturation",
           "adjust_hue", "adjust_gamma", "rotate", "affine", "perspective", "to_grayscale", "rgb_to_grayscale",
           "erase", "gaussian_blur", "invert", "posterize", "solarize", "adjust_sharpness", "autocontrast",
           "equalize"]


def _is_tensor(img):
    return isinstance(img, ember.Tensor)


def get_image_size(img):
    """[width, height]."""
    return F_t.get_image_size(img) if _is_tensor(img) else F_pil.get_image_size(img)


def get_image_num_channels(img):
    return F_t.get_image_num_channels(img) if _is_tensor(img) else F_pil.get_image_num_channels(img)


def _output_size(w: Any, h: Any, size: Any, max_size: Any):
    """Resize's target [h, w]: an int (or one-element list) matches the shorter edge, keeping the ratio."""
    if isinstance(size, int) or len(size) == 1:
        requested = size if isinstance(size, int) else size[0]
        short, long = (w, h) if w <= h else (h, w)
        new_short, new_long = requested, int(requested * long / short)
        if max_size is not None:
            if max_size <= requested:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for the "
                                 f"smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        return [new_long, new_short] if w <= h else [new_short, new_long]
    if max_size is not None:
        raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, i.e. "
                         "size should be an int or a sequence of length 1 in torchscript mode.")
    return [size[0], size[1]]


def resize(img, size: Any, interpolation: Any = InterpolationMode.BILINEAR, max_size: Any = None,
           antialias: Any = None):
    """Tensors: antialias defaults to False (torchvision 0.10); PIL always antialiases."""
    if not isinstance(interpolation, InterpolationMode):
        interpolation = to_interpolation_mode(interpolation)
    if not isinstance(size, (int, list, tuple)):
        raise TypeError(f"Got inappropriate size arg: {size}")
    if isinstance(size, (list, tuple)) and len(size) not in (1, 2):
        raise ValueError(f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element tuple/list")
    w, h = get_image_size(img)
    out = _output_size(w, h, size, max_size)
    if not _is_tensor(img):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
        return F_pil.resize(img, out, interpolation)
    if interpolation not in (InterpolationMode.NEAREST, InterpolationMode.BILINEAR, InterpolationMode.BICUBIC):
        raise ValueError("This interpolation mode is unsupported with Tensor input")
    if [h, w] == out:
        return img
    return F_t.resize(img, out, interpolation.value, antialias is not None and bool(antialias))


def _parse_padding(padding: Any):
    if isinstance(padding, int):
        return [padding] * 4
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return list(padding)


def pad(img, padding: Any, fill: Any = 0, padding_mode: Any = "constant"):
    """padding: int, [all], [left/right, top/bottom] or [left, top, right, bottom]."""
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (numbers.Number, str, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2, 4):
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    padding = _parse_padding(padding)
    if _is_tensor(img):
        return F_t.pad(img, padding, fill=fill, padding_mode=padding_mode)
    return F_pil.pad(img, padding, fill=fill, padding_mode=padding_mode)


def crop(img, top: Any, left: Any, height: Any, width: Any):
    if _is_tensor(img):
        return F_t.crop(img, top, left, height, width)
    return F_pil.crop(img, top, left, height, width)


def center_crop(img, output_size: Any):
    if isinstance(output_size, numbers.Number):
        size = [int(output_size), int(output_size)]
    elif len(output_size) == 1:
        size = [output_size[0], output_size[0]]
    else:
        size = [output_size[0], output_size[1]]
    w, h = get_image_size(img)
    crop_h, crop_w = size[0], size[1]
    if crop_w > w or crop_h > h:  # pads first so the crop fits, as torchvision does
        padding = [(crop_w - w) // 2 if crop_w > w else 0, (crop_h - h) // 2 if crop_h > h else 0,
                   (crop_w - w + 1) // 2 if crop_w > w else 0, (crop_h - h + 1) // 2 if crop_h > h else 0]
        img = pad(img, padding, fill=0)
        w, h = get_image_size(img)
        if crop_w == w and crop_h == h:
            return img
    top = int(round((h - crop_h) / 2.0))
    left = int(round((w - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def resized_crop(img, top: Any, left: Any, height: Any, width: Any, size: Any,
                 interpolation: Any = InterpolationMode.BILINEAR, antialias: Any = None):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def hflip(img):
    return F_t.hflip(img) if _is_tensor(img) else F_pil.hflip(img)


def vflip(img):
    return F_t.vflip(img) if _is_tensor(img) else F_pil.vflip(img)


def _crop_size(size: Any):
    """five_crop/ten_crop's size as (h, w): one number or a 1-element sequence means a square."""
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return size


def five_crop(img, size: Any):
    """(top-left, top-right, bottom-left, bottom-right, center) crops of `size`."""
    size = _crop_size(size)
    w, h = get_image_size(img)
    crop_h, crop_w = size
    if crop_w > w or crop_h > h:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(h, w)}")
    return (crop(img, 0, 0, crop_h, crop_w), crop(img, 0, w - crop_w, crop_h, crop_w),
            crop(img, h - crop_h, 0, crop_h, crop_w), crop(img, h - crop_h, w - crop_w, crop_h, crop_w),
            center_crop(img, [crop_h, crop_w]))


def ten_crop(img, size: Any, vertical_flip: Any = False):
    size = _crop_size(size)
    first = five_crop(img, size)
    flipped = vflip(img) if vertical_flip else hflip(img)
    return first + five_crop(flipped, size)


def adjust_brightness(img, brightness_factor: Any):
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    if _is_tensor(img):
        return F_c.adjust_brightness(img, brightness_factor)
    return F_pil.adjust_brightness(img, brightness_factor)


def adjust_contrast(img, contrast_factor: Any):
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    return F_c.adjust_contrast(img, contrast_factor) if _is_tensor(img) else F_pil.adjust_contrast(img, contrast_factor)


def adjust_saturation(img, saturation_factor: Any):
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    if _is_tensor(img):
        return F_c.adjust_saturation(img, saturation_factor)
    return F_pil.adjust_saturation(img, saturation_factor)


def adjust_hue(img, hue_factor: Any):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    return F_c.adjust_hue(img, hue_factor) if _is_tensor(img) else F_pil.adjust_hue(img, hue_factor)


def adjust_gamma(img, gamma: Any, gain: Any = 1):
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    return F_c.adjust_gamma(img, gamma, gain) if _is_tensor(img) else F_pil.adjust_gamma(img, gamma, gain)


def invert(img):
    return F_c.invert(img) if _is_tensor(img) else F_pil.invert(img)


def posterize(img, bits: Any):
    if not 0 <= bits <= 8:
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    return F_c.posterize(img, bits) if _is_tensor(img) else F_pil.posterize(img, bits)


def solarize(img, threshold: Any):
    return F_c.solarize(img, threshold) if _is_tensor(img) else F_pil.solarize(img, threshold)


def adjust_sharpness(img, sharpness_factor: Any):
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    if _is_tensor(img):
        return F_c.adjust_sharpness(img, sharpness_factor)
    return F_pil.adjust_sharpness(img, sharpness_factor)


def autocontrast(img):
    return F_c.autocontrast(img) if _is_tensor(img) else F_pil.autocontrast(img)


def equalize(img):
    return F_c.equalize(img) if _is_tensor(img) else F_pil.equalize(img)


def rgb_to_grayscale(img, num_output_channels: Any = 1):
    if _is_tensor(img):
        return F_c.rgb_to_grayscale(img, num_output_channels)
    return F_pil.to_grayscale(img, num_output_channels)


def to_grayscale(img, num_output_channels: Any = 1):
    return rgb_to_grayscale(img, num_output_channels)


def _get_inverse_affine_matrix(center: Any, angle: Any, translate: Any, scale: Any, shear: Any):
    """The inverse of (translate . centre . rotate-scale-shear . uncentre), in Pillow's 6-float form."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
    m[2] += cx
    m[5] += cy
    return m


def _check_fill(fill: Any):
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Argument fill should be either int, float, tuple or list")
    return fill


def rotate(img, angle: Any, interpolation: Any = InterpolationMode.NEAREST, expand: Any = False, center: Any = None,
           fill: Any = None):
    """Counter-clockwise by `angle` degrees about `center` (default: the image centre)."""
    if not isinstance(interpolation, InterpolationMode):
        interpolation = to_interpolation_mode(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    fill = _check_fill(fill)
    if not _is_tensor(img):
        return F_pil.rotate(img, angle, interpolation, expand, center, fill)
    center_f = [0.0, 0.0]
    if center is not None:
        w, h = get_image_size(img)
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [w, h])]
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_t.rotate(img, matrix, interpolation.value, expand, fill)


def affine(img, angle: Any, translate: Any, scale: Any, shear: Any, interpolation: Any = InterpolationMode.NEAREST,
           fill: Any = None, center: Any = None):
    """`center` (default: the image centre) is the pivot, in pixels from the top-left corner."""
    if not isinstance(interpolation, InterpolationMode):
        interpolation = to_interpolation_mode(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    fill = _check_fill(fill)
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
        raise TypeError("Argument center should be a sequence of length 2")
    w, h = get_image_size(img)
    if not _is_tensor(img):
        pivot = [w * 0.5, h * 0.5] if center is None else [float(c) for c in center]
        matrix = _get_inverse_affine_matrix(pivot, angle, translate, scale, shear)
        return F_pil.affine(img, matrix, interpolation, fill)
    # the tensor grid's origin is the image centre
    pivot = [0.0, 0.0] if center is None else [1.0 * (c - s * 0.5) for c, s in zip(center, [w, h])]
    matrix = _get_inverse_affine_matrix(pivot, angle, [1.0 * t for t in translate], scale, shear)
    return F_t.affine(img, matrix, interpolation.value, fill)


def _get_perspective_coeffs(startpoints: Any, endpoints: Any) -> List[float]:
    """The 8 coefficients mapping output (end) points back to input (start) points, by least squares
    (in float64, with ember's lstsq so that it scripts)."""
    rows: List[ember.Tensor] = []
    targets: List[float] = []
    for i in range(len(startpoints)):
        x1, y1 = float(endpoints[i][0]), float(endpoints[i][1])
        x2, y2 = float(startpoints[i][0]), float(startpoints[i][1])
        rows.append(ember.tensor([x1, y1, 1.0, 0.0, 0.0, 0.0, -x2 * x1, -x2 * y1], dtype=ember.float64))
        rows.append(ember.tensor([0.0, 0.0, 0.0, x1, y1, 1.0, -y2 * x1, -y2 * y1], dtype=ember.float64))
        targets.append(x2)
        targets.append(y2)
    solution = ember.linalg.lstsq(ember.stack(rows), ember.tensor(targets, dtype=ember.float64).unsqueeze(1))[0]
    coeffs: List[float] = []
    for k in range(8):
        coeffs.append(float(solution[k, 0]))
    return coeffs


def perspective(img, startpoints: Any, endpoints: Any, interpolation: Any = InterpolationMode.BILINEAR,
                fill: Any = None):
    if not isinstance(interpolation, InterpolationMode):
        interpolation = to_interpolation_mode(interpolation)
    fill = _check_fill(fill)
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    if not _is_tensor(img):
        return F_pil.perspective(img, coeffs, interpolation, fill)
    return F_t.perspective(img, coeffs, interpolation.value, fill)


def gaussian_blur(img, kernel_size: Any, sigma: Any = None):
    """PIL images go through the tensor path (as in torchvision), so both agree exactly."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}")
    for ksize in kernel_size:
        if ksize % 2 == 0 or ksize < 0:
            raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    if sigma is None:
        sigma = [ksize * 0.15 + 0.35 for ksize in kernel_size]
    if sigma is not None and not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if isinstance(sigma, (list, tuple)) and len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    if _is_tensor(img):
        return F_t.gaussian_blur(img, list(kernel_size), list(sigma))
    if not F_pil.is_pil_image(img):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
    out = F_t.gaussian_blur(pil_to_tensor(img), list(kernel_size), list(sigma))
    return to_pil_image(out, mode=img.mode)


def erase(img, i: Any, j: Any, h: Any, w: Any, v: Any, inplace: Any = False):
    if not _is_tensor(img):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace)
