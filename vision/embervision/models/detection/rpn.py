"""Region Proposal Network (Faster R-CNN): an objectness score and box deltas per anchor, decoded, the best
pre_nms_top_n per level kept, clipped, small and low-score boxes dropped, nms per level, post_nms_top_n kept.
In training it also returns the objectness and box regression losses over sampled anchors."""

from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor, nn
from ember.nn import functional as F

from ...ops import boxes as box_ops
from ...ops.misc import Conv2dNormActivation
from . import _utils as det_utils
from .image_list import ImageList


class RPNHead(nn.Module):
    """conv_depth 3x3 conv + ReLU layers, then 1x1 convs to objectness logits and box deltas per anchor."""

    _version = 2

    def __init__(self, in_channels, num_anchors, conv_depth=1):
        super().__init__()
        convs = [Conv2dNormActivation(in_channels, in_channels, kernel_size=3, norm_layer=None)
                 for _ in range(conv_depth)]
        self.conv = nn.Sequential(*convs)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors, kernel_size=1, stride=1)
        self.bbox_pred = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=1, stride=1)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.normal_(layer.weight, std=0.01)
                if layer.bias is not None:
                    nn.init.constant_(layer.bias, 0)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # Version 1 checkpoints (a plain Conv2d) call conv.0.0.weight conv.weight.
        version = local_metadata.get("version", None) if local_metadata else None
        if version is None or version < 2:
            for kind in ("weight", "bias"):
                old_key, new_key = f"{prefix}conv.{kind}", f"{prefix}conv.0.0.{kind}"
                if old_key in state_dict:
                    state_dict[new_key] = state_dict.pop(old_key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, x: List[Tensor]) -> Tuple[List[Tensor], List[Tensor]]:
        logits: List[Tensor] = []
        bbox_reg: List[Tensor] = []
        for feature in x:
            t = self.conv(feature)
            logits.append(self.cls_logits(t))
            bbox_reg.append(self.bbox_pred(t))
        return logits, bbox_reg


def permute_and_flatten(layer: Tensor, n: int, a: int, c: int, h: int, w: int) -> Tensor:
    """[N, A*C, H, W] -> [N, H*W*A, C] (anchor order: row, column, anchor)."""
    return layer.view(n, -1, c, h, w).permute(0, 3, 4, 1, 2).reshape(n, -1, c)


def concat_box_prediction_layers(box_cls: List[Tensor], box_regression: List[Tensor]) -> Tuple[Tensor, Tensor]:
    """Per-level head outputs -> all levels' predictions as [N*sum(HWA), C] and [N*sum(HWA), 4]."""
    flat_cls: List[Tensor] = []
    flat_reg: List[Tensor] = []
    for cls_per_level, reg_per_level in zip(box_cls, box_regression):
        n, axc, h, w = cls_per_level.shape
        a = reg_per_level.shape[1] // 4
        c = axc // a
        flat_cls.append(permute_and_flatten(cls_per_level, n, a, c, h, w))
        flat_reg.append(permute_and_flatten(reg_per_level, n, a, 4, h, w))
    return ember.cat(flat_cls, dim=1).flatten(0, -2), ember.cat(flat_reg, dim=1).reshape(-1, 4)


