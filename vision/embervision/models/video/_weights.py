"""Checkpoints of the video ResNets: torchvision's files trained on Kinetics-400 (16-frame clips at 112x112)."""

from functools import partial

from .._api import Weights, WeightsEnum
from .._presets import VideoClassification
from ._kinetics import KINETICS400_CATEGORIES

_URL = "https://download.pytorch.org/models/"


def _kinetics400(file, num_params, acc1, acc5, ops, file_size):
    return Weights(
        url=_URL + file, transforms=partial(VideoClassification, crop_size=(112, 112), resize_size=(128, 171)),
        meta={"min_size": (1, 1), "min_temporal_size": 1, "categories": KINETICS400_CATEGORIES,
              "recipe": "https://github.com/pytorch/vision/tree/main/references/video_classification",
              "_docs": "The weights reproduce closely the accuracy of the paper. The accuracies are estimated on "
                       "video-level with parameters `frame_rate=15`, `clips_per_video=5`, and `clip_len=16`.",
              "num_params": num_params, "_metrics": {"Kinetics-400": {"acc@1": acc1, "acc@5": acc5}},
              "_ops": ops, "_file_size": file_size})


class R3D_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics400("r3d_18-b3b3357e.pth", 33371472, 63.200, 83.479, 40.697, 127.359)
    DEFAULT = KINETICS400_V1


class MC3_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics400("mc3_18-a90a0ba3.pth", 11695440, 63.960, 84.130, 43.343, 44.672)
    DEFAULT = KINETICS400_V1


class R2Plus1D_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics400("r2plus1d_18-91a641e6.pth", 31505325, 67.463, 86.175, 40.519, 120.318)
    DEFAULT = KINETICS400_V1
