"""RetinaNet (Lin et al., focal loss): a ResNet-FPN backbone with P3-P7, a classification head trained with
sigmoid focal loss and a box regression head over 9 anchors per location; torchvision's retinanet_resnet50_fpn."""

import math
from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor, nn

from ...ops import boxes as box_ops
from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import LastLevelP6P7
from ...ops.focal_loss import sigmoid_focal_loss
from .._api import register_model
from .._weights_resnet import ResNet50_Weights
from ..resnet import resnet50
from . import _utils as det_utils
from . import _weights as W
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import load_detector_weights, resolve_weights
from .generalized_rcnn import check_degenerate_boxes, check_training_targets, original_sizes
from .transform import GeneralizedRCNNTransform


def _sum(values: List[Tensor]) -> Tensor:
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


def _v1_to_v2_weights(state_dict, prefix):
    # Version 1 heads were Sequential(conv, relu) * 4: conv.{2i} is now conv.{i}.0.
    for i in range(4):
        for kind in ("weight", "bias"):
            old_key, new_key = f"{prefix}conv.{2 * i}.{kind}", f"{prefix}conv.{i}.0.{kind}"
            if old_key in state_dict:
                state_dict[new_key] = state_dict.pop(old_key)


def _head_tower(in_channels, norm_layer):
    conv = nn.Sequential(*[misc_nn_ops.Conv2dNormActivation(in_channels, in_channels, norm_layer=norm_layer)
                           for _ in range(4)])
    for layer in conv.modules():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, std=0.01)
            if layer.bias is not None:
                nn.init.constant_(layer.bias, 0)
    return conv


def _flatten_levels(outputs: List[Tensor], per_anchor: int) -> Tensor:
    """Per-level [N, A*K, H, W] -> [N, sum(H*W*A), K]."""
    flat: List[Tensor] = []
    for out in outputs:
        n, _, h, w = out.shape
        flat.append(out.view(n, -1, per_anchor, h, w).permute(0, 3, 4, 1, 2).reshape(n, -1, per_anchor))
    return ember.cat(flat, dim=1)


class _VersionedHead(nn.Module):
    _version = 2

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None) if local_metadata else None
        if version is None or version < 2:
            _v1_to_v2_weights(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class RetinaNetClassificationHead(_VersionedHead):
    def __init__(self, in_channels, num_anchors, num_classes, prior_probability=0.01, norm_layer=None):
        super().__init__()
        self.conv = _head_tower(in_channels, norm_layer)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        # Every anchor starts as background with probability 1 - prior, so the focal loss starts stable.
        nn.init.constant_(self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability))
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.BETWEEN_THRESHOLDS = det_utils.Matcher.BETWEEN_THRESHOLDS

    def compute_loss(self, targets: List[Dict[str, Tensor]], head_outputs: Dict[str, Tensor],
                     matched_idxs: List[Tensor]) -> Tensor:
        losses: List[Tensor] = []
        for targets_per_image, cls_logits_per_image, matched_idxs_per_image in zip(
                targets, head_outputs["cls_logits"], matched_idxs):
            foreground = matched_idxs_per_image >= 0
            num_foreground = int(foreground.sum())
            gt_classes_target = ember.zeros_like(cls_logits_per_image)
            fg_rows = ember.where(foreground)[0]
            gt_classes_target[fg_rows, targets_per_image["labels"][matched_idxs_per_image[fg_rows]]] = 1.0
            valid = matched_idxs_per_image != self.BETWEEN_THRESHOLDS
            losses.append(sigmoid_focal_loss(cls_logits_per_image[valid], gt_classes_target[valid], reduction="sum")
                          / max(1, num_foreground))
        return _sum(losses) / len(targets)

    def forward(self, x: List[Tensor]) -> Tensor:
        return _flatten_levels([self.cls_logits(self.conv(features)) for features in x], self.num_classes)


