"""Pasting Mask R-CNN's fixed-size (M x M) mask predictions into full images, each at its box."""

from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor
from ember.nn import functional as F

from ...ops.roi_align import roi_align
from ._utils import branch_proposals


def expand_masks(mask: Tensor, padding: int) -> Tuple[Tensor, float]:
    """Pads [N, 1, M, M] masks by padding on every side; returns them with the box scale that matches."""
    m = mask.shape[-1]
    scale = float(m + 2 * padding) / m
    return F.pad(mask, [padding, padding, padding, padding]), scale


def expand_boxes(boxes: Tensor, scale: float) -> Tensor:
    w_half = (boxes[:, 2] - boxes[:, 0]) * 0.5 * scale
    h_half = (boxes[:, 3] - boxes[:, 1]) * 0.5 * scale
    x_c = (boxes[:, 2] + boxes[:, 0]) * 0.5
    y_c = (boxes[:, 3] + boxes[:, 1]) * 0.5
    return ember.stack((x_c - w_half, y_c - h_half, x_c + w_half, y_c + h_half), dim=1)


def paste_mask_in_image(mask: Tensor, box: Tensor, im_h: int, im_w: int) -> Tensor:
    """One [M, M] mask resized (bilinear) to its integer box (inclusive corners) and placed in an
    [im_h, im_w] image of zeros, cut where the box leaves the image."""
    x0b, y0b, x1b, y1b = int(box[0]), int(box[1]), int(box[2]), int(box[3])
    w = max(x1b - x0b + 1, 1)
    h = max(y1b - y0b + 1, 1)
    resized = F.interpolate(mask.expand([1, 1, -1, -1]), size=[h, w], mode="bilinear", align_corners=False)[0][0]
    im_mask = ember.zeros((im_h, im_w), dtype=mask.dtype, device=mask.device)
    x_0, x_1 = max(x0b, 0), min(x1b + 1, im_w)
    y_0, y_1 = max(y0b, 0), min(y1b + 1, im_h)
    if x_1 > x_0 and y_1 > y_0:
        im_mask[y_0:y_1, x_0:x_1] = resized[(y_0 - y0b):(y_1 - y0b), (x_0 - x0b):(x_1 - x0b)]
    return im_mask


def paste_masks_in_image(masks: Tensor, boxes: Tensor, img_shape: List[int], padding: int = 1) -> Tensor:
    """[N, 1, M, M] masks and their [N, 4] boxes -> [N, 1, H, W] masks of an image of img_shape (H, W)."""
    masks, scale = expand_masks(masks, padding=padding)
    boxes = expand_boxes(boxes, scale).to(ember.int64)
    im_h, im_w = int(img_shape[0]), int(img_shape[1])
    res = [paste_mask_in_image(m[0], b, im_h, im_w) for m, b in zip(masks, boxes)]
    if len(res) > 0:
        return ember.stack(res, dim=0)[:, None]
    return masks.new_empty((0, 1, im_h, im_w))


def project_masks_on_boxes(gt_masks: Tensor, boxes: Tensor, matched_idxs: Tensor, m: int) -> Tensor:
    """Each proposal's ground-truth mask cropped to the proposal and resampled to m x m (RoIAlign)."""
    matched_idxs = matched_idxs.to(boxes)
    rois = ember.cat([matched_idxs[:, None], boxes], dim=1)
    return roi_align(gt_masks[:, None].to(rois), rois, [m, m], 1.0)[:, 0]


def maskrcnn_loss(mask_logits: Tensor, proposals: List[Tensor], gt_masks: List[Tensor], gt_labels: List[Tensor],
                  mask_matched_idxs: List[Tensor]) -> Tensor:
    """Binary cross-entropy of each foreground proposal's mask logits for its ground-truth class against the
    ground-truth mask projected onto the proposal."""
    discretization_size = mask_logits.shape[-1]
    labels = [gt_label[idxs] for gt_label, idxs in zip(gt_labels, mask_matched_idxs)]
    mask_targets = [project_masks_on_boxes(m, p, i, discretization_size)
                    for m, p, i in zip(gt_masks, proposals, mask_matched_idxs)]
    labels_cat = ember.cat(labels, dim=0)
    mask_targets_cat = ember.cat(mask_targets, dim=0)
    if mask_targets_cat.numel() == 0:
        return mask_logits.sum() * 0
    rows = ember.arange(labels_cat.shape[0], device=labels_cat.device)
    return F.binary_cross_entropy_with_logits(mask_logits[rows, labels_cat], mask_targets_cat)


def maskrcnn_inference(x: Tensor, labels: List[Tensor]) -> List[Tensor]:
    """Per image, the probability mask of each detection's predicted class: [N, 1, M, M]."""
    mask_prob = x.sigmoid()
    boxes_per_image = [label.shape[0] for label in labels]
    labels_cat = ember.cat(labels)
    mask_prob = mask_prob[ember.arange(x.shape[0], device=labels_cat.device), labels_cat][:, None]
    return list(mask_prob.split(boxes_per_image, dim=0))


class MaskBranch:
    """RoIHeads' mask step (a mixin of RoIHeads, so scripted code compiles it as a method): foreground proposals
    (training) or the detections (eval) pooled, through the mask head and predictor; adds loss_mask, or each
    detection's mask to result."""

    def mask_branch(self, features: Dict[str, Tensor], proposals: List[Tensor], image_shapes: List[Tuple[int, int]],
                    targets: Optional[List[Dict[str, Tensor]]], matched_idxs: Optional[List[Tensor]],
                    labels: Optional[List[Tensor]], result: List[Dict[str, Tensor]], losses: Dict[str, Tensor]
                    ) -> Tuple[List[Dict[str, Tensor]], Dict[str, Tensor]]:
        mask_proposals, pos_matched_idxs = branch_proposals(self.training, proposals, labels, matched_idxs, result)
        mask_features = self.mask_head(self.mask_roi_pool(features, mask_proposals, image_shapes))
        mask_logits = self.mask_predictor(mask_features)
        if self.training:
            if targets is None:
                raise ValueError("targets, pos_matched_idxs, mask_logits cannot be None when training")
            loss = maskrcnn_loss(mask_logits, mask_proposals, [t["masks"] for t in targets],
                                 [t["labels"] for t in targets], pos_matched_idxs)
            losses["loss_mask"] = loss
        else:
            for mask_prob, r in zip(maskrcnn_inference(mask_logits, [r["labels"] for r in result]), result):
                r["masks"] = mask_prob
        return result, losses
