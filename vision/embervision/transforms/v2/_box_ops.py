"""Bounding-box kernels of transforms.v2: format conversion, clamping, and each geometric op's effect on
boxes [..., 4] (continuous pixel coordinates, edges at integers)."""
import math

import ember

from ...tv_tensors import BoundingBoxes, BoundingBoxFormat


def convert_format(boxes, old_format, new_format):
    """Plain [..., 4] tensor from `old_format` to `new_format` (float math, the input's dtype back)."""
    if old_format == new_format:
        return boxes.clone()
    dtype = boxes.dtype
    b = boxes.to(ember.float64)
    a0, a1, a2, a3 = b.unbind(-1)
    if old_format == BoundingBoxFormat.XYWH:
        x1, y1, x2, y2 = a0, a1, a0 + a2, a1 + a3
    elif old_format == BoundingBoxFormat.CXCYWH:
        x1, y1, x2, y2 = a0 - a2 / 2, a1 - a3 / 2, a0 + a2 / 2, a1 + a3 / 2
    else:
        x1, y1, x2, y2 = a0, a1, a2, a3
    if new_format == BoundingBoxFormat.XYWH:
        out = ember.stack([x1, y1, x2 - x1, y2 - y1], -1)
    elif new_format == BoundingBoxFormat.CXCYWH:
        out = ember.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], -1)
    else:
        out = ember.stack([x1, y1, x2, y2], -1)
    return out.round().to(dtype) if not dtype.is_floating_point else out.to(dtype)


def _as_xyxy(boxes):
    return convert_format(boxes.as_subclass(ember.Tensor), boxes.format, BoundingBoxFormat.XYXY).to(ember.float64)


def _from_xyxy(xyxy, like, canvas_size, clamp=True):
    if clamp:
        h, w = canvas_size
        x1, y1, x2, y2 = xyxy.unbind(-1)
        xyxy = ember.stack([x1.clamp(0, w), y1.clamp(0, h), x2.clamp(0, w), y2.clamp(0, h)], -1)
    dtype = like.dtype
    out = convert_format(xyxy, BoundingBoxFormat.XYXY, like.format)
    out = out.round().to(dtype) if not dtype.is_floating_point else out.to(dtype)
    return BoundingBoxes(out, format=like.format, canvas_size=canvas_size)


def clamp(boxes):
    return _from_xyxy(_as_xyxy(boxes), boxes, boxes.canvas_size)


def hflip(boxes):
    x1, y1, x2, y2 = _as_xyxy(boxes).unbind(-1)
    w = boxes.canvas_size[1]
    return _from_xyxy(ember.stack([w - x2, y1, w - x1, y2], -1), boxes, boxes.canvas_size, clamp=False)


def vflip(boxes):
    x1, y1, x2, y2 = _as_xyxy(boxes).unbind(-1)
    h = boxes.canvas_size[0]
    return _from_xyxy(ember.stack([x1, h - y2, x2, h - y1], -1), boxes, boxes.canvas_size, clamp=False)


def crop(boxes, top, left, height, width):
    shift = ember.tensor([left, top, left, top], dtype=ember.float64)
    return _from_xyxy(_as_xyxy(boxes) - shift, boxes, (height, width))


def pad(boxes, left, top, right, bottom):
    shift = ember.tensor([left, top, left, top], dtype=ember.float64)
    h, w = boxes.canvas_size
    return _from_xyxy(_as_xyxy(boxes) + shift, boxes, (h + top + bottom, w + left + right), clamp=False)


def resize(boxes, out_h, out_w):
    h, w = boxes.canvas_size
    scale = ember.tensor([out_w / w, out_h / h, out_w / w, out_h / h], dtype=ember.float64)
    return _from_xyxy(_as_xyxy(boxes) * scale, boxes, (out_h, out_w), clamp=False)


def forward_affine(inverse):
    """The forward 2x3 map of Pillow's inverse affine (output -> input) 6-tuple."""
    a, b, c, d, e, f = inverse
    det = a * e - b * d
    if math.isclose(det, 0.0, abs_tol=1e-12):
        raise ValueError("The affine transform is not invertible")
    ia, ib, id_, ie = e / det, -b / det, -d / det, a / det
    return [ia, ib, -(ia * c + ib * f), id_, ie, -(id_ * c + ie * f)]


def affine(boxes, forward, canvas_size, offset=(0.0, 0.0)):
    """Each box's four corners through `forward` (2x3, pixel coordinates), their enclosing box, clamped
    to `canvas_size`; `offset` shifts the result (rotate's expand re-centres the canvas)."""
    x1, y1, x2, y2 = _as_xyxy(boxes).unbind(-1)
    xs = ember.stack([x1, x2, x2, x1], -1)
    ys = ember.stack([y1, y1, y2, y2], -1)
    a, b, c, d, e, f = forward
    tx = a * xs + b * ys + c + offset[0]
    ty = d * xs + e * ys + f + offset[1]
    out = ember.stack([tx.amin(-1), ty.amin(-1), tx.amax(-1), ty.amax(-1)], -1)
    return _from_xyxy(out, boxes, canvas_size)
