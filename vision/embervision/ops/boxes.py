"""Box utilities (boxes are (x1, y1, x2, y2) unless a format says otherwise) and nms."""

import math
from typing import Tuple

import ember
from ember import Tensor

from ._utils import autocast_fp32, upcast


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    """Indices (int64) of the boxes kept by greedy non-maximum suppression, by decreasing score. Inside a CPU
    autocast region (eager or scripted) boxes and scores run in float32, as torchvision's autocast kernel does."""
    if ember.is_autocast_enabled("cpu"):
        boxes, scores = autocast_fp32(boxes), autocast_fp32(scores)
    return ember.ops.vision.nms(boxes, scores, float(iou_threshold))


def batched_nms(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    """nms within each category of idxs: boxes of different categories never suppress each other
    (each category's boxes are shifted apart by more than the largest coordinate)."""
    if boxes.numel() == 0:
        return ember.empty((0,), dtype=ember.int64, device=boxes.device)
    if not (idxs.dim() == 1 and idxs.size(0) == boxes.size(0)):
        raise RuntimeError(f"batched_nms: idxs must be a 1-d tensor with one entry per box, got shape "
                           f"{list(idxs.shape)} for {boxes.size(0)} boxes")
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + ember.tensor(1).to(boxes))
    return nms(boxes + offsets[:, None], scores, iou_threshold)


def remove_small_boxes(boxes: Tensor, min_size: float) -> Tensor:
    """Indices of the boxes whose sides are both at least min_size."""
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    return ember.where(keep)[0]


def clip_boxes_to_image(boxes: Tensor, size: Tuple[int, int]) -> Tensor:
    """Clips boxes (Tensor[..., 4]) to an image of size (height, width)."""
    dim = boxes.dim()
    boxes_x, boxes_y = boxes[..., 0::2], boxes[..., 1::2]
    height, width = size
    boxes_x = boxes_x.clamp(min=0, max=width)
    boxes_y = boxes_y.clamp(min=0, max=height)
    return ember.stack((boxes_x, boxes_y), dim=dim).reshape(boxes.shape)


_FORMATS = ("xyxy", "xywh", "cxcywh")


def _to_xyxy(boxes: Tensor, fmt: str) -> Tensor:
    a, b, c, d = boxes.unbind(-1)
    if fmt == "xywh":
        return ember.stack((a, b, a + c, b + d), dim=-1)
    if fmt == "cxcywh":
        return ember.stack((a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d), dim=-1)
    return boxes


def _from_xyxy(boxes: Tensor, fmt: str) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    if fmt == "xywh":
        return ember.stack((x1, y1, x2 - x1, y2 - y1), dim=-1)
    if fmt == "cxcywh":
        return ember.stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)
    return boxes


def box_convert(boxes: Tensor, in_fmt: str, out_fmt: str) -> Tensor:
    """Converts boxes between 'xyxy', 'xywh' (corner, size) and 'cxcywh' (centre, size)."""
    if in_fmt not in _FORMATS or out_fmt not in _FORMATS:
        raise ValueError("Unsupported Bounding Box Conversions for given in_fmt and out_fmt")
    if in_fmt == out_fmt:
        return boxes.clone()
    return _from_xyxy(_to_xyxy(boxes, in_fmt), out_fmt)


def box_area(boxes: Tensor) -> Tensor:
    """Areas of Tensor[N, 4] boxes."""
    boxes = upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _inter_union(boxes1: Tensor, boxes2: Tensor) -> Tuple[Tensor, Tensor]:
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = ember.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = ember.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = upcast(rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter, area1[:, None] + area2 - inter


def _check_pair(boxes1: Tensor, boxes2: Tensor, name: str) -> None:
    for b in [boxes1, boxes2]:
        if b.dim() != 2 or b.size(-1) != 4:
            raise ValueError(f"{name}: boxes must be Tensor[N, 4], got shape {list(b.shape)}")


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """Intersection over union, Tensor[N, M], of every pair of boxes1 [N, 4] and boxes2 [M, 4]."""
    _check_pair(boxes1, boxes2, "box_iou")
    inter, union = _inter_union(boxes1, boxes2)
    return inter / union


def _enclosing(boxes1, boxes2):
    lti = ember.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = ember.max(boxes1[:, None, 2:], boxes2[:, 2:])
    return upcast(rbi - lti).clamp(min=0)


def generalized_box_iou(boxes1, boxes2):
    """GIoU: IoU minus the share of the smallest enclosing box that the union leaves empty."""
    _check_pair(boxes1, boxes2, "generalized_box_iou")
    inter, union = _inter_union(boxes1, boxes2)
    iou = inter / union
    whi = _enclosing(boxes1, boxes2)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def _diou_iou(boxes1, boxes2, eps):
    iou = box_iou(boxes1, boxes2)
    whi = _enclosing(boxes1, boxes2)
    diagonal_distance_squared = (whi[:, :, 0] ** 2) + (whi[:, :, 1] ** 2) + eps
    x_p, y_p = (boxes1[:, 0] + boxes1[:, 2]) / 2, (boxes1[:, 1] + boxes1[:, 3]) / 2
    x_g, y_g = (boxes2[:, 0] + boxes2[:, 2]) / 2, (boxes2[:, 1] + boxes2[:, 3]) / 2
    centers_distance_squared = (upcast(x_p[:, None] - x_g[None, :]) ** 2) + (upcast(y_p[:, None] - y_g[None, :]) ** 2)
    return iou - (centers_distance_squared / diagonal_distance_squared), iou


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """DIoU: IoU minus the squared centre distance over the enclosing box's squared diagonal."""
    _check_pair(boxes1, boxes2, "distance_box_iou")
    boxes1, boxes2 = upcast(boxes1), upcast(boxes2)
    diou, _ = _diou_iou(boxes1, boxes2, eps)
    return diou


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """CIoU: DIoU minus an aspect-ratio consistency term alpha * v."""
    _check_pair(boxes1, boxes2, "complete_box_iou")
    boxes1, boxes2 = upcast(boxes1), upcast(boxes2)
    diou, iou = _diou_iou(boxes1, boxes2, eps)
    w_pred, h_pred = boxes1[:, None, 2] - boxes1[:, None, 0], boxes1[:, None, 3] - boxes1[:, None, 1]
    w_gt, h_gt = boxes2[:, 2] - boxes2[:, 0], boxes2[:, 3] - boxes2[:, 1]
    v = (4 / (math.pi**2)) * ember.pow(ember.atan(w_pred / h_pred) - ember.atan(w_gt / h_gt), 2)
    with ember.no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def masks_to_boxes(masks):
    """The tight (x1, y1, x2, y2) box, float, of each of masks [N, H, W]'s nonzero pixels."""
    if masks.numel() == 0:
        return ember.zeros((0, 4), device=masks.device, dtype=ember.float)
    if masks.dim() != 3:
        raise ValueError(f"masks_to_boxes: masks must be Tensor[N, H, W], got shape {tuple(masks.shape)}")
    boxes = ember.zeros((masks.shape[0], 4), device=masks.device, dtype=ember.float)
    for index, mask in enumerate(masks):
        y, x = ember.where(mask != 0)
        if y.numel() == 0:
            raise ValueError(f"masks_to_boxes: mask {index} is empty (no nonzero pixel), so it has no box")
        boxes[index, 0], boxes[index, 1] = ember.min(x), ember.min(y)
        boxes[index, 2], boxes[index, 3] = ember.max(x), ember.max(y)
    return boxes
