"""FCOS (Tian et al.): anchor-free detection, one point per feature-map cell regressing its distances to the
box sides, with centerness; GroupNorm heads, focal loss, GIoU loss; torchvision's fcos_resnet50_fpn."""

import math
from functools import partial
from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor, nn
from ember.nn import functional as F

from ...ops import boxes as box_ops
from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import LastLevelP6P7
from ...ops.focal_loss import sigmoid_focal_loss
from ...ops.giou_loss import generalized_box_iou_loss
from .._api import register_model
from .._weights_resnet import ResNet50_Weights
from ..resnet import resnet50
from . import _utils as det_utils
from . import _weights as W
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import load_detector_weights, resolve_weights
from .generalized_rcnn import check_degenerate_boxes, check_training_targets, original_sizes
from .retinanet import _flatten_levels
from .transform import GeneralizedRCNNTransform


@ember.jit.script
class BoxLinearCoder:
    """Boxes as the distances (left, top, right, bottom) from a reference box's centre, optionally divided
    by the reference box's width/height."""

    def __init__(self, normalize_by_size: bool = True):
        self.normalize_by_size = normalize_by_size

    def _size(self, boxes: Tensor) -> Tensor:
        w, h = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
        return ember.stack((w, h, w, h), dim=-1)

    def encode(self, reference_boxes: Tensor, proposals: Tensor) -> Tensor:
        ctr_x = 0.5 * (reference_boxes[..., 0] + reference_boxes[..., 2])
        ctr_y = 0.5 * (reference_boxes[..., 1] + reference_boxes[..., 3])
        targets = ember.stack((ctr_x - proposals[..., 0], ctr_y - proposals[..., 1], proposals[..., 2] - ctr_x,
                               proposals[..., 3] - ctr_y), dim=-1)
        return targets / self._size(reference_boxes) if self.normalize_by_size else targets

    def decode(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        boxes = boxes.to(dtype=rel_codes.dtype)
        ctr_x = 0.5 * (boxes[..., 0] + boxes[..., 2])
        ctr_y = 0.5 * (boxes[..., 1] + boxes[..., 3])
        if self.normalize_by_size:
            rel_codes = rel_codes * self._size(boxes)
        return ember.stack((ctr_x - rel_codes[..., 0], ctr_y - rel_codes[..., 1], ctr_x + rel_codes[..., 2],
                            ctr_y + rel_codes[..., 3]), dim=-1)


def _gn_tower(in_channels, num_convs, norm_layer):
    layers = []
    for _ in range(num_convs):
        layers += [nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1), norm_layer(in_channels),
                   nn.ReLU()]
    conv = nn.Sequential(*layers)
    for layer in conv.children():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.constant_(layer.bias, 0)
    return conv


class FCOSClassificationHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4, prior_probability=0.01, norm_layer=None):
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.conv = _gn_tower(in_channels, num_convs, norm_layer or partial(nn.GroupNorm, 32))
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability))

    def forward(self, x: List[Tensor]) -> Tensor:
        return _flatten_levels([self.cls_logits(self.conv(features)) for features in x], self.num_classes)


class FCOSRegressionHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_convs=4, norm_layer=None):
        super().__init__()
        self.conv = _gn_tower(in_channels, num_convs, norm_layer or partial(nn.GroupNorm, 32))
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)
        self.bbox_ctrness = nn.Conv2d(in_channels, num_anchors * 1, kernel_size=3, stride=1, padding=1)
        for layer in (self.bbox_reg, self.bbox_ctrness):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, x: List[Tensor]) -> Tuple[Tensor, Tensor]:
        feats = [self.conv(features) for features in x]
        regression = _flatten_levels([F.relu(self.bbox_reg(f)) for f in feats], 4)
        return regression, _flatten_levels([self.bbox_ctrness(f) for f in feats], 1)


class FCOSHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4):
        super().__init__()
        self.box_coder = BoxLinearCoder(normalize_by_size=True)
        self.classification_head = FCOSClassificationHead(in_channels, num_anchors, num_classes, num_convs)
        self.regression_head = FCOSRegressionHead(in_channels, num_anchors, num_convs)

    def compute_loss(self, targets: List[Dict[str, Tensor]], head_outputs: Dict[str, Tensor], anchors: List[Tensor],
                     matched_idxs: List[Tensor]) -> Dict[str, Tensor]:
        """Focal loss over all points; GIoU and centerness losses over the foreground ones; each divided by
        the number of foreground points."""
        cls_logits = head_outputs["cls_logits"]
        bbox_regression = head_outputs["bbox_regression"]
        bbox_ctrness = head_outputs["bbox_ctrness"]
        all_classes: List[Tensor] = []
        all_boxes: List[Tensor] = []
        for targets_per_image, matched in zip(targets, matched_idxs):
            if len(targets_per_image["labels"]) == 0:
                classes = targets_per_image["labels"].new_zeros((len(matched),))
                boxes = targets_per_image["boxes"].new_zeros((len(matched), 4))
            else:
                classes = targets_per_image["labels"][matched.clamp(min=0)]
                boxes = targets_per_image["boxes"][matched.clamp(min=0)]
            classes[matched < 0] = -1  # background
            all_classes.append(classes)
            all_boxes.append(boxes)
        gt_boxes, gt_classes, anchors_all = ember.stack(all_boxes), ember.stack(all_classes), ember.stack(anchors)
        foreground = gt_classes >= 0
        num_foreground = int(foreground.sum())
        gt_classes_targets = ember.zeros_like(cls_logits)
        fg = ember.where(foreground)
        fg_img, fg_pt = fg[0], fg[1]
        gt_classes_targets[fg_img, fg_pt, gt_classes[fg_img, fg_pt]] = 1.0
        loss_cls = sigmoid_focal_loss(cls_logits, gt_classes_targets, reduction="sum")
        pred_boxes = self.box_coder.decode(bbox_regression, anchors_all)
        loss_bbox_reg = generalized_box_iou_loss(pred_boxes[foreground], gt_boxes[foreground], reduction="sum")
        bbox_reg_targets = self.box_coder.encode(anchors_all, gt_boxes)
        if len(bbox_reg_targets) == 0:
            gt_ctrness_targets = bbox_reg_targets.new_zeros(bbox_reg_targets.size()[:-1])
        else:
            left_right = bbox_reg_targets[:, :, 0::2]  # (left, right): columns 0 and 2
            top_bottom = bbox_reg_targets[:, :, 1::2]
            gt_ctrness_targets = ember.sqrt((left_right.min(dim=-1)[0] / left_right.max(dim=-1)[0])
                                            * (top_bottom.min(dim=-1)[0] / top_bottom.max(dim=-1)[0]))
        pred_centerness = bbox_ctrness.squeeze(dim=2)
        loss_bbox_ctrness = F.binary_cross_entropy_with_logits(pred_centerness[foreground],
                                                               gt_ctrness_targets[foreground], reduction="sum")
        n = max(1, num_foreground)
        return {"classification": loss_cls / n, "bbox_regression": loss_bbox_reg / n,
                "bbox_ctrness": loss_bbox_ctrness / n}

    def forward(self, x: List[Tensor]) -> Dict[str, Tensor]:
        cls_logits = self.classification_head(x)
        bbox_regression, bbox_ctrness = self.regression_head(x)
        return {"cls_logits": cls_logits, "bbox_regression": bbox_regression, "bbox_ctrness": bbox_ctrness}


