"""Box-list helpers shared by the RoI ops (torchvision's rules and messages)."""

from typing import List, Union

import ember
from ember import Tensor


def convert_boxes_to_roi_format(boxes: List[Tensor]) -> Tensor:
    """List[Tensor[L, 4]] -> Tensor[K, 5]: each box prefixed with the index of its image."""
    concat_boxes = ember.cat([b for b in boxes], dim=0)
    ids = ember.cat([ember.full_like(b[:, :1], i) for i, b in enumerate(boxes)], dim=0)
    return ember.cat([ids, concat_boxes], dim=1)


def check_roi_boxes_shape(boxes):
    if isinstance(boxes, (list, tuple)):
        for tensor in boxes:
            if tensor.dim() != 2 or tensor.size(1) != 4:
                raise AssertionError("The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]")
    elif isinstance(boxes, ember.Tensor):
        if boxes.dim() != 2 or boxes.size(1) != 5:
            raise AssertionError("The boxes tensor shape is not correct as Tensor[K, 5]")
    else:
        raise AssertionError("boxes is expected to be a Tensor[L, 5] or a List[Tensor[K, 4]]")


def script_roi_tensor(boxes: Union[Tensor, List[Tensor]]) -> Tensor:
    """roi_tensor in scripted code, where boxes is a Union refined by isinstance."""
    if isinstance(boxes, Tensor):
        if boxes.dim() != 2 or boxes.size(1) != 5:
            raise AssertionError("The boxes tensor shape is not correct as Tensor[K, 5]")
        return boxes
    for tensor in boxes:
        if tensor.dim() != 2 or tensor.size(1) != 4:
            raise AssertionError("The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]")
    return convert_boxes_to_roi_format(boxes)


def roi_tensor(boxes):
    """The Tensor[K, 5] form of boxes given either way, after the shape checks."""
    check_roi_boxes_shape(boxes)
    return boxes if isinstance(boxes, ember.Tensor) else convert_boxes_to_roi_format(boxes)


def pair(v):
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ValueError(f"expected an int or a pair of ints, got {v}")
        return int(v[0]), int(v[1])
    return int(v), int(v)


def upcast(t):
    """Box arithmetic in a float type wide enough not to overflow (int boxes widen to int64)."""
    if t.is_floating_point():
        return t if t.dtype in (ember.float32, ember.float64) else t.float()
    return t if t.dtype in (ember.int32, ember.int64) else t.int()


def autocast_fp32(t: Tensor) -> Tensor:
    """torchvision's cast of its ops' tensors inside a CPU autocast region (at::autocast::cached_cast(kFloat, t)):
    a CPU floating tensor other than float64 runs in float32 (the kernels are float32/float64); the rest pass."""
    if t.is_floating_point() and t.dtype != ember.float64 and str(t.device) == "cpu":
        return t.float()
    return t


def autocast_fp32_list(ts: List[Tensor]) -> List[Tensor]:
    return [autocast_fp32(t) for t in ts]
