"""RoIHeads (Fast R-CNN's second stage): proposals matched to ground truth and sampled in training, features
pooled per proposal, a box head and predictor giving class logits and per-class box deltas; the losses in
training, per-image detections (score threshold, nms per class, top detections_per_img) in eval."""

from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor, nn
from ember.nn import functional as F

from ...ops import boxes as box_ops
from . import _utils as det_utils
from .roi_keypoint import KeypointBranch
from .roi_mask import MaskBranch


def fastrcnn_loss(class_logits: Tensor, box_regression: Tensor, labels: List[Tensor],
                  regression_targets: List[Tensor]) -> Tuple[Tensor, Tensor]:
    """Cross-entropy over all sampled proposals; smooth-L1 of the true class's deltas over the foreground
    ones, divided by the number of sampled proposals."""
    labels_cat = ember.cat(labels, dim=0)
    regression_targets_cat = ember.cat(regression_targets, dim=0)
    classification_loss = F.cross_entropy(class_logits, labels_cat)
    pos_inds = ember.where(labels_cat > 0)[0]
    labels_pos = labels_cat[pos_inds]
    n = class_logits.shape[0]
    box_regression = box_regression.reshape(n, box_regression.size(-1) // 4, 4)
    box_loss = F.smooth_l1_loss(box_regression[pos_inds, labels_pos], regression_targets_cat[pos_inds], beta=1 / 9,
                                reduction="sum")
    return classification_loss, box_loss / labels_cat.numel()


def _is_float_type(dtype: int) -> bool:
    """Whether dtype is one of the box types torchvision accepts (float, double, half; not bfloat16)."""
    return dtype == ember.float or dtype == ember.double or dtype == ember.half


class RoIHeads(MaskBranch, KeypointBranch, nn.Module):
    def __init__(self, box_roi_pool, box_head, box_predictor, fg_iou_thresh, bg_iou_thresh, batch_size_per_image,
                 positive_fraction, bbox_reg_weights, score_thresh, nms_thresh, detections_per_img,
                 mask_roi_pool=None, mask_head=None, mask_predictor=None, keypoint_roi_pool=None, keypoint_head=None,
                 keypoint_predictor=None):
        super().__init__()
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=False)
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(batch_size_per_image, positive_fraction)
        if bbox_reg_weights is None:
            bbox_reg_weights = (10.0, 10.0, 5.0, 5.0)
        self.box_coder = det_utils.BoxCoder(bbox_reg_weights)
        self.box_roi_pool = box_roi_pool
        self.box_head = box_head
        self.box_predictor = box_predictor
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.mask_roi_pool = mask_roi_pool
        self.mask_head = mask_head
        self.mask_predictor = mask_predictor
        self.keypoint_roi_pool = keypoint_roi_pool
        self.keypoint_head = keypoint_head
        self.keypoint_predictor = keypoint_predictor

    def has_mask(self) -> bool:
        return not (self.mask_roi_pool is None or self.mask_head is None or self.mask_predictor is None)

    def has_keypoint(self) -> bool:
        return not (self.keypoint_roi_pool is None or self.keypoint_head is None or self.keypoint_predictor is None)

    def assign_targets_to_proposals(self, proposals: List[Tensor], gt_boxes: List[Tensor], gt_labels: List[Tensor]
                                    ) -> Tuple[List[Tensor], List[Tensor]]:
        matched_idxs: List[Tensor] = []
        labels: List[Tensor] = []
        for proposals_in_image, gt_boxes_in_image, gt_labels_in_image in zip(proposals, gt_boxes, gt_labels):
            device = proposals_in_image.device
            if gt_boxes_in_image.numel() == 0:
                clamped = ember.zeros((proposals_in_image.shape[0],), dtype=ember.int64, device=device)
                labels_in_image = ember.zeros((proposals_in_image.shape[0],), dtype=ember.int64, device=device)
            else:
                matched = self.proposal_matcher(box_ops.box_iou(gt_boxes_in_image, proposals_in_image))
                clamped = matched.clamp(min=0)
                labels_in_image = gt_labels_in_image[clamped].to(dtype=ember.int64)
                labels_in_image[matched == self.proposal_matcher.BELOW_LOW_THRESHOLD] = 0
                labels_in_image[matched == self.proposal_matcher.BETWEEN_THRESHOLDS] = -1
            matched_idxs.append(clamped)
            labels.append(labels_in_image)
        return matched_idxs, labels

    def subsample(self, labels: List[Tensor]) -> List[Tensor]:
        sampled_pos_inds, sampled_neg_inds = self.fg_bg_sampler(labels)
        return [ember.where(pos | neg)[0] for pos, neg in zip(sampled_pos_inds, sampled_neg_inds)]

    def add_gt_proposals(self, proposals: List[Tensor], gt_boxes: List[Tensor]) -> List[Tensor]:
        return [ember.cat((proposal, gt_box)) for proposal, gt_box in zip(proposals, gt_boxes)]

    def check_targets(self, targets: Optional[List[Dict[str, Tensor]]]) -> None:
        if targets is None:
            raise ValueError("targets should not be none when in training mode")
            return
        if not all("boxes" in t for t in targets):
            raise ValueError("Every element of targets should have a boxes key")
        if not all("labels" in t for t in targets):
            raise ValueError("Every element of targets should have a labels key")
        if self.has_mask() and not all("masks" in t for t in targets):
            raise ValueError("Every element of targets should have a masks key")
        if self.has_keypoint() and not all("keypoints" in t for t in targets):
            raise ValueError("Every element of targets should have a keypoints key")

    def select_training_samples(self, proposals: List[Tensor], targets: Optional[List[Dict[str, Tensor]]]
                                ) -> Tuple[List[Tensor], List[Tensor], List[Tensor], List[Tensor]]:
        """Ground-truth boxes joined to the proposals, matched, sampled; returns the sampled proposals, their
        matched ground-truth indices, labels and regression targets."""
        self.check_targets(targets)
        if targets is None:
            raise ValueError("targets should not be None")
        dtype, device = proposals[0].dtype, proposals[0].device
        gt_boxes = [t["boxes"].to(dtype) for t in targets]
        gt_labels = [t["labels"] for t in targets]
        proposals = self.add_gt_proposals(proposals, gt_boxes)
        matched_idxs, labels = self.assign_targets_to_proposals(proposals, gt_boxes, gt_labels)
        sampled_inds = self.subsample(labels)
        matched_gt_boxes: List[Tensor] = []
        for img_id in range(len(proposals)):
            img_sampled_inds = sampled_inds[img_id]
            proposals[img_id] = proposals[img_id][img_sampled_inds]
            labels[img_id] = labels[img_id][img_sampled_inds]
            matched_idxs[img_id] = matched_idxs[img_id][img_sampled_inds]
            gt_boxes_in_image = gt_boxes[img_id]
            if gt_boxes_in_image.numel() == 0:
                gt_boxes_in_image = ember.zeros((1, 4), dtype=dtype, device=device)
            matched_gt_boxes.append(gt_boxes_in_image[matched_idxs[img_id]])
        regression_targets = self.box_coder.encode(matched_gt_boxes, proposals)
        return proposals, matched_idxs, labels, regression_targets

    def postprocess_detections(self, class_logits: Tensor, box_regression: Tensor, proposals: List[Tensor],
                               image_shapes: List[Tuple[int, int]]) -> Tuple[List[Tensor], List[Tensor], List[Tensor]]:
        num_classes = class_logits.shape[-1]
        boxes_per_image = [boxes_in_image.shape[0] for boxes_in_image in proposals]
        pred_boxes = self.box_coder.decode(box_regression, proposals)
        pred_scores = F.softmax(class_logits, -1)
        all_boxes: List[Tensor] = []
        all_scores: List[Tensor] = []
        all_labels: List[Tensor] = []
        for boxes, scores, image_shape in zip(pred_boxes.split(boxes_per_image, 0),
                                              pred_scores.split(boxes_per_image, 0), image_shapes):
            boxes = box_ops.clip_boxes_to_image(boxes, image_shape)
            labels = ember.arange(num_classes, device=boxes.device).view(1, -1).expand_as(scores)
            # Column 0 is the background class: never a detection.
            boxes = boxes[:, 1:].reshape(-1, 4)
            scores = scores[:, 1:].reshape(-1)
            labels = labels[:, 1:].reshape(-1)
            inds = ember.where(scores > self.score_thresh)[0]
            boxes, scores, labels = boxes[inds], scores[inds], labels[inds]
            keep = box_ops.remove_small_boxes(boxes, min_size=1e-2)
            boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
            keep = box_ops.batched_nms(boxes, scores, labels, self.nms_thresh)[:self.detections_per_img]
            all_boxes.append(boxes[keep])
            all_scores.append(scores[keep])
            all_labels.append(labels[keep])
        return all_boxes, all_scores, all_labels

    def _check_target_types(self, targets: List[Dict[str, Tensor]]) -> None:
        for t in targets:
            if not _is_float_type(t["boxes"].dtype):
                raise TypeError(f"target boxes must of float type, instead got {t['boxes'].dtype}")
            if t["labels"].dtype != ember.int64:
                raise TypeError(f"target labels must of int64 type, instead got {t['labels'].dtype}")
            if self.has_keypoint() and "keypoints" in t and not _is_float_type(t["keypoints"].dtype):
                raise TypeError(f"target keypoints must of float type, instead got {t['keypoints'].dtype}")

    def forward(self, features: Dict[str, Tensor], proposals: List[Tensor], image_shapes: List[Tuple[int, int]],
                targets: Optional[List[Dict[str, Tensor]]] = None
                ) -> Tuple[List[Dict[str, Tensor]], Dict[str, Tensor]]:
        """Returns (detections: List[Dict[str, Tensor]] in eval, empty in training; losses: Dict in training)."""
        if targets is not None:
            self._check_target_types(targets)
        matched_idxs: Optional[List[Tensor]] = None
        labels: Optional[List[Tensor]] = None
        regression_targets: Optional[List[Tensor]] = None
        if self.training:
            proposals, matched_idxs, labels, regression_targets = self.select_training_samples(proposals, targets)
        box_features = self.box_head(self.box_roi_pool(features, proposals, image_shapes))
        class_logits, box_regression = self.box_predictor(box_features)
        result: List[Dict[str, Tensor]] = []
        losses: Dict[str, Tensor] = {}
        if self.training:
            if labels is None or regression_targets is None:
                raise ValueError("labels cannot be None")
            loss_classifier, loss_box_reg = fastrcnn_loss(class_logits, box_regression, labels, regression_targets)
            losses = {"loss_classifier": loss_classifier, "loss_box_reg": loss_box_reg}
        else:
            boxes, scores, labels = self.postprocess_detections(class_logits, box_regression, proposals, image_shapes)
            result = [{"boxes": b, "labels": lab, "scores": s} for b, s, lab in zip(boxes, scores, labels)]
        # `is not None` on the modules themselves: scripted code compiles a branch only for the parts it has
        if self.mask_roi_pool is not None and self.mask_head is not None and self.mask_predictor is not None:
            result, losses = self.mask_branch(features, proposals, image_shapes, targets, matched_idxs, labels,
                                              result, losses)
        if self.keypoint_roi_pool is not None and self.keypoint_head is not None and \
                self.keypoint_predictor is not None:
            result, losses = self.keypoint_branch(features, proposals, image_shapes, targets, matched_idxs, labels,
                                                  result, losses)
        return result, losses
