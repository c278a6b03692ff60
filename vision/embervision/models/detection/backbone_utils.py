"""Detection backbones: a classification network's intermediate feature maps (IntermediateLayerGetter) fed
to a Feature Pyramid Network, with the early layers frozen as torchvision's builders do."""

import warnings

from ember import nn

from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import ExtraFPNBlock, FeaturePyramidNetwork, LastLevelMaxPool
from .. import mobilenet, resnet
from .._utils import IntermediateLayerGetter


class BackboneWithFPN(nn.Module):
    """body (the backbone's layers up to the last returned one) then fpn; out_channels on every level."""

    def __init__(self, backbone, return_layers, in_channels_list, out_channels, extra_blocks=None, norm_layer=None):
        super().__init__()
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        self.body = IntermediateLayerGetter(backbone, return_layers=return_layers)
        self.fpn = FeaturePyramidNetwork(in_channels_list=in_channels_list, out_channels=out_channels,
                                         extra_blocks=extra_blocks, norm_layer=norm_layer)
        self.out_channels = out_channels

    def forward(self, x):
        return self.fpn(self.body(x))


def _validate_trainable_layers(is_trained, trainable_backbone_layers, max_value, default_value):
    """Without pretrained weights every layer trains; otherwise default_value of max_value unless given."""
    if not is_trained:
        if trainable_backbone_layers is not None:
            warnings.warn("Changing trainable_backbone_layers has no effect if neither pretrained nor "
                          f"pretrained_backbone have been set to True, falling back to trainable_backbone_layers="
                          f"{max_value} so that all layers are trainable")
        trainable_backbone_layers = max_value
    if trainable_backbone_layers is None:
        trainable_backbone_layers = default_value
    if trainable_backbone_layers < 0 or trainable_backbone_layers > max_value:
        raise ValueError(f"Trainable backbone layers should be in the range [0,{max_value}], got "
                         f"{trainable_backbone_layers} ")
    return trainable_backbone_layers


def _resnet_fpn_extractor(backbone, trainable_layers, returned_layers=None, extra_blocks=None, norm_layer=None):
    """A ResNet with all but its last trainable_layers stages frozen, layers returned_layers (default 1-4)
    feeding an FPN of 256 channels."""
    if trainable_layers < 0 or trainable_layers > 5:
        raise ValueError(f"Trainable layers should be in the range [0,5], got {trainable_layers}")
    layers_to_train = ["layer4", "layer3", "layer2", "layer1", "conv1"][:trainable_layers]
    if trainable_layers == 5:
        layers_to_train.append("bn1")
    for name, parameter in backbone.named_parameters():
        if all(not name.startswith(layer) for layer in layers_to_train):
            parameter.requires_grad_(False)
    if extra_blocks is None:
        extra_blocks = LastLevelMaxPool()
    if returned_layers is None:
        returned_layers = [1, 2, 3, 4]
    if min(returned_layers) <= 0 or max(returned_layers) >= 5:
        raise ValueError(f"Each returned layer should be in the range [1,4]. Got {returned_layers}")
    return_layers = {f"layer{k}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_stage2 = backbone.inplanes // 8
    in_channels_list = [in_channels_stage2 * 2 ** (i - 1) for i in returned_layers]
    return BackboneWithFPN(backbone, return_layers, in_channels_list, 256, extra_blocks=extra_blocks,
                           norm_layer=norm_layer)


def resnet_fpn_backbone(*, backbone_name, weights, norm_layer=misc_nn_ops.FrozenBatchNorm2d, trainable_layers=3,
                        returned_layers=None, extra_blocks=None):
    """A named ResNet (embervision.models.resnet's builders) with an FPN on top."""
    backbone = getattr(resnet, backbone_name)(weights=weights, norm_layer=norm_layer)
    return _resnet_fpn_extractor(backbone, trainable_layers, returned_layers, extra_blocks)


def _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers=None, extra_blocks=None, norm_layer=None):
    """A MobileNet's features, frozen before its last trainable_layers stages (a stage starts at each
    stride-2 block); with fpn, the last two stages (by default) feed an FPN of 256 channels."""
    backbone = backbone.features
    stage_indices = [0] + [i for i, b in enumerate(backbone) if getattr(b, "_is_cn", False)] + [len(backbone) - 1]
    num_stages = len(stage_indices)
    if trainable_layers < 0 or trainable_layers > num_stages:
        raise ValueError(f"Trainable layers should be in the range [0,{num_stages}], got {trainable_layers} ")
    freeze_before = len(backbone) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    for b in backbone[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    out_channels = 256
    if not fpn:
        m = nn.Sequential(backbone, nn.Conv2d(backbone[-1].out_channels, out_channels, 1))
        m.out_channels = out_channels
        return m
    if extra_blocks is None:
        extra_blocks = LastLevelMaxPool()
    if returned_layers is None:
        returned_layers = [num_stages - 2, num_stages - 1]
    if min(returned_layers) < 0 or max(returned_layers) >= num_stages:
        raise ValueError(f"Each returned layer should be in the range [0,{num_stages - 1}], got {returned_layers} ")
    return_layers = {f"{stage_indices[k]}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_list = [backbone[stage_indices[i]].out_channels for i in returned_layers]
    return BackboneWithFPN(backbone, return_layers, in_channels_list, out_channels, extra_blocks=extra_blocks,
                           norm_layer=norm_layer)


def mobilenet_backbone(*, backbone_name, weights, fpn, norm_layer=misc_nn_ops.FrozenBatchNorm2d, trainable_layers=2,
                       returned_layers=None, extra_blocks=None):
    backbone = getattr(mobilenet, backbone_name)(weights=weights, norm_layer=norm_layer)
    return _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers, extra_blocks)


__all__ = ["BackboneWithFPN", "ExtraFPNBlock", "resnet_fpn_backbone", "mobilenet_backbone"]
