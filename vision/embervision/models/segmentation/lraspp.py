"""Lite R-ASPP (Howard et al., MobileNetV3): a squeeze-excitation-gated 1x1 branch on the stride-16 features
plus a linear classifier on the stride-8 ones; lraspp_mobilenet_v3_large."""

from collections import OrderedDict
from typing import Dict

from ember import Tensor, nn
from ember.nn import functional as F

from .._api import register_model
from .._utils import IntermediateLayerGetter
from .._weights_classic import MobileNet_V3_Large_Weights
from ..mobilenet import mobilenet_v3_large
from . import _weights as W
from ._utils import load_segmentation_weights, mobilenet_stage_indices, resolve_segmentation_weights


class LRASPPHead(nn.Module):
    def __init__(self, low_channels, high_channels, num_classes, inter_channels):
        super().__init__()
        self.cbr = nn.Sequential(nn.Conv2d(high_channels, inter_channels, 1, bias=False),
                                 nn.BatchNorm2d(inter_channels), nn.ReLU(inplace=True))
        self.scale = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(high_channels, inter_channels, 1, bias=False),
                                   nn.Sigmoid())
        self.low_classifier = nn.Conv2d(low_channels, num_classes, 1)
        self.high_classifier = nn.Conv2d(inter_channels, num_classes, 1)

    def forward(self, features: Dict[str, Tensor]):
        low, high = features["low"], features["high"]
        x = self.cbr(high) * self.scale(high)
        x = F.interpolate(x, size=low.shape[-2:], mode="bilinear", align_corners=False)
        return self.low_classifier(low) + self.high_classifier(x)


class LRASPP(nn.Module):
    def __init__(self, backbone, low_channels, high_channels, num_classes, inter_channels=128):
        super().__init__()
        self.backbone = backbone
        self.classifier = LRASPPHead(low_channels, high_channels, num_classes, inter_channels)

    def forward(self, input):
        out = self.classifier(self.backbone(input))
        out = F.interpolate(out, size=input.shape[-2:], mode="bilinear", align_corners=False)
        result = OrderedDict()
        result["out"] = out
        return result


def _lraspp_mobilenetv3(backbone, num_classes):
    features = backbone.features
    stage_indices = mobilenet_stage_indices(features)
    low_pos, high_pos = stage_indices[-4], stage_indices[-1]
    body = IntermediateLayerGetter(features, return_layers={str(low_pos): "low", str(high_pos): "high"})
    return LRASPP(body, features[low_pos].out_channels, features[high_pos].out_channels, num_classes)


@register_model(weights=W.LRASPP_MobileNet_V3_Large_Weights)
def lraspp_mobilenet_v3_large(*, weights=None, progress=True, num_classes=None,
                              weights_backbone=MobileNet_V3_Large_Weights.IMAGENET1K_V1, **kwargs):
    """Lite R-ASPP on a dilated MobileNetV3-Large (torchvision's builder; no auxiliary loss)."""
    if kwargs.pop("aux_loss", False):
        raise NotImplementedError("This model does not use auxiliary loss")
    weights, weights_backbone, num_classes, _ = resolve_segmentation_weights(
        weights, W.LRASPP_MobileNet_V3_Large_Weights, weights_backbone, MobileNet_V3_Large_Weights, num_classes,
        None)
    backbone = mobilenet_v3_large(weights=weights_backbone, dilated=True)
    return load_segmentation_weights(_lraspp_mobilenetv3(backbone, num_classes), weights, progress)
