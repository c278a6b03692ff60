# ruff: noqa: F401  (this module re-exports the builders, classes and weights enums)
"""embervision.models: torchvision's classification models (builders, names, arguments, state_dict keys)
and the multi-weight API."""

from ._api import Weights, WeightsEnum, get_model, get_model_weights, get_weight, list_models
from ._weights_resnet import (ResNet18_Weights, ResNet34_Weights, ResNet50_Weights, ResNet101_Weights,
                              ResNet152_Weights, ResNeXt50_32X4D_Weights, ResNeXt101_32X8D_Weights,
                              ResNeXt101_64X4D_Weights, Wide_ResNet50_2_Weights, Wide_ResNet101_2_Weights)
from .resnet import (ResNet, resnet18, resnet34, resnet50, resnet101, resnet152, resnext50_32x4d, resnext101_32x8d,
                     resnext101_64x4d, wide_resnet50_2, wide_resnet101_2)
from ._weights_classic import (AlexNet_Weights, DenseNet121_Weights, DenseNet161_Weights, DenseNet169_Weights,
                               DenseNet201_Weights, GoogLeNet_Weights, Inception_V3_Weights, MobileNet_V2_Weights,
                               MobileNet_V3_Large_Weights, MobileNet_V3_Small_Weights, SqueezeNet1_0_Weights,
                               SqueezeNet1_1_Weights, VGG11_BN_Weights, VGG11_Weights, VGG13_BN_Weights,
                               VGG13_Weights, VGG16_BN_Weights, VGG16_Weights, VGG19_BN_Weights, VGG19_Weights)
from .classic import (VGG, AlexNet, SqueezeNet, alexnet, squeezenet1_0, squeezenet1_1, vgg11, vgg11_bn, vgg13,
                      vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn)
from .convnext import ConvNeXt, convnext_base, convnext_large, convnext_small, convnext_tiny
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201
from .efficientnet import (EfficientNet, efficientnet_b0, efficientnet_b1, efficientnet_b2, efficientnet_b3,
                           efficientnet_b4, efficientnet_b5, efficientnet_b6, efficientnet_b7)
from .googlenet import GoogLeNet, GoogLeNetOutputs, googlenet
from .inception import Inception3, InceptionOutputs, inception_v3
from .mnasnet import MNASNet, mnasnet0_5, mnasnet0_75, mnasnet1_0, mnasnet1_3
from .mobilenet import MobileNetV2, MobileNetV3, mobilenet_v2, mobilenet_v3_large, mobilenet_v3_small
from .regnet import RegNet
from .regnet import (regnet_x_1_6gf, regnet_x_3_2gf, regnet_x_8gf, regnet_x_16gf, regnet_x_32gf,  # noqa: F401
                     regnet_x_400mf, regnet_x_800mf, regnet_y_1_6gf, regnet_y_3_2gf, regnet_y_8gf, regnet_y_16gf,
                     regnet_y_32gf, regnet_y_128gf, regnet_y_400mf, regnet_y_800mf)
from .shufflenetv2 import (ShuffleNetV2, shufflenet_v2_x0_5, shufflenet_v2_x1_0, shufflenet_v2_x1_5,
                           shufflenet_v2_x2_0)
from .vision_transformer import VisionTransformer, vit_b_16, vit_b_32, vit_h_14, vit_l_16, vit_l_32
from . import detection  # noqa: E402,F401  (registers the detection builders)
from . import segmentation  # noqa: E402,F401  (registers the segmentation builders)
from . import video  # noqa: E402,F401  (registers the video builders)
