"""The tensor half of transforms.functional's geometry: ops on [..., C, H, W] uint8 or float tensors of
any leading shape, written with ember ops (torchvision 0.10's semantics). Sampling ops work in float
and round back to an integer input's dtype."""
from typing import Any

import math

import ember
import ember.nn.functional as F

from ._functional_convert import _is_float as is_float_dtype
from ._functional_convert import _max as int_max
from ._functional_convert import _min as int_min
from ._resize_aa import resize_antialias


def is_tensor_image(img):
    return isinstance(img, ember.Tensor) and img.dim() >= 2


def check_image(img):
    if not isinstance(img, ember.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    if img.dim() < 2:
        raise TypeError(f"Tensor is not a torch image: expected at least 2 dims, got {img.dim()}")


def get_image_size(img):
    check_image(img)
    return [img.shape[-1], img.shape[-2]]  # [width, height]


def get_image_num_channels(img):
    check_image(img)
    return 1 if img.dim() == 2 else img.shape[-3]


def max_value(dtype: Any):
    return 1.0 if is_float_dtype(dtype) else float(int_max(dtype))


def to_batch(img):
    """[..., C, H, W] (or [H, W]) -> [N, C, H, W] (from_batch(out, img) gives back img's leading shape)."""
    shape = img.shape
    if img.dim() == 2:
        return img.reshape(1, 1, shape[0], shape[1])
    return img.reshape(-1, shape[-3], shape[-2], shape[-1])


def from_batch(out, img):
    """A batched result out [N, C, H', W'] in the leading shape of img, to_batch's input."""
    if img.dim() == 2:
        return out.reshape(out.shape[-2], out.shape[-1])
    shape = img.shape
    return out.reshape(list(shape[:-2]) + [out.shape[-2], out.shape[-1]])


def float_for_sampling(img):
    return img if img.dtype in (ember.float32, ember.float64) else img.to(ember.float32)


def cast_back(out, dtype: Any):
    if out.dtype == dtype:
        return out
    if is_float_dtype(dtype):
        return out.to(dtype)
    return out.round().clamp(int_min(dtype), int_max(dtype)).to(dtype)


def hflip(img):
    check_image(img)
    return img.flip(-1)


def vflip(img):
    check_image(img)
    return img.flip(-2)


def crop(img, top: Any, left: Any, height: Any, width: Any):
    """Parts outside the image are zero (torchvision pads them)."""
    check_image(img)
    w, h = get_image_size(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        inside = img[..., max(top, 0):max(bottom, 0), max(left, 0):max(right, 0)]
        padding = [max(-left, 0), max(-top, 0), max(right - w, 0), max(bottom - h, 0)]
        return pad(inside, padding, fill=0)
    return img[..., top:bottom, left:right]


def _symmetric_indices(n: int, before: int, after: int):
    """The source index of each position of a dim of size n padded symmetrically (negative amounts crop)."""
    idx = ember.arange(-max(before, 0), n + max(after, 0), dtype=ember.int64)
    period = 2 * n
    folded = ember.remainder(idx, period)
    mapped = ember.where(folded < n, folded, period - 1 - folded)
    start = max(-before, 0)
    return mapped.narrow(0, start, mapped.shape[0] - start - max(-after, 0))


def _pad_symmetric(img, padding: Any):
    """Symmetric padding (the edge pixel repeated), by index gathering; negative padding crops."""
    left, top, right, bottom = padding
    h, w = img.shape[-2], img.shape[-1]
    rows, cols = _symmetric_indices(h, top, bottom), _symmetric_indices(w, left, right)
    return img.index_select(-2, rows).index_select(-1, cols)


def pad(img, padding: Any, fill: Any = 0, padding_mode: Any = "constant"):
    """padding: [left, top, right, bottom] (functional.pad normalised it)."""
    check_image(img)
    if padding_mode == "symmetric":
        return _pad_symmetric(img, padding)
    left, top, right, bottom = padding
    if padding_mode == "constant" and not isinstance(fill, (int, float)):
        raise TypeError("Tensor padding supports only a number fill")
    flat = to_batch(img)
    # negative padding crops before any mode pads
    h, w = flat.shape[-2], flat.shape[-1]
    flat = flat[..., max(-top, 0):h - max(-bottom, 0), max(-left, 0):w - max(-right, 0)]
    positive = [max(left, 0), max(right, 0), max(top, 0), max(bottom, 0)]
    if padding_mode == "constant":
        out = F.pad(flat, positive, mode="constant", value=fill)
    else:
        mode = "replicate" if padding_mode == "edge" else padding_mode
        out = cast_back(F.pad(float_for_sampling(flat), positive, mode=mode), img.dtype)
    return from_batch(out, img)


def resize(img, size: Any, interpolation: Any = "bilinear", antialias: Any = False):
    """size: the final [h, w]."""
    check_image(img)
    out_h, out_w = size
    if antialias and interpolation in ("bilinear", "bicubic"):
        return resize_antialias(img, out_h, out_w, interpolation)
    flat = to_batch(img)
    align = None if interpolation == "nearest" else False
    out = F.interpolate(float_for_sampling(flat), size=[out_h, out_w], mode=interpolation, align_corners=align)
    if interpolation == "bicubic" and not img.is_floating_point():
        out = out.clamp(0, 255)
    if interpolation == "nearest":
        return from_batch(out.to(img.dtype), img)
    return from_batch(cast_back(out, img.dtype), img)


def _affine_grid(theta: Any, w: Any, h: Any, ow: Any, oh: Any):
    """Sampling grid of an inverse affine `theta` (2x3, pixel units about the centre) for grid_sample."""
    xs = ember.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow)
    ys = ember.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh)
    base = ember.stack([xs.reshape(1, ow).expand(oh, ow), ys.reshape(oh, 1).expand(oh, ow),
                        ember.ones(oh, ow)], -1)
    scaled = theta.t() / ember.tensor([0.5 * w, 0.5 * h])
    return ember.matmul(base.reshape(oh * ow, 3), scaled).reshape(1, oh, ow, 2)


