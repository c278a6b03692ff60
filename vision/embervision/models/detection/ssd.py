"""SSD (Liu et al.): class scores and box deltas from 3x3 convs on several feature maps against default
boxes, cross-entropy with 3:1 hard negative mining; torchvision's ssd300_vgg16 (VGG-16 with L2-normalized
conv4_3, atrous fc6/fc7 and four extra blocks)."""

import warnings
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor, nn
from ember.nn import functional as F

from ...ops import boxes as box_ops
from .._api import register_model
from .._weights_classic import VGG16_Weights
from ..classic import vgg16
from . import _utils as det_utils
from . import _weights as W
from .anchor_boxes_ssd import DefaultBoxGenerator
from .backbone_utils import _validate_trainable_layers
from .faster_rcnn import _ovewrite_value_param, load_detector_weights
from .generalized_rcnn import check_degenerate_boxes, check_training_targets, original_sizes
from .retinanet import _flatten_levels
from .transform import GeneralizedRCNNTransform


def _xavier_init(conv):
    for layer in conv.modules():
        if isinstance(layer, nn.Conv2d):
            nn.init.xavier_uniform_(layer.weight)
            if layer.bias is not None:
                nn.init.constant_(layer.bias, 0.0)


class SSDScoringHead(nn.Module):
    def __init__(self, module_list, num_columns):
        super().__init__()
        self.module_list = module_list
        self.num_columns = num_columns

    def _get_result_from_module_list(self, x: Tensor, idx: int) -> Tensor:
        """self.module_list[idx](x); a loop, as scripted code indexes a ModuleList only by constants."""
        out = x
        for i, module in enumerate(self.module_list):
            if i == idx:
                out = module(x)
        return out

    def forward(self, x: List[Tensor]) -> Tensor:
        return _flatten_levels([self._get_result_from_module_list(features, i) for i, features in enumerate(x)],
                               self.num_columns)


class SSDClassificationHead(SSDScoringHead):
    def __init__(self, in_channels, num_anchors, num_classes):
        cls_logits = nn.ModuleList([nn.Conv2d(c, num_classes * a, kernel_size=3, padding=1)
                                    for c, a in zip(in_channels, num_anchors)])
        _xavier_init(cls_logits)
        super().__init__(cls_logits, num_classes)


class SSDRegressionHead(SSDScoringHead):
    def __init__(self, in_channels, num_anchors):
        bbox_reg = nn.ModuleList([nn.Conv2d(c, 4 * a, kernel_size=3, padding=1)
                                  for c, a in zip(in_channels, num_anchors)])
        _xavier_init(bbox_reg)
        super().__init__(bbox_reg, 4)


class SSDHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_classes):
        super().__init__()
        self.classification_head = SSDClassificationHead(in_channels, num_anchors, num_classes)
        self.regression_head = SSDRegressionHead(in_channels, num_anchors)

    def forward(self, x: List[Tensor]) -> Dict[str, Tensor]:
        return {"bbox_regression": self.regression_head(x), "cls_logits": self.classification_head(x)}


def retrieve_out_channels(model, size):
    """Channels of each feature map the backbone returns, found by running it on a zero image of size (w, h)."""
    in_training = model.training
    model.eval()
    with ember.no_grad():
        features = model(ember.zeros((1, 3, size[1], size[0])))
    if isinstance(features, ember.Tensor):
        features = OrderedDict([("0", features)])
    if in_training:
        model.train()
    return [x.size(1) for x in features.values()]


