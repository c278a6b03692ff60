# ruff: noqa: F401  (this module re-exports the segmentation builders, classes and weights enums)
"""embervision.models.segmentation: torchvision's semantic segmentation models and builders."""

from ._weights import (DeepLabV3_MobileNet_V3_Large_Weights, DeepLabV3_ResNet50_Weights, DeepLabV3_ResNet101_Weights,
                       FCN_ResNet50_Weights, FCN_ResNet101_Weights, LRASPP_MobileNet_V3_Large_Weights)
from .deeplabv3 import DeepLabV3, deeplabv3_mobilenet_v3_large, deeplabv3_resnet50, deeplabv3_resnet101
from .fcn import FCN, fcn_resnet50, fcn_resnet101
from .lraspp import LRASPP, lraspp_mobilenet_v3_large