class RetinaNetRegressionHead(_VersionedHead):
    def __init__(self, in_channels, num_anchors, norm_layer=None):
        super().__init__()
        self.conv = _head_tower(in_channels, norm_layer)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.bbox_reg.weight, std=0.01)
        nn.init.zeros_(self.bbox_reg.bias)
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self._loss_type = "l1"

    def compute_loss(self, targets: List[Dict[str, Tensor]], head_outputs: Dict[str, Tensor], anchors: List[Tensor],
                     matched_idxs: List[Tensor]) -> Tensor:
        losses: List[Tensor] = []
        for targets_per_image, bbox_regression_per_image, anchors_per_image, matched_idxs_per_image in zip(
                targets, head_outputs["bbox_regression"], anchors, matched_idxs):
            foreground_idxs = ember.where(matched_idxs_per_image >= 0)[0]
            num_foreground = foreground_idxs.numel()
            matched_gt_boxes = targets_per_image["boxes"][matched_idxs_per_image[foreground_idxs]]
            losses.append(det_utils._box_loss(self._loss_type, self.box_coder, anchors_per_image[foreground_idxs, :],
                                              matched_gt_boxes, bbox_regression_per_image[foreground_idxs, :])
                          / max(1, num_foreground))
        return _sum(losses) / max(1, len(targets))

    def forward(self, x: List[Tensor]) -> Tensor:
        return _flatten_levels([self.bbox_reg(self.conv(features)) for features in x], 4)


class RetinaNetHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_classes, norm_layer=None):
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(in_channels, num_anchors, num_classes,
                                                               norm_layer=norm_layer)
        self.regression_head = RetinaNetRegressionHead(in_channels, num_anchors, norm_layer=norm_layer)

    def compute_loss(self, targets: List[Dict[str, Tensor]], head_outputs: Dict[str, Tensor], anchors: List[Tensor],
                     matched_idxs: List[Tensor]) -> Dict[str, Tensor]:
        return {"classification": self.classification_head.compute_loss(targets, head_outputs, matched_idxs),
                "bbox_regression": self.regression_head.compute_loss(targets, head_outputs, anchors, matched_idxs)}

    def forward(self, x: List[Tensor]) -> Dict[str, Tensor]:
        return {"cls_logits": self.classification_head(x), "bbox_regression": self.regression_head(x)}


def _default_anchorgen():
    anchor_sizes = tuple((x, int(x * 2 ** (1.0 / 3)), int(x * 2 ** (2.0 / 3))) for x in [32, 64, 128, 256, 512])
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    return AnchorGenerator(anchor_sizes, aspect_ratios)