class SSD(nn.Module):
    def __init__(self, backbone, anchor_generator, size, num_classes, image_mean=None, image_std=None, head=None,
                 score_thresh=0.01, nms_thresh=0.45, detections_per_img=200, iou_thresh=0.5, topk_candidates=400,
                 positive_fraction=0.25, **kwargs):
        super().__init__()
        self.backbone = backbone
        self.anchor_generator = anchor_generator
        self.box_coder = det_utils.BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        if head is None:
            out_channels = (backbone.out_channels if hasattr(backbone, "out_channels")
                            else retrieve_out_channels(backbone, size))
            if len(out_channels) != len(anchor_generator.aspect_ratios):
                raise ValueError(f"The length of the output channels from the backbone ({len(out_channels)}) do not "
                                 "match the length of the anchor generator aspect ratios "
                                 f"({len(anchor_generator.aspect_ratios)})")
            head = SSDHead(out_channels, anchor_generator.num_anchors_per_location(), num_classes)
        self.head = head
        self.proposal_matcher = det_utils.SSDMatcher(iou_thresh)
        image_mean = image_mean if image_mean is not None else [0.485, 0.456, 0.406]
        image_std = image_std if image_std is not None else [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(min(size), max(size), image_mean, image_std, size_divisible=1,
                                                  fixed_size=size, **kwargs)
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self.neg_to_pos_ratio = (1.0 - positive_fraction) / positive_fraction

    @ember.jit.unused
    def eager_outputs(self, losses: Dict[str, Tensor],
                      detections: List[Dict[str, Tensor]]) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        return losses if self.training else detections

    def compute_loss(self, targets: List[Dict[str, Tensor]], head_outputs: Dict[str, Tensor], anchors: List[Tensor],
                     matched_idxs: List[Tensor]) -> Dict[str, Tensor]:
        """Smooth-L1 over the matched boxes; cross-entropy over them plus the hardest negatives (at most
        neg_to_pos_ratio per positive); both divided by the number of matched boxes."""
        num_foreground = 0
        bbox_loss: List[Tensor] = []
        cls_targets: List[Tensor] = []
        for targets_per_image, regression, logits, anchors_per_image, matched in zip(
                targets, head_outputs["bbox_regression"], head_outputs["cls_logits"], anchors, matched_idxs):
            fg = ember.where(matched >= 0)[0]
            fg_matched = matched[fg]
            num_foreground += fg_matched.numel()
            target_regression = self.box_coder.encode_single(targets_per_image["boxes"][fg_matched],
                                                             anchors_per_image[fg, :])
            bbox_loss.append(F.smooth_l1_loss(regression[fg, :], target_regression, reduction="sum"))
            gt_classes = ember.zeros((logits.size(0),), dtype=targets_per_image["labels"].dtype)
            gt_classes[fg] = targets_per_image["labels"][fg_matched]
            cls_targets.append(gt_classes)
        bbox_losses, all_cls_targets = ember.stack(bbox_loss), ember.stack(cls_targets)
        cls_logits = head_outputs["cls_logits"]
        num_classes = cls_logits.size(-1)
        cls_loss = F.cross_entropy(cls_logits.view(-1, num_classes), all_cls_targets.view(-1),
                                   reduction="none").view(all_cls_targets.size())
        foreground = all_cls_targets > 0
        num_negative = self.neg_to_pos_ratio * foreground.sum(1, keepdim=True)
        negative_loss = cls_loss.clone()
        negative_loss[foreground] = -float("inf")  # positives sort last, never counted as negatives
        _, idx = negative_loss.sort(1, descending=True)
        background = idx.sort(1)[1] < num_negative
        n = max(1, num_foreground)
        return {"bbox_regression": bbox_losses.sum() / n,
                "classification": (cls_loss[foreground].sum() + cls_loss[background].sum()) / n}

    def postprocess_detections(self, head_outputs: Dict[str, Tensor], image_anchors: List[Tensor],
                               image_shapes: List[Tuple[int, int]]) -> List[Dict[str, Tensor]]:
        pred_scores = F.softmax(head_outputs["cls_logits"], dim=-1)
        num_classes = pred_scores.size(-1)
        detections: List[Dict[str, Tensor]] = []
        for boxes, scores, anchors, image_shape in zip(head_outputs["bbox_regression"], pred_scores, image_anchors,
                                                       image_shapes):
            boxes = box_ops.clip_boxes_to_image(self.box_coder.decode_single(boxes, anchors), image_shape)
            image_boxes: List[Tensor] = []
            image_scores: List[Tensor] = []
            image_labels: List[Tensor] = []
            for label in range(1, num_classes):
                score = scores[:, label]
                keep_idxs = score > self.score_thresh
                score, box = score[keep_idxs], boxes[keep_idxs]
                score, idxs = score.topk(det_utils._topk_min(score, self.topk_candidates, 0))
                image_boxes.append(box[idxs])
                image_scores.append(score)
                image_labels.append(ember.full_like(score, fill_value=label, dtype=ember.int64))
            all_boxes, all_scores = ember.cat(image_boxes, dim=0), ember.cat(image_scores, dim=0)
            all_labels = ember.cat(image_labels, dim=0)
            keep = box_ops.batched_nms(all_boxes, all_scores, all_labels, self.nms_thresh)
            keep = keep[:self.detections_per_img]
            detections.append({"boxes": all_boxes[keep], "scores": all_scores[keep], "labels": all_labels[keep]})
        return detections

    def forward(self, images: List[Tensor], targets: Optional[List[Dict[str, Tensor]]] = None
                ) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        """The losses ({bbox_regression, classification}) in training, List[Dict] with boxes, scores, labels per
        image in eval; scripted, the tuple (losses, detections) as torchvision's scripted SSD returns."""
        if self.training:
            check_training_targets(targets)
        original_image_sizes = original_sizes(images)
        images, targets = self.transform(images, targets)
        check_degenerate_boxes(targets)
        feature_maps = self.backbone(images.tensors)
        if isinstance(feature_maps, ember.Tensor):
            feature_maps = OrderedDict([("0", feature_maps)])
        features = list(feature_maps.values())
        head_outputs = self.head(features)
        anchors = self.anchor_generator(images, features)
        losses: Dict[str, Tensor] = {}
        detections: List[Dict[str, Tensor]] = []
        if self.training:
            if targets is None:
                raise ValueError("targets should not be none when in training mode")
            matched_idxs: List[Tensor] = []
            for anchors_per_image, targets_per_image in zip(anchors, targets):
                if targets_per_image["boxes"].numel() == 0:
                    matched_idxs.append(ember.full((anchors_per_image.size(0),), -1, dtype=ember.int64))
                    continue
                iou = box_ops.box_iou(targets_per_image["boxes"], anchors_per_image)
                matched_idxs.append(self.proposal_matcher(iou))
            losses = self.compute_loss(targets, head_outputs, anchors, matched_idxs)
        else:
            detections = self.postprocess_detections(head_outputs, anchors, images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        if ember.jit.is_scripting():
            return losses, detections
        return self.eager_outputs(losses, detections)


class SSDFeatureExtractorVGG(nn.Module):
    """VGG-16's features to conv4_3 (L2-normalized, rescaled by a learned per-channel weight starting at 20),
    then conv5 + atrous fc6/fc7, then the extra blocks: six maps for SSD300 (seven with highres, SSD512)."""

    def __init__(self, backbone, highres):
        super().__init__()
        _, _, maxpool3_pos, maxpool4_pos, _ = (i for i, layer in enumerate(backbone) if isinstance(layer, nn.MaxPool2d))
        backbone[maxpool3_pos].ceil_mode = True  # 75 -> 38, as the paper's map sizes
        self.scale_weight = nn.Parameter(ember.ones(512) * 20)
        self.features = nn.Sequential(*backbone[:maxpool4_pos])

        def block(cin, mid, cout, **conv):
            return nn.Sequential(nn.Conv2d(cin, mid, kernel_size=1), nn.ReLU(inplace=True),
                                 nn.Conv2d(mid, cout, **conv), nn.ReLU(inplace=True))

        extra = nn.ModuleList([block(1024, 256, 512, kernel_size=3, padding=1, stride=2),
                               block(512, 128, 256, kernel_size=3, padding=1, stride=2),
                               block(256, 128, 256, kernel_size=3), block(256, 128, 256, kernel_size=3)])
        if highres:
            extra.append(block(256, 128, 256, kernel_size=4))
        _xavier_init(extra)
        fc = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=False),
                           nn.Conv2d(in_channels=512, out_channels=1024, kernel_size=3, padding=6, dilation=6),
                           nn.ReLU(inplace=True), nn.Conv2d(in_channels=1024, out_channels=1024, kernel_size=1),
                           nn.ReLU(inplace=True))
        _xavier_init(fc)
        extra.insert(0, nn.Sequential(*backbone[maxpool4_pos:-1], fc))
        self.extra = extra

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        x = self.features(x)
        output = [self.scale_weight.view(1, -1, 1, 1) * F.normalize(x)]
        for block in self.extra:
            x = block(x)
            output.append(x)
        maps: Dict[str, Tensor] = OrderedDict()
        for i, v in enumerate(output):
            maps[str(i)] = v
        return maps


