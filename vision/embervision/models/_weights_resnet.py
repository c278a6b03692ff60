"""ResNet-family checkpoints (torchvision's published files; the hash part of each name is checked)."""

from functools import partial

from ._api import Weights, WeightsEnum
from ._presets import ImageClassification

_URL = "https://download.pytorch.org/models/"


def _w(file, num_params, acc1, acc5, crop=224, resize=256):
    return Weights(url=_URL + file, transforms=partial(ImageClassification, crop_size=crop, resize_size=resize),
                   meta={"num_params": num_params, "num_classes": 1000, "min_size": (1, 1),
                         "_metrics": {"ImageNet-1K": {"acc@1": acc1, "acc@5": acc5}}})


class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet18-f37072fd.pth", 11689512, 69.758, 89.078)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet34-b627a593.pth", 21797672, 73.314, 91.420)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet50-0676ba61.pth", 25557032, 76.130, 92.862)
    IMAGENET1K_V2 = _w("resnet50-11ad3fa6.pth", 25557032, 80.858, 95.434, resize=232)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet101-63fe2227.pth", 44549160, 77.374, 93.546)
    DEFAULT = IMAGENET1K_V1


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet152-394f9c45.pth", 60192808, 78.312, 94.046)
    DEFAULT = IMAGENET1K_V1


class ResNeXt50_32X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnext50_32x4d-7cdf4587.pth", 25028904, 77.618, 93.698)
    DEFAULT = IMAGENET1K_V1


class ResNeXt101_32X8D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnext101_32x8d-8ba56ff5.pth", 88791336, 79.312, 94.526)
    DEFAULT = IMAGENET1K_V1


class ResNeXt101_64X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnext101_64x4d-173b62eb.pth", 83455272, 83.246, 96.454, resize=232)
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet50_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("wide_resnet50_2-95faca4d.pth", 68883240, 78.468, 94.086)
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet101_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("wide_resnet101_2-32ee1156.pth", 126886696, 78.848, 94.284)
    DEFAULT = IMAGENET1K_V1