class RetinaNet(nn.Module):
    def __init__(self, backbone, num_classes, min_size=800, max_size=1333, image_mean=None, image_std=None,
                 anchor_generator=None, head=None, proposal_matcher=None, score_thresh=0.05, nms_thresh=0.5,
                 detections_per_img=300, fg_iou_thresh=0.5, bg_iou_thresh=0.4, topk_candidates=1000, **kwargs):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError("backbone should contain an attribute out_channels specifying the number of output "
                             "channels (assumed to be the same for all the levels)")
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(f"anchor_generator should be of type AnchorGenerator or None instead of "
                            f"{type(anchor_generator)}")
        self.anchor_generator = anchor_generator if anchor_generator is not None else _default_anchorgen()
        self.head = head if head is not None else RetinaNetHead(
            backbone.out_channels, self.anchor_generator.num_anchors_per_location()[0], num_classes)
        self.proposal_matcher = proposal_matcher if proposal_matcher is not None else det_utils.Matcher(
            fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True)
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        image_mean = image_mean if image_mean is not None else [0.485, 0.456, 0.406]
        image_std = image_std if image_std is not None else [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self._has_warned = False

    @ember.jit.unused
    def eager_outputs(self, losses: Dict[str, Tensor],
                      detections: List[Dict[str, Tensor]]) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        return losses if self.training else detections

    def compute_loss(self, targets: List[Dict[str, Tensor]], head_outputs: Dict[str, Tensor], anchors: List[Tensor]
                     ) -> Dict[str, Tensor]:
        matched_idxs: List[Tensor] = []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            if targets_per_image["boxes"].numel() == 0:
                matched_idxs.append(ember.full((anchors_per_image.size(0),), -1, dtype=ember.int64,
                                               device=anchors_per_image.device))
                continue
            match_quality_matrix = box_ops.box_iou(targets_per_image["boxes"], anchors_per_image)
            matched_idxs.append(self.proposal_matcher(match_quality_matrix))
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(self, head_outputs: Dict[str, List[Tensor]], anchors: List[List[Tensor]],
                               image_shapes: List[Tuple[int, int]]) -> List[Dict[str, Tensor]]:
        """Per image and level: scores over score_thresh, the topk_candidates best decoded; then nms per
        class over all levels and the detections_per_img best."""
        class_logits, box_regression = head_outputs["cls_logits"], head_outputs["bbox_regression"]
        detections: List[Dict[str, Tensor]] = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes: List[Tensor] = []
            image_scores: List[Tensor] = []
            image_labels: List[Tensor] = []
            for regression_level, logits_level, anchors_level in zip(
                    [br[index] for br in box_regression], [cl[index] for cl in class_logits], anchors[index]):
                num_classes = logits_level.shape[-1]
                scores = ember.sigmoid(logits_level).flatten()
                keep_idxs = scores > self.score_thresh
                scores = scores[keep_idxs]
                topk_idxs = ember.where(keep_idxs)[0]
                num_topk = det_utils._topk_min(topk_idxs, self.topk_candidates, 0)
                scores, idxs = scores.topk(num_topk)
                topk_idxs = topk_idxs[idxs]
                anchor_idxs = ember.div(topk_idxs, num_classes, rounding_mode="floor")
                labels = topk_idxs % num_classes
                boxes = self.box_coder.decode_single(regression_level[anchor_idxs], anchors_level[anchor_idxs])
                image_boxes.append(box_ops.clip_boxes_to_image(boxes, image_shape))
                image_scores.append(scores)
                image_labels.append(labels)
            all_boxes = ember.cat(image_boxes, dim=0)
            all_scores = ember.cat(image_scores, dim=0)
            all_labels = ember.cat(image_labels, dim=0)
            keep = box_ops.batched_nms(all_boxes, all_scores, all_labels, self.nms_thresh)
            keep = keep[:self.detections_per_img]
            detections.append({"boxes": all_boxes[keep], "scores": all_scores[keep], "labels": all_labels[keep]})
        return detections

    def forward(self, images: List[Tensor], targets: Optional[List[Dict[str, Tensor]]] = None
                ) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        """As GeneralizedRCNN: the losses ({classification, bbox_regression}) in training, List[Dict] with
        boxes, scores, labels per image in eval; scripted, the tuple (losses, detections)."""
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
        losses: Dict[str, Tensor] = {}
        detections: List[Dict[str, Tensor]] = []
        if self.training:
            if targets is None:
                raise ValueError("targets should not be none when in training mode")
            losses = self.compute_loss(targets, head_outputs, anchors)
        else:
            num_anchors_per_level = [x.size(2) * x.size(3) for x in features]
            hw = 0
            for v in num_anchors_per_level:
                hw += v
            a = head_outputs["cls_logits"].size(1) // hw
            num_anchors_per_level = [n * a for n in num_anchors_per_level]
            split_head_outputs: Dict[str, List[Tensor]] = {}
            for k in head_outputs:
                split_head_outputs[k] = list(head_outputs[k].split(num_anchors_per_level, dim=1))
            split_anchors = [list(anchor.split(num_anchors_per_level)) for anchor in anchors]
            detections = self.postprocess_detections(split_head_outputs, split_anchors, images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        if ember.jit.is_scripting():
            return losses, detections
        return self.eager_outputs(losses, detections)


@register_model(weights=W.RetinaNet_ResNet50_FPN_Weights)
def retinanet_resnet50_fpn(*, weights=None, progress=True, num_classes=None,
                           weights_backbone=ResNet50_Weights.IMAGENET1K_V1, trainable_backbone_layers=None, **kwargs):
    """RetinaNet with a ResNet-50-FPN backbone (P3-P7 from layer2-4 plus two stride-2 convs on P5)."""
    weights, weights_backbone, num_classes = resolve_weights(weights, W.RetinaNet_ResNet50_FPN_Weights,
                                                             weights_backbone, ResNet50_Weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers, returned_layers=[2, 3, 4],
                                     extra_blocks=LastLevelP6P7(256, 256))
    model = RetinaNet(backbone, num_classes, **kwargs)
    return load_detector_weights(model, weights, progress,
                                 eps_zero=weights == W.RetinaNet_ResNet50_FPN_Weights.COCO_V1)
