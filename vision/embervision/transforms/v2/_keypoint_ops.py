"""KeyPoints kernels of transforms.v2: each geometric op's effect on points [..., 2] given as pixel indices
(pixel x covers [x, x + 1) in the continuous coordinates the image ops and the box kernels use). Flips, crops and
pads are torchvision's exactly; resize and the affine family map a point's pixel centre (x + 0.5) and come back,
so a point follows the pixel it marks (torchvision scales/maps the index itself, which drifts by up to a pixel:
a 90-degree rotation of a square sends its pixel (x, y) to (y, W - x) there, where the image moved it to
(y, W - 1 - x))."""
import ember

from ...tv_tensors import KeyPoints


def _float(points):
    return points.as_subclass(ember.Tensor).to(ember.float64)


def _back(xy, like, canvas_size):
    dtype = like.dtype
    out = xy.to(dtype) if dtype.is_floating_point else xy.round().to(dtype)
    return KeyPoints(out, canvas_size=canvas_size)


def hflip(points):
    x, y = _float(points).unbind(-1)
    return _back(ember.stack([points.canvas_size[1] - 1 - x, y], -1), points, points.canvas_size)


def vflip(points):
    x, y = _float(points).unbind(-1)
    return _back(ember.stack([x, points.canvas_size[0] - 1 - y], -1), points, points.canvas_size)


def crop(points, top, left, height, width):
    shift = ember.tensor([left, top], dtype=ember.float64)
    return _back(_float(points) - shift, points, (height, width))


def pad(points, left, top, right, bottom, padding_mode="constant"):
    if padding_mode != "constant":  # reflected/replicated borders hold copies of points: no single place for them
        raise ValueError(f"Padding mode '{padding_mode}' is not supported with KeyPoints (supported modes are "
                         f"constant)")
    h, w = points.canvas_size
    shift = ember.tensor([left, top], dtype=ember.float64)
    return _back(_float(points) + shift, points, (h + top + bottom, w + left + right))


def resize(points, out_h, out_w):
    h, w = points.canvas_size
    scale = ember.tensor([out_w / w, out_h / h], dtype=ember.float64)
    return _back((_float(points) + 0.5) * scale - 0.5, points, (out_h, out_w))


def affine(points, forward, canvas_size, offset=(0.0, 0.0)):
    """Each point's pixel centre through `forward` (2x3, continuous coordinates); `offset` shifts the result
    (rotate's expand re-centres the canvas). Points may leave the canvas: they are kept, as torchvision does."""
    x, y = (_float(points) + 0.5).unbind(-1)
    a, b, c, d, e, f = forward
    tx = a * x + b * y + c + offset[0] - 0.5
    ty = d * x + e * y + f + offset[1] - 0.5
    return _back(ember.stack([tx, ty], -1), points, canvas_size)
