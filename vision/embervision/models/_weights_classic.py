"""Checkpoints of the classic and mobile classification models (torchvision's published files)."""

from functools import partial

from ._api import Weights, WeightsEnum
from ._presets import ImageClassification

_URL = "https://download.pytorch.org/models/"


def _w(file, num_params, acc1, acc5, crop=224, resize=256, min_size=(1, 1)):
    return Weights(url=_URL + file, transforms=partial(ImageClassification, crop_size=crop, resize_size=resize),
                   meta={"num_params": num_params, "num_classes": 1000, "min_size": min_size,
                         "_metrics": {"ImageNet-1K": {"acc@1": acc1, "acc@5": acc5}}})


def _enum(name, **members):
    members["DEFAULT"] = members["IMAGENET1K_V1"]
    return WeightsEnum(name, members, module=__name__)


AlexNet_Weights = _enum("AlexNet_Weights", IMAGENET1K_V1=_w("alexnet-owt-7be5be79.pth", 61100840, 56.522, 79.066,
                                                            min_size=(63, 63)))
VGG11_Weights = _enum("VGG11_Weights", IMAGENET1K_V1=_w("vgg11-8a719046.pth", 132863336, 69.020, 88.628,
                                                        min_size=(32, 32)))
VGG11_BN_Weights = _enum("VGG11_BN_Weights", IMAGENET1K_V1=_w("vgg11_bn-6002323d.pth", 132868840, 70.370, 89.810,
                                                              min_size=(32, 32)))
VGG13_Weights = _enum("VGG13_Weights", IMAGENET1K_V1=_w("vgg13-19584684.pth", 133047848, 69.928, 89.246,
                                                        min_size=(32, 32)))
VGG13_BN_Weights = _enum("VGG13_BN_Weights", IMAGENET1K_V1=_w("vgg13_bn-abd245e5.pth", 133053736, 71.586, 90.374,
                                                              min_size=(32, 32)))
VGG16_Weights = _enum("VGG16_Weights", IMAGENET1K_V1=_w("vgg16-397923af.pth", 138357544, 71.592, 90.382,
                                                        min_size=(32, 32)),
                      # SSD's backbone (ported from amdegroot/ssd.pytorch): only `features` holds trained values,
                      # for inputs in [0, 255] minus the mean (std 1/255 undoes the [0, 1] scaling).
                      IMAGENET1K_FEATURES=Weights(
                          url=_URL + "vgg16_features-amdegroot-88682ab5.pth",
                          transforms=partial(ImageClassification, crop_size=224, mean=(0.48235, 0.45882, 0.40784),
                                             std=(1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0)),
                          meta={"num_params": 138357544, "num_classes": 1000, "categories": None,
                                "min_size": (32, 32),
                                "_metrics": {"ImageNet-1K": {"acc@1": float("nan"), "acc@5": float("nan")}}}))
VGG16_BN_Weights = _enum("VGG16_BN_Weights", IMAGENET1K_V1=_w("vgg16_bn-6c64b313.pth", 138365992, 73.360, 91.516,
                                                              min_size=(32, 32)))
VGG19_Weights = _enum("VGG19_Weights", IMAGENET1K_V1=_w("vgg19-dcbb9e9d.pth", 143667240, 72.376, 90.876,
                                                        min_size=(32, 32)))
VGG19_BN_Weights = _enum("VGG19_BN_Weights", IMAGENET1K_V1=_w("vgg19_bn-c79401a0.pth", 143678248, 74.218, 91.842,
                                                              min_size=(32, 32)))
SqueezeNet1_0_Weights = _enum("SqueezeNet1_0_Weights", IMAGENET1K_V1=_w("squeezenet1_0-b66bff10.pth", 1248424,
                                                                        58.092, 80.420, min_size=(21, 21)))
SqueezeNet1_1_Weights = _enum("SqueezeNet1_1_Weights", IMAGENET1K_V1=_w("squeezenet1_1-b8a52dc0.pth", 1235496,
                                                                        58.178, 80.624, min_size=(17, 17)))
DenseNet121_Weights = _enum("DenseNet121_Weights", IMAGENET1K_V1=_w("densenet121-a639ec97.pth", 7978856, 74.434,
                                                                    91.972, min_size=(29, 29)))
DenseNet161_Weights = _enum("DenseNet161_Weights", IMAGENET1K_V1=_w("densenet161-8d451a50.pth", 28681000, 77.138,
                                                                    93.560, min_size=(29, 29)))
DenseNet169_Weights = _enum("DenseNet169_Weights", IMAGENET1K_V1=_w("densenet169-b2777c0a.pth", 14149480, 75.600,
                                                                    92.806, min_size=(29, 29)))
DenseNet201_Weights = _enum("DenseNet201_Weights", IMAGENET1K_V1=_w("densenet201-c1103571.pth", 20013928, 76.896,
                                                                    93.370, min_size=(29, 29)))
GoogLeNet_Weights = _enum("GoogLeNet_Weights", IMAGENET1K_V1=_w("googlenet-1378be20.pth", 6624904, 69.778, 89.530,
                                                                min_size=(15, 15)))
Inception_V3_Weights = _enum("Inception_V3_Weights", IMAGENET1K_V1=_w("inception_v3_google-0cc3c7bd.pth", 27161264,
                                                                      77.294, 93.450, crop=299, resize=342,
                                                                      min_size=(75, 75)))
MobileNet_V2_Weights = _enum("MobileNet_V2_Weights", IMAGENET1K_V1=_w("mobilenet_v2-b0353104.pth", 3504872, 71.878,
                                                                      90.286))
MobileNet_V3_Large_Weights = _enum("MobileNet_V3_Large_Weights",
                                   IMAGENET1K_V1=_w("mobilenet_v3_large-8738ca79.pth", 5483032, 74.042, 91.340))
MobileNet_V3_Small_Weights = _enum("MobileNet_V3_Small_Weights",
                                   IMAGENET1K_V1=_w("mobilenet_v3_small-047dcff4.pth", 2542856, 67.668, 87.402))
