"""Pascal VOC detection and segmentation (years 2007-2012) from the VOCdevkit layout: ImageSets/<Main or
Segmentation>/<image_set>.txt lists the ids, JPEGImages/<id>.jpg the images, Annotations/<id>.xml or
SegmentationClass/<id>.png the targets, as torchvision.datasets.VOCDetection/VOCSegmentation."""
import collections
import os
from typing import Any, Callable, Dict, Optional, Tuple
from xml.etree.ElementTree import Element as ET_Element
from xml.etree.ElementTree import parse as ET_parse

from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["VOCDetection", "VOCSegmentation"]

_HOST = "http://host.robots.ox.ac.uk/pascal/VOC/"
DATASET_YEAR_DICT = {
    "2012": (f"{_HOST}voc2012/VOCtrainval_11-May-2012.tar", "6cd6e144f989b92b3379bac3b3de84fd",
             os.path.join("VOCdevkit", "VOC2012")),
    "2011": (f"{_HOST}voc2011/VOCtrainval_25-May-2011.tar", "6c3384ef61512963050cb5d687e5bf1e",
             os.path.join("TrainVal", "VOCdevkit", "VOC2011")),
    "2010": (f"{_HOST}voc2010/VOCtrainval_03-May-2010.tar", "da459979d0c395079b5c75ee67908abb",
             os.path.join("VOCdevkit", "VOC2010")),
    "2009": (f"{_HOST}voc2009/VOCtrainval_11-May-2009.tar", "a3e00b113cfcfebf17e343f59da3caa1",
             os.path.join("VOCdevkit", "VOC2009")),
    "2008": (f"{_HOST}voc2008/VOCtrainval_14-Jul-2008.tar", "2629fa636546599198acfcfbfcf1904a",
             os.path.join("VOCdevkit", "VOC2008")),
    "2007": (f"{_HOST}voc2007/VOCtrainval_06-Nov-2007.tar", "c52e279531787c972589f7e41ab4ae64",
             os.path.join("VOCdevkit", "VOC2007")),
    "2007-test": (f"{_HOST}voc2007/VOCtest_06-Nov-2007.tar", "b6e924de25625d8de591ea690078ad9f",
                  os.path.join("VOCdevkit", "VOC2007")),
}


class _VOCBase(VisionDataset):
    _SPLITS_DIR: str
    _TARGET_DIR: str
    _TARGET_FILE_EXT: str

    def __init__(self, root: str, year: str = "2012", image_set: str = "train", download: bool = False,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 transforms: Optional[Callable] = None) -> None:
        super().__init__(root, transforms, transform, target_transform)
        self.year = verify_str_arg(year, "year", [y for y in DATASET_YEAR_DICT if y != "2007-test"])
        valid_image_sets = ["train", "trainval", "val"] + (["test"] if year == "2007" else [])
        self.image_set = verify_str_arg(image_set, "image_set", valid_image_sets)
        key = "2007-test" if year == "2007" and image_set == "test" else year
        self.url, self.md5, base_dir = DATASET_YEAR_DICT[key]
        self.filename = os.path.basename(self.url)
        voc_root = os.path.join(self.root, base_dir)
        if download:
            download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.md5)
        if not os.path.isdir(voc_root):
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        split_file = os.path.join(voc_root, "ImageSets", self._SPLITS_DIR, image_set.rstrip("\n") + ".txt")
        with open(split_file) as f:
            file_names = [x.strip() for x in f.readlines() if x.strip()]
        self.images = [os.path.join(voc_root, "JPEGImages", x + ".jpg") for x in file_names]
        self.targets = [os.path.join(voc_root, self._TARGET_DIR, x + self._TARGET_FILE_EXT) for x in file_names]

    def __len__(self) -> int:
        return len(self.images)


class VOCSegmentation(_VOCBase):
    """Items: (RGB image, the class-index PNG as stored: a "P" image)."""
    _SPLITS_DIR = "Segmentation"
    _TARGET_DIR = "SegmentationClass"
    _TARGET_FILE_EXT = ".png"

    @property
    def masks(self):
        return self.targets

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img = Image.open(self.images[index]).convert("RGB")
        target = Image.open(self.masks[index])
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


class VOCDetection(_VOCBase):
    """Items: (RGB image, the annotation XML as nested dicts; "object" is always a list)."""
    _SPLITS_DIR = "Main"
    _TARGET_DIR = "Annotations"
    _TARGET_FILE_EXT = ".xml"

    @property
    def annotations(self):
        return self.targets

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img = Image.open(self.images[index]).convert("RGB")
        target = self.parse_voc_xml(ET_parse(self.annotations[index]).getroot())
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target

    @staticmethod
    def parse_voc_xml(node: ET_Element) -> Dict[str, Any]:
        """An element as {tag: text} for a leaf, or {tag: {child tag: value or list of values}}."""
        children = list(node)
        if not children:
            return {node.tag: node.text.strip()} if node.text else {}
        grouped: Dict[str, list] = collections.defaultdict(list)
        for child in children:
            for tag, value in VOCDetection.parse_voc_xml(child).items():
                grouped[tag].append(value)
        if node.tag == "annotation":
            grouped["object"] = [grouped["object"]]  # a list even when the image has one object
        return {node.tag: {tag: v[0] if len(v) == 1 else v for tag, v in grouped.items()}}
