"""Typed tensors for transforms.v2: Image, Mask, BoundingBoxes and KeyPoints tell a v2 transform how to move each
input. Ops on them return plain tensors (so a box's metadata never rides on an unrelated result);
`wrap_like` re-types a result."""
from enum import Enum

import ember
from ember.overrides import DisableTorchFunctionSubclass

__all__ = ["TVTensor", "Image", "Mask", "BoundingBoxes", "BoundingBoxFormat", "KeyPoints", "wrap"]


class TVTensor(ember.Tensor):
    @classmethod
    def _wrap(cls, tensor):
        return tensor.as_subclass(cls)

    @classmethod
    def wrap_like(cls, other, tensor):
        return cls._wrap(tensor)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        with DisableTorchFunctionSubclass():
            body = ember.Tensor.__repr__(self.as_subclass(ember.Tensor))
        return f"{type(self).__name__}({body})"


def _as_tensor(data, dtype=None):
    if isinstance(data, ember.Tensor):
        with DisableTorchFunctionSubclass():
            plain = data.as_subclass(ember.Tensor)
        return plain if dtype is None else plain.to(dtype)
    return ember.as_tensor(data, dtype=dtype)


class Image(TVTensor):
    """An image or batch of images [..., C, H, W] (a PIL image converts to [C, H, W] uint8)."""

    def __new__(cls, data, *, dtype=None):
        from PIL import Image as PILImage
        if isinstance(data, PILImage.Image):
            from ..transforms.functional import pil_to_tensor
            data = pil_to_tensor(data)
        tensor = _as_tensor(data, dtype)
        if tensor.dim() < 2:
            raise ValueError(f"An Image needs at least 2 dims (H, W), got {tensor.dim()}")
        if tensor.dim() == 2:
            tensor = tensor.unsqueeze(0)
        return tensor.as_subclass(cls)


class Mask(TVTensor):
    """A segmentation or instance mask [..., H, W]: moved as images are, always with nearest sampling."""

    def __new__(cls, data, *, dtype=None):
        return _as_tensor(data, dtype).as_subclass(cls)


class BoundingBoxFormat(Enum):
    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"


class BoundingBoxes(TVTensor):
    """Boxes [..., 4] in `format`, on an image of `canvas_size` (height, width)."""

    def __new__(cls, data, *, format, canvas_size, dtype=None):
        tensor = _as_tensor(data, dtype)
        if tensor.dim() == 1:
            tensor = tensor.unsqueeze(0)
        if tensor.dim() == 0 or tensor.shape[-1] != 4:
            raise ValueError(f"BoundingBoxes need a last dim of 4, got shape {list(tensor.shape)}")
        if isinstance(format, str):
            format = BoundingBoxFormat[format.upper()]
        if not isinstance(format, BoundingBoxFormat):
            raise TypeError(f"format should be a BoundingBoxFormat or str, got {type(format).__name__}")
        if len(canvas_size) != 2:
            raise ValueError(f"canvas_size should be (height, width), got {canvas_size}")
        out = tensor.as_subclass(cls)
        out.format, out.canvas_size = format, (int(canvas_size[0]), int(canvas_size[1]))
        return out

    @classmethod
    def wrap_like(cls, other, tensor, *, format=None, canvas_size=None):
        return cls(tensor, format=format or other.format, canvas_size=canvas_size or other.canvas_size)

    def __repr__(self):
        return f"{super().__repr__()[:-1]}, format={self.format}, canvas_size={self.canvas_size})"


class KeyPoints(TVTensor):
    """Points [..., 2] as (x, y) on an image of `canvas_size` (height, width): polylines [N, P, 2], skeletons
    [N, B, 2, 2], ... (torchvision 0.23's name). A point's coordinates are pixel indices: (x, y) is the centre of
    pixel column x, row y, so a horizontal flip sends x to width - 1 - x, as torchvision's does."""

    def __new__(cls, data, *, canvas_size, dtype=None):
        tensor = _as_tensor(data, dtype)
        if tensor.dim() == 1:
            tensor = tensor.unsqueeze(0)
        if tensor.dim() == 0 or tensor.shape[-1] != 2:
            raise ValueError(f"Expected a tensor of shape (..., 2), not {list(tensor.shape)}")
        if len(canvas_size) != 2:
            raise ValueError(f"canvas_size should be (height, width), got {canvas_size}")
        out = tensor.as_subclass(cls)
        out.canvas_size = (int(canvas_size[0]), int(canvas_size[1]))
        return out

    @classmethod
    def wrap_like(cls, other, tensor, *, canvas_size=None):
        return cls(tensor, canvas_size=canvas_size or other.canvas_size)

    def __repr__(self):
        return f"{super().__repr__()[:-1]}, canvas_size={self.canvas_size})"


def wrap(tensor, *, like, **kwargs):
    """`tensor` re-typed as `like` (a TVTensor), with `like`'s metadata unless given."""
    return type(like).wrap_like(like, tensor, **kwargs)