def _vgg_extractor(backbone, highres, trainable_layers):
    features = backbone.features
    stage_indices = [0] + [i for i, b in enumerate(features) if isinstance(b, nn.MaxPool2d)][:-1]
    num_stages = len(stage_indices)
    if not 0 <= trainable_layers <= num_stages:
        raise AssertionError(f"trainable_layers should be in the range [0, {num_stages}]. Instead got "
                             f"{trainable_layers}")
    freeze_before = len(features) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    for b in features[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    return SSDFeatureExtractorVGG(features, highres)


@register_model(weights=W.SSD300_VGG16_Weights)
def ssd300_vgg16(*, weights=None, progress=True, num_classes=None, weights_backbone=VGG16_Weights.IMAGENET1K_FEATURES,
                 trainable_backbone_layers=None, **kwargs):
    """SSD300 with a VGG-16 backbone (torchvision's builder); inputs are resized to 300x300."""
    weights = W.SSD300_VGG16_Weights.verify(weights)
    weights_backbone = VGG16_Weights.verify(weights_backbone)
    if "size" in kwargs:
        warnings.warn("The size of the model is already fixed; ignoring the parameter.")
        kwargs.pop("size")
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
    elif num_classes is None:
        num_classes = 91
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 4)
    backbone = _vgg_extractor(vgg16(weights=weights_backbone, progress=progress), False, trainable_backbone_layers)
    anchor_generator = DefaultBoxGenerator([[2], [2, 3], [2, 3], [2, 3], [2], [2]],
                                           scales=[0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05],
                                           steps=[8, 16, 32, 64, 100, 300])
    # The backbone's checkpoint takes [0, 255] inputs minus the mean: std 1/255 undoes the [0, 1] scaling.
    defaults = {"image_mean": [0.48235, 0.45882, 0.40784], "image_std": [1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0]}
    model = SSD(backbone, anchor_generator, (300, 300), num_classes, **{**defaults, **kwargs})
    return load_detector_weights(model, weights, progress)
