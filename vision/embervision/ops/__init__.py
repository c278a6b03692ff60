"""embervision.ops: detection ops (C++ kernels in ember.ops.vision with backward formulas) and the layers
the model zoo shares."""

from .boxes import (batched_nms, box_area, box_convert, box_iou, clip_boxes_to_image, complete_box_iou,
                    distance_box_iou, generalized_box_iou, masks_to_boxes, nms, remove_small_boxes)
from .deform_conv import DeformConv2d, deform_conv2d
from .drop_block import DropBlock2d, DropBlock3d, drop_block2d, drop_block3d
from .feature_pyramid_network import FeaturePyramidNetwork
from .focal_loss import sigmoid_focal_loss
from .giou_loss import generalized_box_iou_loss
from .misc import MLP, Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d, SqueezeExcitation
from .poolers import MultiScaleRoIAlign
from .roi_align import PSRoIAlign, RoIAlign, ps_roi_align, roi_align
from .roi_pool import PSRoIPool, RoIPool, ps_roi_pool, roi_pool
from .stochastic_depth import StochasticDepth, stochastic_depth

__all__ = [
    "batched_nms", "box_area", "box_convert", "box_iou", "clip_boxes_to_image", "complete_box_iou",
    "distance_box_iou", "generalized_box_iou", "masks_to_boxes", "nms", "remove_small_boxes", "DeformConv2d",
    "deform_conv2d", "DropBlock2d", "DropBlock3d", "drop_block2d", "drop_block3d", "FeaturePyramidNetwork",
    "sigmoid_focal_loss", "generalized_box_iou_loss", "MLP", "Conv2dNormActivation", "Conv3dNormActivation",
    "FrozenBatchNorm2d",
    "SqueezeExcitation", "MultiScaleRoIAlign", "PSRoIAlign", "RoIAlign", "ps_roi_align", "roi_align", "PSRoIPool",
    "RoIPool", "ps_roi_pool", "roi_pool", "StochasticDepth", "stochastic_depth",
]
