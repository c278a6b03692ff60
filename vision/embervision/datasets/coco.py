"""COCO detection and captions from an annotation JSON (images, annotations) and an image folder, as
torchvision.datasets.CocoDetection/CocoCaptions. torchvision reads the JSON through pycocotools; we
index it ourselves (annotations grouped by image id, in file order, as pycocotools' getAnnIds gives)."""
import json
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from .vision import VisionDataset

__all__ = ["CocoDetection", "CocoCaptions"]


class CocoDetection(VisionDataset):
    """Items: (RGB image, list of the image's annotation dicts)."""

    def __init__(self, root: str, annFile: str, transform: Optional[Callable] = None,  # noqa: N803 (torchvision's name)
                 target_transform: Optional[Callable] = None, transforms: Optional[Callable] = None) -> None:
        super().__init__(root, transforms, transform, target_transform)
        with open(annFile) as f:
            dataset = json.load(f)
        if not isinstance(dataset, dict) or "images" not in dataset:
            raise ValueError(f"{annFile}: not a COCO annotation file (no 'images' list)")
        self.imgs: Dict[int, Dict[str, Any]] = {img["id"]: img for img in dataset["images"]}
        self.img_to_anns: Dict[int, List[Dict[str, Any]]] = {i: [] for i in self.imgs}
        for ann in dataset.get("annotations", []):
            self.img_to_anns.setdefault(ann["image_id"], []).append(ann)
        self.ids = list(sorted(self.imgs.keys()))

    def _load_image(self, id: int):
        from PIL import Image
        return Image.open(os.path.join(self.root, self.imgs[id]["file_name"])).convert("RGB")

    def _load_target(self, id: int) -> List[Any]:
        return list(self.img_to_anns.get(id, []))

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        id = self.ids[index]
        image, target = self._load_image(id), self._load_target(id)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self) -> int:
        return len(self.ids)


class CocoCaptions(CocoDetection):
    """Items: (RGB image, list of the image's caption strings)."""

    def _load_target(self, id: int) -> List[str]:
        return [ann["caption"] for ann in super()._load_target(id)]
