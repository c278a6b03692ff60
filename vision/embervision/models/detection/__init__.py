# ruff: noqa: F401  (this module re-exports the detection builders, classes and weights enums)
"""embervision.models.detection: torchvision's detection models, their building blocks and builders."""

from ._weights import (FasterRCNN_MobileNet_V3_Large_320_FPN_Weights, FasterRCNN_MobileNet_V3_Large_FPN_Weights,
                       FasterRCNN_ResNet50_FPN_Weights, FCOS_ResNet50_FPN_Weights, KeypointRCNN_ResNet50_FPN_Weights,
                       MaskRCNN_ResNet50_FPN_Weights,
                       RetinaNet_ResNet50_FPN_Weights, SSD300_VGG16_Weights, SSDLite320_MobileNet_V3_Large_Weights)
from .anchor_utils import AnchorGenerator
from .faster_rcnn import (FasterRCNN, FastRCNNPredictor, TwoMLPHead, fasterrcnn_mobilenet_v3_large_320_fpn,
                          fasterrcnn_mobilenet_v3_large_fpn, fasterrcnn_resnet50_fpn)
from .generalized_rcnn import GeneralizedRCNN
from .image_list import ImageList
from .roi_heads import RoIHeads
from .rpn import RegionProposalNetwork, RPNHead
from .transform import GeneralizedRCNNTransform
from .retinanet import RetinaNet, RetinaNetHead, retinanet_resnet50_fpn
from .mask_rcnn import MaskRCNN, MaskRCNNHeads, MaskRCNNPredictor, maskrcnn_resnet50_fpn
from .fcos import FCOS, FCOSHead, fcos_resnet50_fpn
from .anchor_boxes_ssd import DefaultBoxGenerator
from .ssd import SSD, SSDHead, ssd300_vgg16
from .ssdlite import ssdlite320_mobilenet_v3_large
from .keypoint_rcnn import KeypointRCNN, KeypointRCNNHeads, KeypointRCNNPredictor, keypointrcnn_resnet50_fpn
