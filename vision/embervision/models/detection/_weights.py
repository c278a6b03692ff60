"""Checkpoints of the detection models (torchvision's published COCO files) and the COCO category names
(91 slots: index 0 the background, "N/A" the ids COCO leaves unused)."""

from .._api import Weights, WeightsEnum
from .._presets import ObjectDetection

_URL = "https://download.pytorch.org/models/"

COCO_CATEGORIES = [
    "__background__", "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat",
    "traffic light", "fire hydrant", "N/A", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse",
    "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "N/A", "backpack", "umbrella", "N/A", "N/A", "handbag",
    "tie", "suitcase", "frisbee", "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove",
    "skateboard", "surfboard", "tennis racket", "bottle", "N/A", "wine glass", "cup", "fork", "knife", "spoon", "bowl",
    "banana", "apple", "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair",
    "couch", "potted plant", "bed", "N/A", "dining table", "N/A", "N/A", "toilet", "N/A", "tv", "laptop", "mouse",
    "remote", "keyboard", "cell phone", "microwave", "oven", "toaster", "sink", "refrigerator", "N/A", "book",
    "clock", "vase", "scissors", "teddy bear", "hair drier", "toothbrush",
]


def _coco(file, num_params, box_map, **metrics):
    return Weights(url=_URL + file, transforms=ObjectDetection,
                   meta={"categories": COCO_CATEGORIES, "min_size": (1, 1), "num_params": num_params,
                         "_metrics": {"COCO-val2017": {"box_map": box_map, **metrics}}})


def _enum(name, **members):
    members["DEFAULT"] = members["COCO_V1"]
    return WeightsEnum(name, members, module=__name__)


FasterRCNN_ResNet50_FPN_Weights = _enum(
    "FasterRCNN_ResNet50_FPN_Weights", COCO_V1=_coco("fasterrcnn_resnet50_fpn_coco-258fb6c6.pth", 41755286, 37.0))
FasterRCNN_MobileNet_V3_Large_FPN_Weights = _enum(
    "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
    COCO_V1=_coco("fasterrcnn_mobilenet_v3_large_fpn-fb6a3cc7.pth", 19386354, 32.8))
FasterRCNN_MobileNet_V3_Large_320_FPN_Weights = _enum(
    "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights",
    COCO_V1=_coco("fasterrcnn_mobilenet_v3_large_320_fpn-907ea3f9.pth", 19386354, 22.8))
RetinaNet_ResNet50_FPN_Weights = _enum(
    "RetinaNet_ResNet50_FPN_Weights", COCO_V1=_coco("retinanet_resnet50_fpn_coco-eeacb38b.pth", 34014999, 36.4))
MaskRCNN_ResNet50_FPN_Weights = _enum(
    "MaskRCNN_ResNet50_FPN_Weights",
    COCO_V1=_coco("maskrcnn_resnet50_fpn_coco-bf2d0c1e.pth", 44401393, 37.9, mask_map=34.6))
FCOS_ResNet50_FPN_Weights = _enum(
    "FCOS_ResNet50_FPN_Weights", COCO_V1=_coco("fcos_resnet50_fpn_coco-99b0c9b7.pth", 32269600, 39.2))
SSD300_VGG16_Weights = _enum(
    "SSD300_VGG16_Weights", COCO_V1=_coco("ssd300_vgg16_coco-b556d3b4.pth", 35641826, 25.1))
SSDLite320_MobileNet_V3_Large_Weights = _enum(
    "SSDLite320_MobileNet_V3_Large_Weights",
    COCO_V1=_coco("ssdlite320_mobilenet_v3_large_coco-a79551df.pth", 3440060, 21.3))

COCO_PERSON_KEYPOINT_NAMES = [
    "nose", "left_eye", "right_eye", "left_ear", "right_ear", "left_shoulder", "right_shoulder", "left_elbow",
    "right_elbow", "left_wrist", "right_wrist", "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle",
    "right_ankle",
]


def _keypoint(file, box_map, kp_map):
    return Weights(url=_URL + file, transforms=ObjectDetection,
                   meta={"categories": ["__background__", "person"], "keypoint_names": COCO_PERSON_KEYPOINT_NAMES,
                         "min_size": (1, 1), "num_params": 59137258,
                         "_metrics": {"COCO-val2017": {"box_map": box_map, "kp_map": kp_map}}})


KeypointRCNN_ResNet50_FPN_Weights = WeightsEnum("KeypointRCNN_ResNet50_FPN_Weights", {
    "COCO_LEGACY": _keypoint("keypointrcnn_resnet50_fpn_coco-9f466800.pth", 50.6, 61.1),
    "COCO_V1": _keypoint("keypointrcnn_resnet50_fpn_coco-fc266e95.pth", 54.6, 65.0),
    "DEFAULT": _keypoint("keypointrcnn_resnet50_fpn_coco-fc266e95.pth", 54.6, 65.0),
}, module=__name__)
