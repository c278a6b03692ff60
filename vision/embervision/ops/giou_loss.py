"""generalized_box_iou_loss: 1 - GIoU of each box with its pair (elementwise, not pairwise), as FCOS uses."""

import ember
from ember import Tensor


def generalized_box_iou_loss(boxes1: Tensor, boxes2: Tensor, reduction: str = "none", eps: float = 1e-7) -> Tensor:
    """boxes1, boxes2: Tensor[..., 4] (x1, y1, x2, y2), paired elementwise; reduction 'none' | 'mean' | 'sum'."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', "
                         "'mean', 'sum'")
    if not boxes1.is_floating_point():
        boxes1 = boxes1.float()
    boxes2 = boxes2.to(boxes1.dtype)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    xi1, yi1 = ember.max(x1, x1g), ember.max(y1, y1g)
    xi2, yi2 = ember.min(x2, x2g), ember.min(y2, y2g)
    intersection = ember.zeros_like(x1)
    overlap = (yi2 > yi1) & (xi2 > xi1)
    intersection[overlap] = ((xi2 - xi1) * (yi2 - yi1))[overlap]
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - intersection
    iou = intersection / (union + eps)
    area_c = (ember.max(x2, x2g) - ember.min(x1, x1g)) * (ember.max(y2, y2g) - ember.min(y1, y1g))
    loss = 1 - (iou - (area_c - union) / (area_c + eps))
    if reduction == "mean":
        return loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    if reduction == "sum":
        return loss.sum()
    return loss
