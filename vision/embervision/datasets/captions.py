"""Flickr8k (captions from the dataset's HTML page: a table of image links each followed by a list of
captions) and Flickr30k (a token file of "<image>#<n>\t<caption>" lines), as torchvision's
Flickr8k/Flickr30k; items are (RGB PIL image, list of captions)."""
import glob
import os
from collections import defaultdict
from html.parser import HTMLParser
from typing import Any, Callable, Dict, List, Optional, Tuple

from .vision import VisionDataset

__all__ = ["Flickr8k", "Flickr30k"]


class Flickr8kParser(HTMLParser):
    """Reads the captions page: inside its table, a link names an image (by the folder part of its URL,
    matched against root/<id>_*.jpg) and the list items after it are that image's captions."""

    def __init__(self, root: str) -> None:
        super().__init__()
        self.root = root
        self.annotations: Dict[str, List[str]] = {}
        self.in_table = False
        self.current_tag: Optional[str] = None
        self.current_img: Optional[str] = None

    def handle_starttag(self, tag: str, attrs) -> None:
        self.current_tag = tag
        if tag == "table":
            self.in_table = True

    def handle_endtag(self, tag: str) -> None:
        self.current_tag = None
        if tag == "table":
            self.in_table = False

    def handle_data(self, data: str) -> None:
        if not self.in_table:
            return
        if data == "Image Not Found":
            self.current_img = None
        elif self.current_tag == "a":
            img_id = data.split("/")[-2]
            matches = glob.glob(os.path.join(self.root, img_id + "_*.jpg"))
            if not matches:
                raise FileNotFoundError(f"Flickr8k: no image file {img_id}_*.jpg in {self.root}")
            self.current_img = matches[0]
            self.annotations[self.current_img] = []
        elif self.current_tag == "li" and self.current_img:
            self.annotations[self.current_img].append(data.strip())


class _Captions(VisionDataset):
    annotations: Dict[str, List[str]]
    ids: List[str]

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img_id = self.ids[index]
        img = Image.open(os.path.join(self.root, img_id)).convert("RGB")
        target = self.annotations[img_id]
        img, target = self._transform_pair(img, target)
        return img, target

    def __len__(self) -> int:
        return len(self.ids)


class Flickr8k(_Captions):
    def __init__(self, root: str, ann_file: str, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.ann_file = os.path.expanduser(ann_file)
        parser = Flickr8kParser(self.root)
        with open(self.ann_file) as fh:
            parser.feed(fh.read())
        self.annotations = parser.annotations
        self.ids = list(sorted(self.annotations.keys()))


class Flickr30k(_Captions):
    def __init__(self, root: str, ann_file: str, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.ann_file = os.path.expanduser(ann_file)
        self.annotations = defaultdict(list)
        with open(self.ann_file) as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    img_id, caption = line.rstrip("\n").split("\t")
                except ValueError:
                    raise ValueError(f"{self.ann_file}:{number}: expected '<image>#<n><TAB><caption>'") from None
                self.annotations[img_id[:-2]].append(caption)  # drop the "#n" caption number
        self.ids = list(sorted(self.annotations.keys()))
