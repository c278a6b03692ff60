# ruff: noqa: F401  (this module re-exports the video builders, classes and weights enums)
"""embervision.models.video: torchvision's video classification ResNets (R3D, MC3, R(2+1)D) and builders."""

from ._weights import MC3_18_Weights, R2Plus1D_18_Weights, R3D_18_Weights
from .resnet import VideoResNet, mc3_18, r2plus1d_18, r3d_18
