"""The pieces every detector shares: BoxCoder (boxes <-> regression deltas), Matcher (each prediction to its
best ground-truth box by IoU), the balanced positive/negative sampler, and small helpers."""

import math
from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor
from ember.nn import functional as F

from ...ops.misc import FrozenBatchNorm2d


@ember.jit.script
class BalancedPositiveNegativeSampler:
    """Samples batch_size_per_image labels per image, at most positive_fraction of them positive (label >= 1);
    negatives are label 0, -1 is ignored. Returns per-image uint8 masks (positives, negatives)."""

    def __init__(self, batch_size_per_image: int, positive_fraction: float):
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def __call__(self, matched_idxs: List[Tensor]) -> Tuple[List[Tensor], List[Tensor]]:
        pos_idx: List[Tensor] = []
        neg_idx: List[Tensor] = []
        for matched_idxs_per_image in matched_idxs:
            positive = ember.where(matched_idxs_per_image >= 1)[0]
            negative = ember.where(matched_idxs_per_image == 0)[0]
            num_pos = min(positive.numel(), int(self.batch_size_per_image * self.positive_fraction))
            num_neg = min(negative.numel(), self.batch_size_per_image - num_pos)
            pos_chosen = positive[ember.randperm(positive.numel(), device=positive.device)[:num_pos]]
            neg_chosen = negative[ember.randperm(negative.numel(), device=negative.device)[:num_neg]]
            pos_mask = ember.zeros_like(matched_idxs_per_image, dtype=ember.uint8)
            neg_mask = ember.zeros_like(matched_idxs_per_image, dtype=ember.uint8)
            pos_mask[pos_chosen] = 1
            neg_mask[neg_chosen] = 1
            pos_idx.append(pos_mask)
            neg_idx.append(neg_mask)
        return pos_idx, neg_idx


def encode_boxes(reference_boxes: Tensor, proposals: Tensor, weights: Tensor) -> Tensor:
    """Deltas (dx, dy, dw, dh) that take each proposal to its reference box (R-CNN's parametrization)."""
    wx, wy, ww, wh = weights[0], weights[1], weights[2], weights[3]
    ex_widths = proposals[:, 2:3] - proposals[:, 0:1]
    ex_heights = proposals[:, 3:4] - proposals[:, 1:2]
    ex_ctr_x = proposals[:, 0:1] + 0.5 * ex_widths
    ex_ctr_y = proposals[:, 1:2] + 0.5 * ex_heights
    gt_widths = reference_boxes[:, 2:3] - reference_boxes[:, 0:1]
    gt_heights = reference_boxes[:, 3:4] - reference_boxes[:, 1:2]
    gt_ctr_x = reference_boxes[:, 0:1] + 0.5 * gt_widths
    gt_ctr_y = reference_boxes[:, 1:2] + 0.5 * gt_heights
    dx = wx * (gt_ctr_x - ex_ctr_x) / ex_widths
    dy = wy * (gt_ctr_y - ex_ctr_y) / ex_heights
    dw = ww * ember.log(gt_widths / ex_widths)
    dh = wh * ember.log(gt_heights / ex_heights)
    return ember.cat((dx, dy, dw, dh), dim=1)


@ember.jit.script
class BoxCoder:
    """Encodes boxes as deltas relative to reference boxes and decodes them back; dw/dh are clipped at
    bbox_xform_clip before exp so a wild prediction cannot overflow."""

    def __init__(self, weights: Tuple[float, float, float, float], bbox_xform_clip: float = math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, reference_boxes: List[Tensor], proposals: List[Tensor]) -> List[Tensor]:
        boxes_per_image = [len(b) for b in reference_boxes]
        targets = self.encode_single(ember.cat(reference_boxes, dim=0), ember.cat(proposals, dim=0))
        return targets.split(boxes_per_image, 0)

    def encode_single(self, reference_boxes: Tensor, proposals: Tensor) -> Tensor:
        weights = ember.tensor(self.weights, dtype=reference_boxes.dtype, device=reference_boxes.device)
        return encode_boxes(reference_boxes, proposals, weights)

    def decode(self, rel_codes: Tensor, boxes: List[Tensor]) -> Tensor:
        if not isinstance(boxes, (list, tuple)):
            raise TypeError(f"This function expects boxes of type list or tuple, got {type(boxes)}")
        if not isinstance(rel_codes, ember.Tensor):
            raise TypeError(f"This function expects rel_codes of type Tensor, got {type(rel_codes)}")
        boxes_per_image = [b.size(0) for b in boxes]
        concat_boxes = ember.cat(boxes, dim=0)
        box_sum = 0
        for val in boxes_per_image:
            box_sum += val
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, concat_boxes)
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        """rel_codes [N, 4k] against boxes [N, 4] -> boxes [N, 4k] (x1, y1, x2, y2 per class)."""
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = ember.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = ember.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        half_w = 0.5 * ember.exp(dw) * widths[:, None]
        half_h = 0.5 * ember.exp(dh) * heights[:, None]
        pred = ember.stack((pred_ctr_x - half_w, pred_ctr_y - half_h, pred_ctr_x + half_w, pred_ctr_y + half_h), dim=2)
        return pred.flatten(1)


