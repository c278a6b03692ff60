"""SSDlite (MobileNetV2/V3 papers): SSD with depthwise-separable prediction heads and extra blocks on a
MobileNetV3-Large (reduced tail without a pretrained backbone); torchvision's ssdlite320_mobilenet_v3_large."""

import warnings
from collections import OrderedDict
from functools import partial
from typing import Dict, List

from ember import Tensor, nn

from ...ops.misc import Conv2dNormActivation
from .._api import register_model
from .._weights_classic import MobileNet_V3_Large_Weights
from ..mobilenet import mobilenet_v3_large
from . import _weights as W
from .anchor_boxes_ssd import DefaultBoxGenerator
from .backbone_utils import _validate_trainable_layers
from .faster_rcnn import _ovewrite_value_param, load_detector_weights
from .ssd import SSD, SSDScoringHead, retrieve_out_channels


def _prediction_block(in_channels, out_channels, kernel_size, norm_layer):
    return nn.Sequential(Conv2dNormActivation(in_channels, in_channels, kernel_size=kernel_size, groups=in_channels,
                                              norm_layer=norm_layer, activation_layer=nn.ReLU6),
                         nn.Conv2d(in_channels, out_channels, 1))


def _extra_block(in_channels, out_channels, norm_layer):
    mid = out_channels // 2
    return nn.Sequential(
        Conv2dNormActivation(in_channels, mid, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6),
        Conv2dNormActivation(mid, mid, kernel_size=3, stride=2, groups=mid, norm_layer=norm_layer,
                             activation_layer=nn.ReLU6),
        Conv2dNormActivation(mid, out_channels, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6))


def _normal_init(conv):
    for layer in conv.modules():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, mean=0.0, std=0.03)
            if layer.bias is not None:
                nn.init.constant_(layer.bias, 0.0)


class SSDLiteClassificationHead(SSDScoringHead):
    def __init__(self, in_channels, num_anchors, num_classes, norm_layer):
        cls_logits = nn.ModuleList([_prediction_block(c, num_classes * a, 3, norm_layer)
                                    for c, a in zip(in_channels, num_anchors)])
        _normal_init(cls_logits)
        super().__init__(cls_logits, num_classes)


class SSDLiteRegressionHead(SSDScoringHead):
    def __init__(self, in_channels, num_anchors, norm_layer):
        bbox_reg = nn.ModuleList([_prediction_block(c, 4 * a, 3, norm_layer) for c, a in zip(in_channels, num_anchors)])
        _normal_init(bbox_reg)
        super().__init__(bbox_reg, 4)


class SSDLiteHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_classes, norm_layer):
        super().__init__()
        self.classification_head = SSDLiteClassificationHead(in_channels, num_anchors, num_classes, norm_layer)
        self.regression_head = SSDLiteRegressionHead(in_channels, num_anchors, norm_layer)

    def forward(self, x: List[Tensor]) -> Dict[str, Tensor]:
        return {"bbox_regression": self.regression_head(x), "cls_logits": self.classification_head(x)}


class SSDLiteFeatureExtractorMobileNet(nn.Module):
    """Two maps from the MobileNet (C4's expansion layer, stride 16, and the last block) and four extra blocks."""

    def __init__(self, backbone, c4_pos, norm_layer, width_mult=1.0, min_depth=16):
        super().__init__()
        if backbone[c4_pos].use_res_connect:
            raise ValueError("backbone[c4_pos].use_res_connect should be False")
        self.features = nn.Sequential(nn.Sequential(*backbone[:c4_pos], backbone[c4_pos].block[0]),
                                      nn.Sequential(backbone[c4_pos].block[1:], *backbone[c4_pos + 1:]))

        def depth(d):
            return max(min_depth, int(d * width_mult))

        extra = nn.ModuleList([_extra_block(backbone[-1].out_channels, depth(512), norm_layer),
                               _extra_block(depth(512), depth(256), norm_layer),
                               _extra_block(depth(256), depth(256), norm_layer),
                               _extra_block(depth(256), depth(128), norm_layer)])
        _normal_init(extra)
        self.extra = extra

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        output: List[Tensor] = []
        for block in self.features:
            x = block(x)
            output.append(x)
        for block in self.extra:
            x = block(x)
            output.append(x)
        maps: Dict[str, Tensor] = OrderedDict()
        for i, v in enumerate(output):
            maps[str(i)] = v
        return maps


def _mobilenet_extractor(backbone, trainable_layers, norm_layer):
    features = backbone.features
    stage_indices = [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]
    num_stages = len(stage_indices)
    if not 0 <= trainable_layers <= num_stages:
        raise ValueError(f"trainable_layers should be in the range [0, {num_stages}], instead got {trainable_layers}")
    freeze_before = len(features) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    for b in features[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    return SSDLiteFeatureExtractorMobileNet(features, stage_indices[-2], norm_layer)


@register_model(weights=W.SSDLite320_MobileNet_V3_Large_Weights)
def ssdlite320_mobilenet_v3_large(*, weights=None, progress=True, num_classes=None,
                                  weights_backbone=MobileNet_V3_Large_Weights.IMAGENET1K_V1,
                                  trainable_backbone_layers=None, norm_layer=None, **kwargs):
    """SSDlite at 320x320 on MobileNetV3-Large (torchvision's builder)."""
    weights = W.SSDLite320_MobileNet_V3_Large_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    if "size" in kwargs:
        warnings.warn("The size of the model is already fixed; ignoring the parameter.")
        kwargs.pop("size")
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
    elif num_classes is None:
        num_classes = 91
    trainable_backbone_layers = _validate_trainable_layers(weights is not None or weights_backbone is not None,
                                                           trainable_backbone_layers, 6, 6)
    reduce_tail = weights_backbone is None  # MobileNetV3 paper, table 6: the reduced tail when not pretrained
    if norm_layer is None:
        norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
    backbone = mobilenet_v3_large(weights=weights_backbone, progress=progress, norm_layer=norm_layer,
                                  reduced_tail=reduce_tail)
    if weights_backbone is None:
        _normal_init(backbone)
    backbone = _mobilenet_extractor(backbone, trainable_backbone_layers, norm_layer)
    size = (320, 320)
    anchor_generator = DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
    out_channels = retrieve_out_channels(backbone, size)
    num_anchors = anchor_generator.num_anchors_per_location()
    if len(out_channels) != len(anchor_generator.aspect_ratios):
        raise ValueError(f"The length of the output channels from the backbone {len(out_channels)} do not match the "
                         f"length of the anchor generator aspect ratios {len(anchor_generator.aspect_ratios)}")
    # The backbone takes inputs scaled to [-1, 1].
    defaults = {"score_thresh": 0.001, "nms_thresh": 0.55, "detections_per_img": 300, "topk_candidates": 300,
                "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]}
    model = SSD(backbone, anchor_generator, size, num_classes,
                head=SSDLiteHead(out_channels, num_anchors, num_classes, norm_layer), **{**defaults, **kwargs})
    return load_detector_weights(model, weights, progress)
