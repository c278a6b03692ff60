"""Fully Convolutional Networks (Long et al.) on dilated ResNets (output stride 8): fcn_resnet50/101."""

from ember import nn

from .._api import register_model
from .._utils import IntermediateLayerGetter
from .._weights_resnet import ResNet50_Weights, ResNet101_Weights
from ..resnet import resnet50, resnet101
from . import _weights as W
from ._utils import _SimpleSegmentationModel, load_segmentation_weights, resolve_segmentation_weights


class FCN(_SimpleSegmentationModel):
    pass


class FCNHead(nn.Sequential):
    def __init__(self, in_channels, channels):
        inter_channels = in_channels // 4
        super().__init__(nn.Conv2d(in_channels, inter_channels, 3, padding=1, bias=False),
                         nn.BatchNorm2d(inter_channels), nn.ReLU(), nn.Dropout(0.1),
                         nn.Conv2d(inter_channels, channels, 1))


def _fcn_resnet(backbone, num_classes, aux):
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    backbone = IntermediateLayerGetter(backbone, return_layers=return_layers)
    aux_classifier = FCNHead(1024, num_classes) if aux else None
    return FCN(backbone, FCNHead(2048, num_classes), aux_classifier)


def _builder(name, resnet_builder, weights_enum, backbone_enum):
    def build(*, weights=None, progress=True, num_classes=None, aux_loss=None,
              weights_backbone=backbone_enum.IMAGENET1K_V1, **kwargs):
        weights, weights_backbone, num_classes, aux_loss = resolve_segmentation_weights(
            weights, weights_enum, weights_backbone, backbone_enum, num_classes, aux_loss)
        backbone = resnet_builder(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
        return load_segmentation_weights(_fcn_resnet(backbone, num_classes, aux_loss), weights, progress)

    build.__name__ = build.__qualname__ = name
    build.__module__ = __name__
    build.__doc__ = f"{name} (torchvision's builder): weights, progress, num_classes, aux_loss, weights_backbone."
    return register_model(name, weights_enum)(build)


fcn_resnet50 = _builder("fcn_resnet50", resnet50, W.FCN_ResNet50_Weights, ResNet50_Weights)
fcn_resnet101 = _builder("fcn_resnet101", resnet101, W.FCN_ResNet101_Weights, ResNet101_Weights)
