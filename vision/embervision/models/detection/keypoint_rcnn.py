"""Keypoint R-CNN (He et al., Mask R-CNN section 5): Faster R-CNN plus a keypoint branch (14x14 RoIAlign,
eight 3x3 convs of 512, a transposed conv and 2x upsampling to 56x56 heatmaps); keypointrcnn_resnet50_fpn."""

from ember import nn
from ember.nn import functional as F

from ...ops import misc as misc_nn_ops
from ...ops.poolers import MultiScaleRoIAlign
from .._api import register_model
from .._weights_resnet import ResNet50_Weights
from ..resnet import resnet50
from . import _weights as W
from ._utils import overwrite_eps
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import FasterRCNN, _ovewrite_value_param


class KeypointRCNNHeads(nn.Sequential):
    def __init__(self, in_channels, layers):
        blocks = []
        next_feature = in_channels
        for out_channels in layers:
            blocks += [nn.Conv2d(next_feature, out_channels, 3, stride=1, padding=1), nn.ReLU(inplace=True)]
            next_feature = out_channels
        super().__init__(*blocks)
        for m in self.children():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)


class KeypointRCNNPredictor(nn.Module):
    def __init__(self, in_channels, num_keypoints):
        super().__init__()
        deconv_kernel = 4
        self.kps_score_lowres = nn.ConvTranspose2d(in_channels, num_keypoints, deconv_kernel, stride=2,
                                                   padding=deconv_kernel // 2 - 1)
        nn.init.kaiming_normal_(self.kps_score_lowres.weight, mode="fan_out", nonlinearity="relu")
        nn.init.constant_(self.kps_score_lowres.bias, 0)
        self.up_scale = 2
        self.out_channels = num_keypoints

    def forward(self, x):
        return F.interpolate(self.kps_score_lowres(x), scale_factor=float(self.up_scale), mode="bilinear",
                             align_corners=False, recompute_scale_factor=False)


class KeypointRCNN(FasterRCNN):
    """FasterRCNN's arguments plus keypoint_roi_pool, keypoint_head, keypoint_predictor, num_keypoints (17 by
    default). Targets need keypoints (FloatTensor[N, K, 3]: x, y, visibility); eval adds keypoints and
    keypoints_scores to each detection dict. Training sizes default to COCO's multi-scale 640-800."""

    def __init__(self, backbone, num_classes=None, min_size=None, max_size=1333, keypoint_roi_pool=None,
                 keypoint_head=None, keypoint_predictor=None, num_keypoints=None, **kwargs):
        if not isinstance(keypoint_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError("keypoint_roi_pool should be of type MultiScaleRoIAlign or None instead of "
                            f"{type(keypoint_roi_pool)}")
        if min_size is None:
            min_size = (640, 672, 704, 736, 768, 800)
        if num_keypoints is not None:
            if keypoint_predictor is not None:
                raise ValueError("num_keypoints should be None when keypoint_predictor is specified")
        else:
            num_keypoints = 17
        out_channels = backbone.out_channels
        if keypoint_roi_pool is None:
            keypoint_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=14,
                                                   sampling_ratio=2)
        if keypoint_head is None:
            keypoint_head = KeypointRCNNHeads(out_channels, tuple(512 for _ in range(8)))
        if keypoint_predictor is None:
            keypoint_predictor = KeypointRCNNPredictor(512, num_keypoints)
        super().__init__(backbone, num_classes, min_size=min_size, max_size=max_size, **kwargs)
        self.roi_heads.keypoint_roi_pool = keypoint_roi_pool
        self.roi_heads.keypoint_head = keypoint_head
        self.roi_heads.keypoint_predictor = keypoint_predictor


@register_model(weights=W.KeypointRCNN_ResNet50_FPN_Weights)
def keypointrcnn_resnet50_fpn(*, weights=None, progress=True, num_classes=None, num_keypoints=None,
                              weights_backbone=ResNet50_Weights.IMAGENET1K_V1, trainable_backbone_layers=None,
                              **kwargs):
    """Keypoint R-CNN with a ResNet-50-FPN backbone (torchvision's builder; person + 17 COCO keypoints)."""
    weights = W.KeypointRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
        num_keypoints = _ovewrite_value_param("num_keypoints", num_keypoints, len(weights.meta["keypoint_names"]))
    else:
        num_classes = 2 if num_classes is None else num_classes
        num_keypoints = 17 if num_keypoints is None else num_keypoints
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = KeypointRCNN(backbone, num_classes, num_keypoints=num_keypoints, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if weights == W.KeypointRCNN_ResNet50_FPN_Weights.COCO_LEGACY:
            overwrite_eps(model, 0.0)
    return model
