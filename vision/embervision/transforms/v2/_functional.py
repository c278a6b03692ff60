"""transforms.v2.functional: each geometric op on any input type: images (Image, plain tensor, PIL)
through transforms.functional, Mask the same way with nearest sampling, BoundingBoxes and KeyPoints through
their kernels. Colour ops touch images only."""
import ember

from ... import tv_tensors
from .. import _functional_tensor as F_t
from .. import functional as F1
from .._interpolation import InterpolationMode
from . import _box_ops, _keypoint_ops

__all__ = ["hflip", "vflip", "crop", "resize", "pad", "affine", "rotate", "center_crop", "resized_crop",
           "get_size", "convert_bounding_box_format", "clamp_bounding_boxes"]


def _rewrap(out, like):
    return tv_tensors.wrap(out, like=like) if isinstance(like, tv_tensors.TVTensor) else out


def _plain(inpt):
    return inpt.as_subclass(ember.Tensor) if isinstance(inpt, tv_tensors.TVTensor) else inpt


def get_size(inpt):
    """(height, width) of an image, mask or the canvas of boxes."""
    if isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints)):
        return inpt.canvas_size
    w, h = F1.get_image_size(_plain(inpt))
    return h, w


def _image_op(inpt, fn, *args, **kwargs):
    return _rewrap(fn(_plain(inpt), *args, **kwargs), inpt)


def _mask_op(inpt, fn, *args, **kwargs):
    """Masks [..., H, W] move like one-channel images."""
    plain = _plain(inpt)
    out = fn(plain.unsqueeze(-3) if plain.dim() == 2 else plain, *args, **kwargs)
    return _rewrap(out.squeeze(-3) if plain.dim() == 2 else out, inpt)


def hflip(inpt):
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        return _box_ops.hflip(inpt)
    if isinstance(inpt, tv_tensors.KeyPoints):
        return _keypoint_ops.hflip(inpt)
    return _image_op(inpt, F1.hflip)


def vflip(inpt):
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        return _box_ops.vflip(inpt)
    if isinstance(inpt, tv_tensors.KeyPoints):
        return _keypoint_ops.vflip(inpt)
    return _image_op(inpt, F1.vflip)


def crop(inpt, top, left, height, width):
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        return _box_ops.crop(inpt, top, left, height, width)
    if isinstance(inpt, tv_tensors.KeyPoints):
        return _keypoint_ops.crop(inpt, top, left, height, width)
    if isinstance(inpt, tv_tensors.Mask):
        return _mask_op(inpt, F1.crop, top, left, height, width)
    return _image_op(inpt, F1.crop, top, left, height, width)


def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """v2 antialiases tensors by default (as torchvision's v2 does)."""
    h, w = get_size(inpt)
    out_h, out_w = F1._output_size(w, h, size, max_size)
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        return _box_ops.resize(inpt, out_h, out_w)
    if isinstance(inpt, tv_tensors.KeyPoints):
        return _keypoint_ops.resize(inpt, out_h, out_w)
    if isinstance(inpt, tv_tensors.Mask):
        return _mask_op(inpt, F1.resize, [out_h, out_w], InterpolationMode.NEAREST)
    if isinstance(_plain(inpt), ember.Tensor):
        return _image_op(inpt, F1.resize, [out_h, out_w], interpolation, antialias=antialias)
    return F1.resize(inpt, [out_h, out_w], interpolation)


def pad(inpt, padding, fill=0, padding_mode="constant"):
    left, top, right, bottom = F1._parse_padding(padding)
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        return _box_ops.pad(inpt, left, top, right, bottom)
    if isinstance(inpt, tv_tensors.KeyPoints):
        return _keypoint_ops.pad(inpt, left, top, right, bottom, padding_mode)
    if isinstance(inpt, tv_tensors.Mask):
        return _mask_op(inpt, F1.pad, [left, top, right, bottom], 0, padding_mode)
    return _image_op(inpt, F1.pad, [left, top, right, bottom], fill, padding_mode)


def center_crop(inpt, output_size):
    h, w = get_size(inpt)
    crop_h, crop_w = (output_size, output_size) if isinstance(output_size, int) else \
        (output_size[0], output_size[-1])
    return crop(inpt, int(round((h - crop_h) / 2.0)), int(round((w - crop_w) / 2.0)), crop_h, crop_w)


def resized_crop(inpt, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return resize(crop(inpt, top, left, height, width), size, interpolation, antialias=antialias)


def _pixel_inverse(h, w, angle, translate, scale, shear, center):
    cx, cy = (w * 0.5, h * 0.5) if center is None else (float(center[0]), float(center[1]))
    return F1._get_inverse_affine_matrix([cx, cy], angle, translate, scale, shear)


def affine(inpt, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    if isinstance(shear, (int, float)):
        shear = [shear, 0.0]
    if isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints)):
        h, w = inpt.canvas_size
        inverse = _pixel_inverse(h, w, angle, translate, scale, shear, center)
        ops = _box_ops if isinstance(inpt, tv_tensors.BoundingBoxes) else _keypoint_ops
        return ops.affine(inpt, _box_ops.forward_affine(inverse), (h, w))
    if isinstance(inpt, tv_tensors.Mask):
        return _mask_op(inpt, F1.affine, angle, translate, scale, shear, InterpolationMode.NEAREST, None, center)
    return _image_op(inpt, F1.affine, angle, translate, scale, shear, interpolation, fill, center)


def rotate(inpt, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    if isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints)):
        h, w = inpt.canvas_size
        inverse = _pixel_inverse(h, w, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center)
        out_w, out_h = w, h
        if expand:
            about_centre = F1._get_inverse_affine_matrix([0.0, 0.0], -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
            out_w, out_h = F_t.rotated_size(about_centre, w, h)
        offset = ((out_w - w) / 2.0, (out_h - h) / 2.0)
        ops = _box_ops if isinstance(inpt, tv_tensors.BoundingBoxes) else _keypoint_ops
        return ops.affine(inpt, _box_ops.forward_affine(inverse), (out_h, out_w), offset)
    if isinstance(inpt, tv_tensors.Mask):
        return _mask_op(inpt, F1.rotate, angle, InterpolationMode.NEAREST, expand, center, None)
    return _image_op(inpt, F1.rotate, angle, interpolation, expand, center, fill)


def convert_bounding_box_format(boxes, new_format):
    if isinstance(new_format, str):
        new_format = tv_tensors.BoundingBoxFormat[new_format.upper()]
    out = _box_ops.convert_format(boxes.as_subclass(ember.Tensor), boxes.format, new_format)
    return tv_tensors.BoundingBoxes(out, format=new_format, canvas_size=boxes.canvas_size)


def clamp_bounding_boxes(boxes):
    return _box_ops.clamp(boxes)
