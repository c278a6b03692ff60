"""Mask R-CNN (He et al.): Faster R-CNN plus a mask branch (14x14 RoIAlign, four 3x3 convs, a 2x transposed
conv and per-class 28x28 mask logits); torchvision's maskrcnn_resnet50_fpn."""

from collections import OrderedDict

from ember import nn

from ...ops import misc as misc_nn_ops
from ...ops.poolers import MultiScaleRoIAlign
from .._api import register_model
from .._weights_resnet import ResNet50_Weights
from ..resnet import resnet50
from . import _weights as W
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import FasterRCNN, load_detector_weights, resolve_weights


class MaskRCNNHeads(nn.Sequential):
    _version = 2

    def __init__(self, in_channels, layers, dilation, norm_layer=None):
        blocks = []
        next_feature = in_channels
        for layer_features in layers:
            blocks.append(misc_nn_ops.Conv2dNormActivation(next_feature, layer_features, kernel_size=3, stride=1,
                                                           padding=dilation, dilation=dilation,
                                                           norm_layer=norm_layer))
            next_feature = layer_features
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # Version 1 checkpoints name block i's conv mask_fcn{i+1}.
        version = local_metadata.get("version", None) if local_metadata else None
        if version is None or version < 2:
            for i in range(len(self)):
                for kind in ("weight", "bias"):
                    old_key, new_key = f"{prefix}mask_fcn{i + 1}.{kind}", f"{prefix}{i}.0.{kind}"
                    if old_key in state_dict:
                        state_dict[new_key] = state_dict.pop(old_key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class MaskRCNNPredictor(nn.Sequential):
    def __init__(self, in_channels, dim_reduced, num_classes):
        super().__init__(OrderedDict([
            ("conv5_mask", nn.ConvTranspose2d(in_channels, dim_reduced, 2, 2, 0)),
            ("relu", nn.ReLU(inplace=True)),
            ("mask_fcn_logits", nn.Conv2d(dim_reduced, num_classes, 1, 1, 0)),
        ]))
        for name, param in self.named_parameters():
            if "weight" in name:
                nn.init.kaiming_normal_(param, mode="fan_out", nonlinearity="relu")


class MaskRCNN(FasterRCNN):
    """FasterRCNN's arguments plus mask_roi_pool, mask_head, mask_predictor. Targets need masks
    (UInt8Tensor[N, H, W]); eval adds masks (FloatTensor[N, 1, H, W], probabilities) to each detection dict."""

    def __init__(self, backbone, num_classes=None, mask_roi_pool=None, mask_head=None, mask_predictor=None,
                 **kwargs):
        if not isinstance(mask_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(f"mask_roi_pool should be of type MultiScaleRoIAlign or None instead of "
                            f"{type(mask_roi_pool)}")
        if num_classes is not None and mask_predictor is not None:
            raise ValueError("num_classes should be None when mask_predictor is specified")
        out_channels = backbone.out_channels
        if mask_roi_pool is None:
            mask_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=14, sampling_ratio=2)
        if mask_head is None:
            mask_head = MaskRCNNHeads(out_channels, (256, 256, 256, 256), 1)
        if mask_predictor is None:
            mask_predictor = MaskRCNNPredictor(256, 256, num_classes)
        super().__init__(backbone, num_classes, **kwargs)
        self.roi_heads.mask_roi_pool = mask_roi_pool
        self.roi_heads.mask_head = mask_head
        self.roi_heads.mask_predictor = mask_predictor


@register_model(weights=W.MaskRCNN_ResNet50_FPN_Weights)
def maskrcnn_resnet50_fpn(*, weights=None, progress=True, num_classes=None,
                          weights_backbone=ResNet50_Weights.IMAGENET1K_V1, trainable_backbone_layers=None, **kwargs):
    """Mask R-CNN with a ResNet-50-FPN backbone (torchvision's builder)."""
    weights, weights_backbone, num_classes = resolve_weights(weights, W.MaskRCNN_ResNet50_FPN_Weights,
                                                             weights_backbone, ResNet50_Weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = MaskRCNN(backbone, num_classes=num_classes, **kwargs)
    return load_detector_weights(model, weights, progress,
                                 eps_zero=weights == W.MaskRCNN_ResNet50_FPN_Weights.COCO_V1)
