"""Keypoint R-CNN's branch of RoIHeads: ground-truth keypoints as one-hot heatmap targets inside each
foreground proposal (cross-entropy over the heatmap's cells), and heatmaps back to image keypoints."""

from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor
from ember.nn import functional as F

from ._utils import branch_proposals


def keypoints_to_heatmap(keypoints: Tensor, rois: Tensor, heatmap_size: int) -> Tuple[Tensor, Tensor]:
    """Keypoints [N, K, 3] (x, y, visibility) inside rois [N, 4] -> (linear heatmap index [N, K], valid [N, K])."""
    offset_x, offset_y = rois[:, 0][:, None], rois[:, 1][:, None]
    scale_x = (heatmap_size / (rois[:, 2] - rois[:, 0]))[:, None]
    scale_y = (heatmap_size / (rois[:, 3] - rois[:, 1]))[:, None]
    x, y = keypoints[..., 0], keypoints[..., 1]
    # A keypoint on the box's right/bottom edge belongs to the last cell, not one past it.
    x_boundary = x == rois[:, 2][:, None]
    y_boundary = y == rois[:, 3][:, None]
    x = ((x - offset_x) * scale_x).floor().long()
    y = ((y - offset_y) * scale_y).floor().long()
    x[x_boundary] = heatmap_size - 1
    y[y_boundary] = heatmap_size - 1
    valid_loc = (x >= 0) & (y >= 0) & (x < heatmap_size) & (y < heatmap_size)
    valid = (valid_loc & (keypoints[..., 2] > 0)).long()
    return (y * heatmap_size + x) * valid, valid


def keypointrcnn_loss(keypoint_logits: Tensor, proposals: List[Tensor], gt_keypoints: List[Tensor],
                      keypoint_matched_idxs: List[Tensor]) -> Tensor:
    n, k, h, w = keypoint_logits.shape
    if h != w:
        raise ValueError("keypoint_logits height and width (last two elements of shape) should be equal. Instead got "
                         f"H = {h} and W = {w}")
    heatmaps: List[Tensor] = []
    valid: List[Tensor] = []
    for proposals_per_image, gt_kp_in_image, midx in zip(proposals, gt_keypoints, keypoint_matched_idxs):
        heatmaps_per_image, valid_per_image = keypoints_to_heatmap(gt_kp_in_image[midx], proposals_per_image, h)
        heatmaps.append(heatmaps_per_image.view(-1))
        valid.append(valid_per_image.view(-1))
    keypoint_targets = ember.cat(heatmaps, dim=0)
    valid_idx = ember.where(ember.cat(valid, dim=0).to(dtype=ember.uint8))[0]
    if keypoint_targets.numel() == 0 or len(valid_idx) == 0:
        return keypoint_logits.sum() * 0
    return F.cross_entropy(keypoint_logits.view(n * k, h * w)[valid_idx], keypoint_targets[valid_idx])


def heatmaps_to_keypoints(maps: Tensor, rois: Tensor) -> Tuple[Tensor, Tensor]:
    """Each heatmap resized (bicubic) to its box's size; the argmax cell's centre is the keypoint (Heckbert's
    c = d + 0.5). Returns ([N, K, 3] (x, y, 1), [N, K] the heatmap values there)."""
    offset_x, offset_y = rois[:, 0], rois[:, 1]
    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    heights = (rois[:, 3] - rois[:, 1]).clamp(min=1)
    widths_ceil, heights_ceil = widths.ceil(), heights.ceil()
    num_keypoints = maps.shape[1]
    xy_preds = ember.zeros((len(rois), 3, num_keypoints), dtype=ember.float32, device=maps.device)
    end_scores = ember.zeros((len(rois), num_keypoints), dtype=ember.float32, device=maps.device)
    for i in range(len(rois)):
        roi_map_width, roi_map_height = int(widths_ceil[i].item()), int(heights_ceil[i].item())
        width_correction = widths[i] / roi_map_width
        height_correction = heights[i] / roi_map_height
        roi_map = F.interpolate(maps[i][:, None], size=[roi_map_height, roi_map_width], mode="bicubic",
                                align_corners=False)[:, 0]
        w = roi_map.shape[2]
        pos = roi_map.reshape(num_keypoints, -1).argmax(dim=1)
        x_int = pos % w
        y_int = ember.div(pos - x_int, w, rounding_mode="floor")
        xy_preds[i, 0, :] = (x_int.float() + 0.5) * width_correction + offset_x[i]
        xy_preds[i, 1, :] = (y_int.float() + 0.5) * height_correction + offset_y[i]
        xy_preds[i, 2, :] = 1
        end_scores[i, :] = roi_map[ember.arange(num_keypoints, device=roi_map.device), y_int, x_int]
    return xy_preds.permute(0, 2, 1), end_scores


def keypointrcnn_inference(x: Tensor, boxes: List[Tensor]) -> Tuple[List[Tensor], List[Tensor]]:
    kp_probs: List[Tensor] = []
    kp_scores: List[Tensor] = []
    for xx, bb in zip(x.split([box.size(0) for box in boxes], dim=0), boxes):
        kp_prob, scores = heatmaps_to_keypoints(xx, bb)
        kp_probs.append(kp_prob)
        kp_scores.append(scores)
    return kp_probs, kp_scores


class KeypointBranch:
    """RoIHeads' keypoint step (a mixin of RoIHeads, so scripted code compiles it as a method): foreground
    proposals (training) or the detections (eval) pooled, through the keypoint head and predictor; adds
    loss_keypoint, or keypoints and keypoints_scores to each detection."""

    def keypoint_branch(self, features: Dict[str, Tensor], proposals: List[Tensor],
                        image_shapes: List[Tuple[int, int]], targets: Optional[List[Dict[str, Tensor]]],
                        matched_idxs: Optional[List[Tensor]], labels: Optional[List[Tensor]],
                        result: List[Dict[str, Tensor]], losses: Dict[str, Tensor]
                        ) -> Tuple[List[Dict[str, Tensor]], Dict[str, Tensor]]:
        keypoint_proposals, pos_matched_idxs = branch_proposals(self.training, proposals, labels, matched_idxs, result)
        keypoint_features = self.keypoint_head(self.keypoint_roi_pool(features, keypoint_proposals, image_shapes))
        keypoint_logits = self.keypoint_predictor(keypoint_features)
        if self.training:
            if targets is None:
                raise ValueError("both targets and pos_matched_idxs should not be None when in training mode")
            loss = keypointrcnn_loss(keypoint_logits, keypoint_proposals, [t["keypoints"] for t in targets],
                                     pos_matched_idxs)
            losses["loss_keypoint"] = loss
            return result, losses
        keypoints_probs, kp_scores = keypointrcnn_inference(keypoint_logits, keypoint_proposals)
        for keypoint_prob, kps, r in zip(keypoints_probs, kp_scores, result):
            r["keypoints"] = keypoint_prob
            r["keypoints_scores"] = kps
        return result, losses