class FCOS(nn.Module):
    def __init__(self, backbone, num_classes, min_size=800, max_size=1333, image_mean=None, image_std=None,
                 anchor_generator=None, head=None, center_sampling_radius=1.5, score_thresh=0.2, nms_thresh=0.6,
                 detections_per_img=100, topk_candidates=1000, **kwargs):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError("backbone should contain an attribute out_channels specifying the number of output "
                             "channels (assumed to be the same for all the levels)")
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(f"anchor_generator should be of type AnchorGenerator or None, instead  got "
                            f"{type(anchor_generator)}")
        if anchor_generator is None:
            anchor_sizes = ((8,), (16,), (32,), (64,), (128,))  # one point per location: its stride
            anchor_generator = AnchorGenerator(anchor_sizes, ((1.0,),) * len(anchor_sizes))
        self.anchor_generator = anchor_generator
        if self.anchor_generator.num_anchors_per_location()[0] != 1:
            raise ValueError(f"anchor_generator.num_anchors_per_location()[0] should be 1 instead of "
                             f"{anchor_generator.num_anchors_per_location()[0]}")
        self.head = head if head is not None else FCOSHead(backbone.out_channels, 1, num_classes)
        self.box_coder = BoxLinearCoder(normalize_by_size=True)
        image_mean = image_mean if image_mean is not None else [0.485, 0.456, 0.406]
        image_std = image_std if image_std is not None else [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        self.center_sampling_radius = center_sampling_radius
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates

    @ember.jit.unused
    def eager_outputs(self, losses: Dict[str, Tensor],
                      detections: List[Dict[str, Tensor]]) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        return losses if self.training else detections

    def match_points(self, anchors_per_image: Tensor, gt_boxes: Tensor, num_anchors_per_level: List[int]) -> Tensor:
        """Each point's ground truth: its centre within center_sampling_radius strides of the box centre and
        inside the box, its largest side distance in the level's range (4-8 strides); the smallest such box."""
        gt_centers = (gt_boxes[:, :2] + gt_boxes[:, 2:]) / 2
        anchor_centers = (anchors_per_image[:, :2] + anchors_per_image[:, 2:]) / 2
        anchor_sizes = anchors_per_image[:, 2] - anchors_per_image[:, 0]
        match = ((anchor_centers[:, None, :] - gt_centers[None, :, :]).abs().max(dim=2)[0]
                 < self.center_sampling_radius * anchor_sizes[:, None])
        x, y = anchor_centers[:, 0:1], anchor_centers[:, 1:2]
        x0, y0, x1, y1 = gt_boxes[None, :, 0], gt_boxes[None, :, 1], gt_boxes[None, :, 2], gt_boxes[None, :, 3]
        dist = ember.stack([x - x0, y - y0, x1 - x, y1 - y], dim=2)
        match = match & (dist.min(dim=2)[0] > 0)
        lower_bound = anchor_sizes * 4
        lower_bound[:num_anchors_per_level[0]] = 0
        upper_bound = anchor_sizes * 8
        upper_bound[-num_anchors_per_level[-1]:] = float("inf")
        dist = dist.max(dim=2)[0]
        match = match & (dist > lower_bound[:, None]) & (dist < upper_bound[:, None])
        gt_areas = (gt_boxes[:, 2] - gt_boxes[:, 0]) * (gt_boxes[:, 3] - gt_boxes[:, 1])
        scored = match.to(ember.float32) * (1e8 - gt_areas[None, :])
        best_values, matched_idx = scored.max(dim=1)
        matched_idx[best_values < 1e-5] = -1
        return matched_idx

    def compute_loss(self, targets: List[Dict[str, Tensor]], head_outputs: Dict[str, Tensor], anchors: List[Tensor],
                     num_anchors_per_level: List[int]) -> Dict[str, Tensor]:
        matched_idxs: List[Tensor] = []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            if targets_per_image["boxes"].numel() == 0:
                matched_idxs.append(ember.full((anchors_per_image.size(0),), -1, dtype=ember.int64,
                                               device=anchors_per_image.device))
            else:
                matched_idxs.append(self.match_points(anchors_per_image, targets_per_image["boxes"],
                                                      num_anchors_per_level))
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(self, head_outputs: Dict[str, List[Tensor]], anchors: List[List[Tensor]],
                               image_shapes: List[Tuple[int, int]]) -> List[Dict[str, Tensor]]:
        detections: List[Dict[str, Tensor]] = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes: List[Tensor] = []
            image_scores: List[Tensor] = []
            image_labels: List[Tensor] = []
            for regression_level, logits_level, ctrness_level, anchors_level in zip(
                    [t[index] for t in head_outputs["bbox_regression"]], [t[index] for t in head_outputs["cls_logits"]],
                    [t[index] for t in head_outputs["bbox_ctrness"]], anchors[index]):
                num_classes = logits_level.shape[-1]
                scores = ember.sqrt(ember.sigmoid(logits_level) * ember.sigmoid(ctrness_level)).flatten()
                keep_idxs = scores > self.score_thresh
                scores = scores[keep_idxs]
                topk_idxs = ember.where(keep_idxs)[0]
                scores, idxs = scores.topk(det_utils._topk_min(topk_idxs, self.topk_candidates, 0))
                topk_idxs = topk_idxs[idxs]
                anchor_idxs = ember.div(topk_idxs, num_classes, rounding_mode="floor")
                boxes = self.box_coder.decode(regression_level[anchor_idxs], anchors_level[anchor_idxs])
                image_boxes.append(box_ops.clip_boxes_to_image(boxes, image_shape))
                image_scores.append(scores)
                image_labels.append(topk_idxs % num_classes)
            all_boxes, all_scores = ember.cat(image_boxes, dim=0), ember.cat(image_scores, dim=0)
            all_labels = ember.cat(image_labels, dim=0)
            keep = box_ops.batched_nms(all_boxes, all_scores, all_labels, self.nms_thresh)
            keep = keep[:self.detections_per_img]
            detections.append({"boxes": all_boxes[keep], "scores": all_scores[keep], "labels": all_labels[keep]})
        return detections

    def forward(self, images: List[Tensor], targets: Optional[List[Dict[str, Tensor]]] = None
                ) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        """The losses ({classification, bbox_regression, bbox_ctrness}) in training, List[Dict] in eval;
        scripted, the tuple (losses, detections)."""
        if self.training:
            check_training_targets(targets)
        original_image_sizes = original_sizes(images)
        images, targets = self.transform(images, targets)
        check_degenerate_boxes(targets)
        feature_maps = self.backbone(images.tensors)
        if isinstance(feature_maps, ember.Tensor):
            feature_maps = {"0": feature_maps}
        features = list(feature_maps.values())
        head_outputs = self.head(features)
        anchors = self.anchor_generator(images, features)
        num_anchors_per_level = [x.size(2) * x.size(3) for x in features]
        losses: Dict[str, Tensor] = {}
        detections: List[Dict[str, Tensor]] = []
        if self.training:
            if targets is None:
                raise ValueError("targets should not be none when in training mode")
            losses = self.compute_loss(targets, head_outputs, anchors, num_anchors_per_level)
        else:
            split_head_outputs: Dict[str, List[Tensor]] = {}
            for k in head_outputs:
                split_head_outputs[k] = list(head_outputs[k].split(num_anchors_per_level, dim=1))
            split_anchors = [list(a.split(num_anchors_per_level)) for a in anchors]
            detections = self.postprocess_detections(split_head_outputs, split_anchors, images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        if ember.jit.is_scripting():
            return losses, detections
        return self.eager_outputs(losses, detections)


@register_model(weights=W.FCOS_ResNet50_FPN_Weights)
def fcos_resnet50_fpn(*, weights=None, progress=True, num_classes=None, weights_backbone=ResNet50_Weights.IMAGENET1K_V1,
                      trainable_backbone_layers=None, **kwargs):
    """FCOS with a ResNet-50-FPN backbone (P3-P7), torchvision's builder."""
    weights, weights_backbone, num_classes = resolve_weights(weights, W.FCOS_ResNet50_FPN_Weights, weights_backbone,
                                                             ResNet50_Weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers, returned_layers=[2, 3, 4],
                                     extra_blocks=LastLevelP6P7(256, 256))
    return load_detector_weights(FCOS(backbone, num_classes, **kwargs), weights, progress)
