"""ImageList: a batch of images padded to one size, with each image's size before padding (a scripted class,
so scripted detectors pass it between their stages as torchvision's do)."""
from typing import List, Tuple

import ember
from ember import Tensor


@ember.jit.script
class ImageList:
    def __init__(self, tensors: Tensor, image_sizes: List[Tuple[int, int]]):
        self.tensors = tensors
        self.image_sizes = image_sizes

    def to(self, device: ember.device) -> "ImageList":
        return ImageList(self.tensors.to(device), self.image_sizes)
