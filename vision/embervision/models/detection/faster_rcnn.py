"""Faster R-CNN (Ren et al.): a backbone (+FPN), the Region Proposal Network and Fast R-CNN's RoI heads, and
torchvision's builders fasterrcnn_resnet50_fpn and fasterrcnn_mobilenet_v3_large(_320)_fpn."""

from ember import nn
from ember.nn import functional as F

from ...ops import misc as misc_nn_ops
from ...ops.poolers import MultiScaleRoIAlign
from .._api import register_model
from .._weights_classic import MobileNet_V3_Large_Weights
from .._weights_resnet import ResNet50_Weights
from ..mobilenet import mobilenet_v3_large
from ..resnet import resnet50
from . import _weights as W
from ._utils import overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _mobilenet_extractor, _resnet_fpn_extractor, _validate_trainable_layers
from .generalized_rcnn import GeneralizedRCNN
from .roi_heads import RoIHeads
from .rpn import RegionProposalNetwork, RPNHead
from .transform import GeneralizedRCNNTransform


def _default_anchorgen():
    anchor_sizes = ((32,), (64,), (128,), (256,), (512,))
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    return AnchorGenerator(anchor_sizes, aspect_ratios)


def check_detector_arguments(backbone, num_classes, predictor, predictor_name="box_predictor"):
    if not hasattr(backbone, "out_channels"):
        raise ValueError("backbone should contain an attribute out_channels specifying the number of output "
                         "channels (assumed to be the same for all the levels)")
    if num_classes is not None:
        if predictor is not None:
            raise ValueError(f"num_classes should be None when {predictor_name} is specified")
    elif predictor is None:
        raise ValueError(f"num_classes should not be None when {predictor_name} is not specified")