def apply_grid(img, grid: Any, interpolation: Any, fill: Any):
    """grid_sample of the whole batch through one grid; `fill` paints the pixels mapped from outside."""
    flat = to_batch(img)
    work = float_for_sampling(flat)
    grid = grid.to(work.dtype).expand(work.shape[0], grid.shape[1], grid.shape[2], 2)
    if fill is not None:  # a ones channel tells how much of each output pixel came from inside
        work = ember.cat([work, ember.ones_like(work[:, :1])], 1)
    out = F.grid_sample(work, grid, mode=interpolation, padding_mode="zeros", align_corners=False)
    if fill is not None:
        out, mask = out[:, :-1], out[:, -1:].expand(out.shape[0], out.shape[1] - 1, out.shape[2], out.shape[3])
        fills = list(fill) if isinstance(fill, (list, tuple)) else [fill]
        fill_img = ember.tensor([float(v) for v in fills], dtype=out.dtype).reshape(1, len(fills), 1, 1)
        fill_img = fill_img.expand_as(out)
        if interpolation == "nearest":
            out = ember.where(mask < 0.5, fill_img, out)
        else:
            out = out * mask + (1.0 - mask) * fill_img
    return from_batch(cast_back(out, img.dtype), img)


def affine(img, matrix: Any, interpolation: Any = "nearest", fill: Any = None):
    check_image(img)
    h, w = img.shape[-2], img.shape[-1]
    theta = ember.tensor(matrix, dtype=ember.float32).reshape(2, 3)
    return apply_grid(img, _affine_grid(theta, w, h, w, h), interpolation, fill)


def rotated_size(matrix: Any, w: Any, h: Any):
    """Output (w, h) holding the whole rotated image: Pillow's expand, ceil/floor of the corners mapped
    through the linear part (rounded to 15 digits as Pillow rounds cos/sin) about the image centre."""
    lin = [round(v, 15) for v in (matrix[0], matrix[1], matrix[3], matrix[4])]
    corners = [(-0.5 * w, -0.5 * h), (0.5 * w, -0.5 * h), (0.5 * w, 0.5 * h), (-0.5 * w, 0.5 * h)]
    xs = [lin[0] * x + lin[1] * y + 0.5 * w for x, y in corners]
    ys = [lin[2] * x + lin[3] * y + 0.5 * h for x, y in corners]
    return math.ceil(max(xs)) - math.floor(min(xs)), math.ceil(max(ys)) - math.floor(min(ys))


def rotate(img, matrix: Any, interpolation: Any = "nearest", expand: Any = False, fill: Any = None):
    check_image(img)
    h, w = img.shape[-2], img.shape[-1]
    ow, oh = rotated_size(matrix, w, h) if expand else (w, h)
    theta = ember.tensor(matrix, dtype=ember.float32).reshape(2, 3)
    return apply_grid(img, _affine_grid(theta, w, h, ow, oh), interpolation, fill)


def perspective(img, coeffs: Any, interpolation: Any = "bilinear", fill: Any = None):
    check_image(img)
    oh, ow = img.shape[-2], img.shape[-1]
    xs = ember.linspace(0.5, ow - 0.5, ow, dtype=ember.float64)
    ys = ember.linspace(0.5, oh - 0.5, oh, dtype=ember.float64)
    x, y = xs.reshape(1, ow).expand(oh, ow), ys.reshape(oh, 1).expand(oh, ow)
    a, b, c, d, e, f, g, k = coeffs
    denom = g * x + k * y + 1.0
    gx = (a * x + b * y + c) / denom / (0.5 * ow) - 1.0
    gy = (d * x + e * y + f) / denom / (0.5 * oh) - 1.0
    grid = ember.stack([gx, gy], -1).reshape(1, oh, ow, 2).to(ember.float32)
    return apply_grid(img, grid, interpolation, fill)


def gaussian_kernel1d(kernel_size: Any, sigma: Any):
    half = (kernel_size - 1) * 0.5
    x = ember.linspace(-half, half, kernel_size)
    pdf = ember.exp(-0.5 * (x / sigma) ** 2)
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size: Any, sigma: Any):
    check_image(img)
    kx, ky = kernel_size
    kernel = ember.outer(gaussian_kernel1d(ky, sigma[1]), gaussian_kernel1d(kx, sigma[0]))
    flat = to_batch(img)
    work = float_for_sampling(flat)
    c = work.shape[1]
    weight = kernel.to(work.dtype).expand(c, 1, ky, kx)
    padded = F.pad(work, [kx // 2, kx // 2, ky // 2, ky // 2], mode="reflect")
    return from_batch(cast_back(F.conv2d(padded, weight, groups=c), img.dtype), img)


def erase(img, i: Any, j: Any, h: Any, w: Any, v: Any, inplace: Any = False):
    check_image(img)
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img
