"""DeepLabV3 (Chen et al.): atrous spatial pyramid pooling over a dilated ResNet (output stride 8) or a
dilated MobileNetV3-Large (output stride 16); deeplabv3_resnet50/101 and deeplabv3_mobilenet_v3_large."""

import ember
from ember import nn
from ember.nn import functional as F

from .._api import register_model
from .._utils import IntermediateLayerGetter
from .._weights_classic import MobileNet_V3_Large_Weights
from .._weights_resnet import ResNet50_Weights, ResNet101_Weights
from ..mobilenet import mobilenet_v3_large
from ..resnet import resnet50, resnet101
from . import _weights as W
from ._utils import (_SimpleSegmentationModel, load_segmentation_weights, mobilenet_stage_indices,
                     resolve_segmentation_weights)
from .fcn import FCNHead


class DeepLabV3(_SimpleSegmentationModel):
    pass


class ASPPConv(nn.Sequential):
    def __init__(self, in_channels, out_channels, dilation):
        super().__init__(nn.Conv2d(in_channels, out_channels, 3, padding=dilation, dilation=dilation, bias=False),
                         nn.BatchNorm2d(out_channels), nn.ReLU())


class ASPPPooling(nn.Sequential):
    """Image-level features: global average, 1x1 conv, upsampled back to the map's size."""

    def __init__(self, in_channels, out_channels):
        super().__init__(nn.AdaptiveAvgPool2d(1), nn.Conv2d(in_channels, out_channels, 1, bias=False),
                         nn.BatchNorm2d(out_channels), nn.ReLU())

    def forward(self, x):
        size = x.shape[-2:]
        for mod in self:
            x = mod(x)
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    def __init__(self, in_channels, atrous_rates, out_channels=256):
        super().__init__()
        modules = [nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels),
                                 nn.ReLU())]
        modules += [ASPPConv(in_channels, out_channels, rate) for rate in tuple(atrous_rates)]
        modules.append(ASPPPooling(in_channels, out_channels))
        self.convs = nn.ModuleList(modules)
        self.project = nn.Sequential(nn.Conv2d(len(self.convs) * out_channels, out_channels, 1, bias=False),
                                     nn.BatchNorm2d(out_channels), nn.ReLU(), nn.Dropout(0.5))

    def forward(self, x):
        return self.project(ember.cat([conv(x) for conv in self.convs], dim=1))


class DeepLabHead(nn.Sequential):
    def __init__(self, in_channels, num_classes, atrous_rates=(12, 24, 36)):
        super().__init__(ASPP(in_channels, atrous_rates), nn.Conv2d(256, 256, 3, padding=1, bias=False),
                         nn.BatchNorm2d(256), nn.ReLU(), nn.Conv2d(256, num_classes, 1))


def _deeplabv3_resnet(backbone, num_classes, aux):
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    backbone = IntermediateLayerGetter(backbone, return_layers=return_layers)
    aux_classifier = FCNHead(1024, num_classes) if aux else None
    return DeepLabV3(backbone, DeepLabHead(2048, num_classes), aux_classifier)


def _deeplabv3_mobilenetv3(backbone, num_classes, aux):
    features = backbone.features
    stage_indices = mobilenet_stage_indices(features)
    out_pos, aux_pos = stage_indices[-1], stage_indices[-4]  # C5 (stride 16) and C2 (stride 8)
    return_layers = {str(out_pos): "out"}
    if aux:
        return_layers[str(aux_pos)] = "aux"
    body = IntermediateLayerGetter(features, return_layers=return_layers)
    aux_classifier = FCNHead(features[aux_pos].out_channels, num_classes) if aux else None
    return DeepLabV3(body, DeepLabHead(features[out_pos].out_channels, num_classes), aux_classifier)


def _resnet_builder(name, resnet_builder, weights_enum, backbone_enum):
    def build(*, weights=None, progress=True, num_classes=None, aux_loss=None,
              weights_backbone=backbone_enum.IMAGENET1K_V1, **kwargs):
        weights, weights_backbone, num_classes, aux_loss = resolve_segmentation_weights(
            weights, weights_enum, weights_backbone, backbone_enum, num_classes, aux_loss)
        backbone = resnet_builder(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
        return load_segmentation_weights(_deeplabv3_resnet(backbone, num_classes, aux_loss), weights, progress)

    build.__name__ = build.__qualname__ = name
    build.__module__ = __name__
    build.__doc__ = f"{name} (torchvision's builder): weights, progress, num_classes, aux_loss, weights_backbone."
    return register_model(name, weights_enum)(build)


deeplabv3_resnet50 = _resnet_builder("deeplabv3_resnet50", resnet50, W.DeepLabV3_ResNet50_Weights, ResNet50_Weights)
deeplabv3_resnet101 = _resnet_builder("deeplabv3_resnet101", resnet101, W.DeepLabV3_ResNet101_Weights,
                                      ResNet101_Weights)


@register_model(weights=W.DeepLabV3_MobileNet_V3_Large_Weights)
def deeplabv3_mobilenet_v3_large(*, weights=None, progress=True, num_classes=None, aux_loss=None,
                                 weights_backbone=MobileNet_V3_Large_Weights.IMAGENET1K_V1, **kwargs):
    """DeepLabV3 on a dilated MobileNetV3-Large (torchvision's builder)."""
    weights, weights_backbone, num_classes, aux_loss = resolve_segmentation_weights(
        weights, W.DeepLabV3_MobileNet_V3_Large_Weights, weights_backbone, MobileNet_V3_Large_Weights, num_classes,
        aux_loss)
    backbone = mobilenet_v3_large(weights=weights_backbone, dilated=True)
    return load_segmentation_weights(_deeplabv3_mobilenetv3(backbone, num_classes, aux_loss), weights, progress)
