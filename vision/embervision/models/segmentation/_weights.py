"""Checkpoints of the segmentation models (torchvision's files, trained on COCO's images with the 20 Pascal
VOC categories)."""

from functools import partial

from .._api import Weights, WeightsEnum
from .._presets import SemanticSegmentation

_URL = "https://download.pytorch.org/models/"

VOC_CATEGORIES = [
    "__background__", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
    "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor",
]


def _enum(name, file, num_params, miou, pixel_acc):
    weights = Weights(url=_URL + file, transforms=partial(SemanticSegmentation, resize_size=520),
                      meta={"categories": VOC_CATEGORIES, "min_size": (1, 1), "num_params": num_params,
                            "_metrics": {"COCO-val2017-VOC-labels": {"miou": miou, "pixel_acc": pixel_acc}}})
    return WeightsEnum(name, {"COCO_WITH_VOC_LABELS_V1": weights, "DEFAULT": weights}, module=__name__)


FCN_ResNet50_Weights = _enum("FCN_ResNet50_Weights", "fcn_resnet50_coco-1167a1af.pth", 35322218, 60.5, 91.4)
FCN_ResNet101_Weights = _enum("FCN_ResNet101_Weights", "fcn_resnet101_coco-7ecb50ca.pth", 54314346, 63.7, 91.9)
DeepLabV3_ResNet50_Weights = _enum("DeepLabV3_ResNet50_Weights", "deeplabv3_resnet50_coco-cd0a2569.pth", 42004074,
                                   66.4, 92.4)
DeepLabV3_ResNet101_Weights = _enum("DeepLabV3_ResNet101_Weights", "deeplabv3_resnet101_coco-586e9e4e.pth",
                                    60996202, 67.4, 92.4)
DeepLabV3_MobileNet_V3_Large_Weights = _enum("DeepLabV3_MobileNet_V3_Large_Weights",
                                             "deeplabv3_mobilenet_v3_large-fc3c493d.pth", 11029328, 60.3, 91.2)
LRASPP_MobileNet_V3_Large_Weights = _enum("LRASPP_MobileNet_V3_Large_Weights",
                                          "lraspp_mobilenet_v3_large-d234d4ea.pth", 3221538, 57.9, 91.2)