class FasterRCNN(GeneralizedRCNN):
    def __init__(self, backbone, num_classes=None, min_size=800, max_size=1333, image_mean=None, image_std=None,
                 rpn_anchor_generator=None, rpn_head=None, rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
                 rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000, rpn_nms_thresh=0.7,
                 rpn_fg_iou_thresh=0.7, rpn_bg_iou_thresh=0.3, rpn_batch_size_per_image=256, rpn_positive_fraction=0.5,
                 rpn_score_thresh=0.0, box_roi_pool=None, box_head=None, box_predictor=None, box_score_thresh=0.05,
                 box_nms_thresh=0.5, box_detections_per_img=100, box_fg_iou_thresh=0.5, box_bg_iou_thresh=0.5,
                 box_batch_size_per_image=512, box_positive_fraction=0.25, bbox_reg_weights=None, **kwargs):
        check_detector_arguments(backbone, num_classes, box_predictor)
        if not isinstance(rpn_anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError("rpn_anchor_generator should be of type AnchorGenerator or None instead of "
                            f"{type(rpn_anchor_generator)}")
        if not isinstance(box_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError("box_roi_pool should be of type MultiScaleRoIAlign or None instead of "
                            f"{type(box_roi_pool)}")
        out_channels = backbone.out_channels
        if rpn_anchor_generator is None:
            rpn_anchor_generator = _default_anchorgen()
        if rpn_head is None:
            rpn_head = RPNHead(out_channels, rpn_anchor_generator.num_anchors_per_location()[0])
        rpn = RegionProposalNetwork(
            rpn_anchor_generator, rpn_head, rpn_fg_iou_thresh, rpn_bg_iou_thresh, rpn_batch_size_per_image,
            rpn_positive_fraction, dict(training=rpn_pre_nms_top_n_train, testing=rpn_pre_nms_top_n_test),
            dict(training=rpn_post_nms_top_n_train, testing=rpn_post_nms_top_n_test), rpn_nms_thresh,
            score_thresh=rpn_score_thresh)
        if box_roi_pool is None:
            box_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=7, sampling_ratio=2)
        if box_head is None:
            resolution = box_roi_pool.output_size[0]
            box_head = TwoMLPHead(out_channels * resolution ** 2, 1024)
        if box_predictor is None:
            box_predictor = FastRCNNPredictor(1024, num_classes)
        roi_heads = RoIHeads(box_roi_pool, box_head, box_predictor, box_fg_iou_thresh, box_bg_iou_thresh,
                             box_batch_size_per_image, box_positive_fraction, bbox_reg_weights, box_score_thresh,
                             box_nms_thresh, box_detections_per_img)
        image_mean = image_mean if image_mean is not None else [0.485, 0.456, 0.406]
        image_std = image_std if image_std is not None else [0.229, 0.224, 0.225]
        transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        super().__init__(backbone, rpn, roi_heads, transform)


class TwoMLPHead(nn.Module):
    """Two fully connected layers with ReLU over the flattened pooled features."""

    def __init__(self, in_channels, representation_size):
        super().__init__()
        self.fc6 = nn.Linear(in_channels, representation_size)
        self.fc7 = nn.Linear(representation_size, representation_size)

    def forward(self, x):
        x = x.flatten(start_dim=1)
        return F.relu(self.fc7(F.relu(self.fc6(x))))


class FastRCNNPredictor(nn.Module):
    """Class scores and per-class box deltas (num_classes includes the background)."""

    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.cls_score = nn.Linear(in_channels, num_classes)
        self.bbox_pred = nn.Linear(in_channels, num_classes * 4)

    def forward(self, x):
        if x.dim() == 4 and list(x.shape[2:]) != [1, 1]:
            raise AssertionError(f"x has the wrong shape, expecting the last two dimensions to be [1,1] instead of "
                                 f"{list(x.shape[2:])}")
        x = x.flatten(start_dim=1)
        return self.cls_score(x), self.bbox_pred(x)


def _ovewrite_value_param(param, actual, expected):
    if actual is not None and actual != expected:
        raise ValueError(f"The parameter '{param}' expected value {expected} but got {actual} instead.")
    return expected


def resolve_weights(weights, weights_enum, weights_backbone, backbone_enum, num_classes):
    """Shared start of the COCO builders: verified weights; with detector weights the backbone's are not
    loaded and num_classes is the checkpoint's; otherwise num_classes defaults to COCO's 91."""
    weights = weights_enum.verify(weights)
    weights_backbone = backbone_enum.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
    elif num_classes is None:
        num_classes = 91
    return weights, weights_backbone, num_classes


def load_detector_weights(model, weights, progress, eps_zero=False):
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if eps_zero:
            overwrite_eps(model, 0.0)
    return model


@register_model(weights=W.FasterRCNN_ResNet50_FPN_Weights)
def fasterrcnn_resnet50_fpn(*, weights=None, progress=True, num_classes=None,
                            weights_backbone=ResNet50_Weights.IMAGENET1K_V1, trainable_backbone_layers=None, **kwargs):
    """Faster R-CNN with a ResNet-50-FPN backbone (torchvision's builder). Without weights_backbone (or
    weights) the backbone uses trainable BatchNorm2d and every layer trains."""
    weights, weights_backbone, num_classes = resolve_weights(weights, W.FasterRCNN_ResNet50_FPN_Weights,
                                                             weights_backbone, ResNet50_Weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = FasterRCNN(backbone, num_classes=num_classes, **kwargs)
    return load_detector_weights(model, weights, progress,
                                 eps_zero=weights == W.FasterRCNN_ResNet50_FPN_Weights.COCO_V1)


def _fasterrcnn_mobilenet_v3_large_fpn(*, weights, progress, num_classes, weights_backbone, trainable_backbone_layers,
                                       **kwargs):
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 6, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = mobilenet_v3_large(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _mobilenet_extractor(backbone, True, trainable_backbone_layers)
    anchor_sizes = ((32, 64, 128, 256, 512),) * 3
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    model = FasterRCNN(backbone, num_classes, rpn_anchor_generator=AnchorGenerator(anchor_sizes, aspect_ratios),
                       **kwargs)
    return load_detector_weights(model, weights, progress)


@register_model(weights=W.FasterRCNN_MobileNet_V3_Large_320_FPN_Weights)
def fasterrcnn_mobilenet_v3_large_320_fpn(*, weights=None, progress=True, num_classes=None,
                                          weights_backbone=MobileNet_V3_Large_Weights.IMAGENET1K_V1,
                                          trainable_backbone_layers=None, **kwargs):
    """Low-resolution Faster R-CNN with a MobileNetV3-Large FPN backbone (images resized to 320 on the short
    side, fewer proposals)."""
    weights, weights_backbone, num_classes = resolve_weights(
        weights, W.FasterRCNN_MobileNet_V3_Large_320_FPN_Weights, weights_backbone, MobileNet_V3_Large_Weights,
        num_classes)
    defaults = {"min_size": 320, "max_size": 640, "rpn_pre_nms_top_n_test": 150, "rpn_post_nms_top_n_test": 150,
                "rpn_score_thresh": 0.05}
    kwargs = {**defaults, **kwargs}
    return _fasterrcnn_mobilenet_v3_large_fpn(weights=weights, progress=progress, num_classes=num_classes,
                                              weights_backbone=weights_backbone,
                                              trainable_backbone_layers=trainable_backbone_layers, **kwargs)


@register_model(weights=W.FasterRCNN_MobileNet_V3_Large_FPN_Weights)
def fasterrcnn_mobilenet_v3_large_fpn(*, weights=None, progress=True, num_classes=None,
                                      weights_backbone=MobileNet_V3_Large_Weights.IMAGENET1K_V1,
                                      trainable_backbone_layers=None, **kwargs):
    """High-resolution Faster R-CNN with a MobileNetV3-Large FPN backbone."""
    weights, weights_backbone, num_classes = resolve_weights(
        weights, W.FasterRCNN_MobileNet_V3_Large_FPN_Weights, weights_backbone, MobileNet_V3_Large_Weights,
        num_classes)
    kwargs = {"rpn_score_thresh": 0.05, **kwargs}
    return _fasterrcnn_mobilenet_v3_large_fpn(weights=weights, progress=progress, num_classes=num_classes,
                                              weights_backbone=weights_backbone,
                                              trainable_backbone_layers=trainable_backbone_layers, **kwargs)