@ember.jit.script
class Matcher:
    """Assigns each prediction (column of an IoU matrix [gt, pred]) the index of its best ground truth, or
    BELOW_LOW_THRESHOLD (-1) / BETWEEN_THRESHOLDS (-2). With allow_low_quality_matches every ground truth
    also keeps the predictions it overlaps most, even under the high threshold."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    def __init__(self, high_threshold: float, low_threshold: float, allow_low_quality_matches: bool = False):
        if low_threshold > high_threshold:
            raise ValueError("low_threshold should be <= high_threshold")
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix: Tensor) -> Tensor:
        if match_quality_matrix.numel() == 0:
            if match_quality_matrix.shape[0] == 0:
                raise ValueError("No ground-truth boxes available for one of the images during training")
            raise ValueError("No proposal boxes available for one of the images during training")
        matched_vals, matches = match_quality_matrix.max(dim=0)
        all_matches = matches.clone() if self.allow_low_quality_matches else None
        below_low = matched_vals < self.low_threshold
        between = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below_low] = self.BELOW_LOW_THRESHOLD
        matches[between] = self.BETWEEN_THRESHOLDS
        if self.allow_low_quality_matches:
            if all_matches is None:
                ember._assert(False, "all_matches should not be None")
            else:
                self.set_low_quality_matches_(matches, all_matches, match_quality_matrix)
        return matches

    def set_low_quality_matches_(self, matches: Tensor, all_matches: Tensor, match_quality_matrix: Tensor) -> None:
        highest_quality_foreach_gt, _ = match_quality_matrix.max(dim=1)
        pairs = ember.where(match_quality_matrix == highest_quality_foreach_gt[:, None])
        pred_inds_to_update = pairs[1]
        matches[pred_inds_to_update] = all_matches[pred_inds_to_update]


@ember.jit.script
class SSDMatcher:
    """SSD's matcher: one threshold, and every ground truth forced onto its best prediction (a Matcher inside
    rather than a subclass, as scripted classes do not inherit)."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    def __init__(self, threshold: float):
        self.matcher = Matcher(threshold, threshold, False)
        self.high_threshold = threshold
        self.low_threshold = threshold
        self.allow_low_quality_matches = False

    def __call__(self, match_quality_matrix: Tensor) -> Tensor:
        matches = self.matcher(match_quality_matrix)
        _, highest_quality_pred_foreach_gt = match_quality_matrix.max(dim=1)
        n_gt = highest_quality_pred_foreach_gt.size(0)
        matches[highest_quality_pred_foreach_gt] = ember.arange(n_gt, dtype=ember.int64,
                                                                device=highest_quality_pred_foreach_gt.device)
        return matches


def overwrite_eps(model, eps):
    """The first COCO checkpoints were trained with FrozenBatchNorm2d's eps 0; set it back when loading them."""
    for module in model.modules():
        if isinstance(module, FrozenBatchNorm2d):
            module.eps = eps


def _topk_min(values: Tensor, orig_kval: int, axis: int) -> int:
    """k for topk: orig_kval, but never more than the axis holds."""
    return min(int(values.size(axis)), orig_kval)


def _box_loss(kind: str, box_coder: BoxCoder, anchors_per_image: Tensor, matched_gt_boxes_per_image: Tensor,
              bbox_regression_per_image: Tensor, cnf: Optional[Dict[str, float]] = None) -> Tensor:
    """Summed regression loss of one image's foreground anchors against their matched boxes (as deltas)."""
    if kind not in ("l1", "smooth_l1"):
        raise ValueError(f"Unsupported loss: {kind}")
    target_regression = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
    if kind == "l1":
        return F.l1_loss(bbox_regression_per_image, target_regression, reduction="sum")
    beta = 1.0
    if cnf is not None and "beta" in cnf:
        beta = cnf["beta"]
    return F.smooth_l1_loss(bbox_regression_per_image, target_regression, reduction="sum", beta=beta)


def branch_proposals(training: bool, proposals: List[Tensor], labels: Optional[List[Tensor]],
                     matched_idxs: Optional[List[Tensor]], result: List[Dict[str, Tensor]]
                     ) -> Tuple[List[Tensor], List[Tensor]]:
    """What RoIHeads' mask and keypoint steps pool: in training each image's foreground proposals (label > 0)
    with their matched ground-truth indices, in eval the detections' boxes (and no indices)."""
    picked: List[Tensor] = []
    pos_matched_idxs: List[Tensor] = []
    if not training:
        return [p["boxes"] for p in result], pos_matched_idxs
    if matched_idxs is None or labels is None:
        raise ValueError("if in training, matched_idxs should not be None")
    for img_proposals, img_labels, img_matched in zip(proposals, labels, matched_idxs):
        pos = ember.where(img_labels > 0)[0]
        picked.append(img_proposals[pos])
        pos_matched_idxs.append(img_matched[pos])
    return picked, pos_matched_idxs