class RegionProposalNetwork(nn.Module):
    def __init__(self, anchor_generator, head, fg_iou_thresh, bg_iou_thresh, batch_size_per_image,
                 positive_fraction, pre_nms_top_n, post_nms_top_n, nms_thresh, score_thresh=0.0):
        super().__init__()
        self.anchor_generator = anchor_generator
        self.head = head
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True)
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(batch_size_per_image, positive_fraction)
        self._pre_nms_top_n = pre_nms_top_n
        self._post_nms_top_n = post_nms_top_n
        self.nms_thresh = nms_thresh
        self.score_thresh = score_thresh
        self.min_size = 1e-3

    def pre_nms_top_n(self) -> int:
        return self._pre_nms_top_n["training" if self.training else "testing"]

    def post_nms_top_n(self) -> int:
        return self._post_nms_top_n["training" if self.training else "testing"]

    def assign_targets_to_anchors(self, anchors: List[Tensor], targets: List[Dict[str, Tensor]]
                                  ) -> Tuple[List[Tensor], List[Tensor]]:
        """Per image: anchor labels (1 foreground, 0 background, -1 ignored) and each anchor's matched box."""
        labels: List[Tensor] = []
        matched_gt_boxes: List[Tensor] = []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            gt_boxes = targets_per_image["boxes"]
            if gt_boxes.numel() == 0:
                matched = ember.zeros(anchors_per_image.shape, dtype=ember.float32, device=anchors_per_image.device)
                labels_per_image = ember.zeros((anchors_per_image.shape[0],), dtype=ember.float32,
                                               device=anchors_per_image.device)
            else:
                matched_idxs = self.proposal_matcher(box_ops.box_iou(gt_boxes, anchors_per_image))
                matched = gt_boxes[matched_idxs.clamp(min=0)]
                labels_per_image = (matched_idxs >= 0).to(dtype=ember.float32)
                labels_per_image[matched_idxs == self.proposal_matcher.BELOW_LOW_THRESHOLD] = 0.0
                labels_per_image[matched_idxs == self.proposal_matcher.BETWEEN_THRESHOLDS] = -1.0
            labels.append(labels_per_image)
            matched_gt_boxes.append(matched)
        return labels, matched_gt_boxes

    def _get_top_n_idx(self, objectness: Tensor, num_anchors_per_level: List[int]) -> Tensor:
        r: List[Tensor] = []
        offset = 0
        for ob in objectness.split(num_anchors_per_level, 1):
            num_anchors = ob.shape[1]
            k = det_utils._topk_min(ob, self.pre_nms_top_n(), 1)
            _, top_n_idx = ob.topk(k, dim=1)
            r.append(top_n_idx + offset)
            offset += num_anchors
        return ember.cat(r, dim=1)

    def filter_proposals(self, proposals: Tensor, objectness: Tensor, image_shapes: List[Tuple[int, int]],
                         num_anchors_per_level: List[int]) -> Tuple[List[Tensor], List[Tensor]]:
        num_images = proposals.shape[0]
        objectness = objectness.detach().reshape(num_images, -1)
        levels = [ember.full((n,), idx, dtype=ember.int64, device=proposals.device)
                  for idx, n in enumerate(num_anchors_per_level)]
        levels = ember.cat(levels, 0).reshape(1, -1).expand_as(objectness)
        top_n_idx = self._get_top_n_idx(objectness, num_anchors_per_level)
        batch_idx = ember.arange(num_images, device=proposals.device)[:, None]
        objectness = objectness[batch_idx, top_n_idx]
        levels = levels[batch_idx, top_n_idx]
        proposals = proposals[batch_idx, top_n_idx]
        objectness_prob = ember.sigmoid(objectness)
        final_boxes: List[Tensor] = []
        final_scores: List[Tensor] = []
        for boxes, scores, lvl, img_shape in zip(proposals, objectness_prob, levels, image_shapes):
            boxes = box_ops.clip_boxes_to_image(boxes, img_shape)
            keep = box_ops.remove_small_boxes(boxes, self.min_size)
            boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
            keep = ember.where(scores >= self.score_thresh)[0]
            boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
            keep = box_ops.batched_nms(boxes, scores, lvl, self.nms_thresh)[:self.post_nms_top_n()]
            final_boxes.append(boxes[keep])
            final_scores.append(scores[keep])
        return final_boxes, final_scores

    def compute_loss(self, objectness: Tensor, pred_bbox_deltas: Tensor, labels: List[Tensor],
                     regression_targets: List[Tensor]) -> Tuple[Tensor, Tensor]:
        sampled_pos_inds, sampled_neg_inds = self.fg_bg_sampler(labels)
        sampled_pos_inds = ember.where(ember.cat(sampled_pos_inds, dim=0))[0]
        sampled_neg_inds = ember.where(ember.cat(sampled_neg_inds, dim=0))[0]
        sampled_inds = ember.cat([sampled_pos_inds, sampled_neg_inds], dim=0)
        objectness = objectness.flatten()
        labels = ember.cat(labels, dim=0)
        regression_targets = ember.cat(regression_targets, dim=0)
        box_loss = F.smooth_l1_loss(pred_bbox_deltas[sampled_pos_inds], regression_targets[sampled_pos_inds],
                                    beta=1 / 9, reduction="sum") / sampled_inds.numel()
        objectness_loss = F.binary_cross_entropy_with_logits(objectness[sampled_inds], labels[sampled_inds])
        return objectness_loss, box_loss

    def forward(self, images: ImageList, features: Dict[str, Tensor],
                targets: Optional[List[Dict[str, Tensor]]] = None) -> Tuple[List[Tensor], Dict[str, Tensor]]:
        """images: an ImageList; features: the backbone's maps by name. Returns (proposals per image, losses)."""
        feature_maps = list(features.values())
        objectness, pred_bbox_deltas = self.head(feature_maps)
        anchors = self.anchor_generator(images, feature_maps)
        num_images = len(anchors)
        num_anchors_per_level = [o[0].shape[0] * o[0].shape[1] * o[0].shape[2] for o in objectness]
        objectness_flat, pred_bbox_deltas_flat = concat_box_prediction_layers(objectness, pred_bbox_deltas)
        proposals = self.box_coder.decode(pred_bbox_deltas_flat.detach(), anchors).view(num_images, -1, 4)
        boxes, scores = self.filter_proposals(proposals, objectness_flat, images.image_sizes, num_anchors_per_level)
        losses: Dict[str, Tensor] = {}
        if self.training:
            if targets is None:
                raise ValueError("targets should not be None")
            labels, matched_gt_boxes = self.assign_targets_to_anchors(anchors, targets)
            regression_targets = self.box_coder.encode(matched_gt_boxes, anchors)
            loss_objectness, loss_rpn_box_reg = self.compute_loss(objectness_flat, pred_bbox_deltas_flat, labels,
                                                                  regression_targets)
            losses = {"loss_objectness": loss_objectness, "loss_rpn_box_reg": loss_rpn_box_reg}
        return boxes, losses
