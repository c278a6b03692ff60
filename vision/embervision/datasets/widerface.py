"""WIDERFace from root/widerface: WIDER_<split>/images/<event>/<image>.jpg and wider_face_split/'s
annotation files (per image: its path, the face count, then one line of 10 integers per face), as
torchvision.datasets.WIDERFace; test images have no target. The columns get torchvision's keys: bbox
(x, y, w, h), blur, expression, illumination, occlusion, pose, invalid (WIDER's readme lists the last
three as invalid, occlusion, pose; we keep torchvision's reading so targets match it)."""
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

import ember

from .utils import download_and_extract_archive, download_file_from_google_drive, extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["WIDERFace"]


class WIDERFace(VisionDataset):
    BASE_FOLDER = "widerface"
    # the folders the three image zips and the annotation zip extract to
    EXTRACTED = ("WIDER_train", "WIDER_val", "WIDER_test", "wider_face_split")
    FILE_LIST = [  # (Google Drive id, MD5, file name), as torchvision's
        ("15hGDLhsx8bLgLcIRD5DhYt5iBxnjNF1M", "3fedf70df600953d25982bcd13d91ba2", "WIDER_train.zip"),
        ("1GUCogbp16PMGa39thoMMeWxp7Rp5oM8Q", "dfa7d7e790efa35df3788964cf0bbaea", "WIDER_val.zip"),
        ("1HIfDbVEWKmsYKJZm4lchTBDLW5N7dY5T", "e5d8f4248ed24c334bbd12f49c29dd40", "WIDER_test.zip"),
    ]
    ANNOTATIONS_FILE = ("http://shuoyang1213.me/WIDERFACE/support/bbx_annotation/wider_face_split.zip",
                        "0e3767bcf0e326556d407bf5bff5d27c", "wider_face_split.zip")

    def __init__(self, root: str, split: str = "train", transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(os.path.join(root, self.BASE_FOLDER), transform=transform,
                         target_transform=target_transform)
        self.split = verify_str_arg(split, "split", ("train", "val", "test"))
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        self.img_info: List[Dict[str, Any]] = []
        if self.split in ("train", "val"):
            self.parse_train_val_annotations_file()
        else:
            self.parse_test_annotations_file()

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img = Image.open(self.img_info[index]["img_path"])
        target = None if self.split == "test" else self.img_info[index]["annotations"]
        img, target = self._transform_pair(img, target)
        return img, target

    def __len__(self) -> int:
        return len(self.img_info)

    def parse_train_val_annotations_file(self) -> None:
        filename = "wider_face_train_bbx_gt.txt" if self.split == "train" else "wider_face_val_bbx_gt.txt"
        filepath = os.path.join(self.root, "wider_face_split", filename)
        with open(filepath) as f:
            lines = [line.rstrip() for line in f]
        at = 0
        while at < len(lines):
            if not lines[at]:
                at += 1
                continue
            img_path = os.path.abspath(os.path.join(self.root, "WIDER_" + self.split, "images", lines[at]))
            try:
                num_boxes = int(lines[at + 1])
                # an image without faces still has one line (of zeros) after its count of 0
                rows = lines[at + 2:at + 2 + max(num_boxes, 1)]
                labels = ember.tensor([[int(x) for x in row.split()] for row in rows], dtype=ember.long)
            except (IndexError, ValueError):
                raise RuntimeError(f"Error parsing annotation file {filepath} at line {at + 1}") from None
            if labels.dim() != 2 or labels.shape[1] != 10 or len(rows) != max(num_boxes, 1):
                raise RuntimeError(f"Error parsing annotation file {filepath} at line {at + 1}")
            self.img_info.append({"img_path": img_path, "annotations": {
                "bbox": labels[:, 0:4], "blur": labels[:, 4], "expression": labels[:, 5],
                "illumination": labels[:, 6], "occlusion": labels[:, 7], "pose": labels[:, 8],
                "invalid": labels[:, 9]}})
            at += 2 + max(num_boxes, 1)

    def parse_test_annotations_file(self) -> None:
        filepath = os.path.join(self.root, "wider_face_split", "wider_face_test_filelist.txt")
        with open(filepath) as f:
            for line in f:
                if line.strip():
                    self.img_info.append({"img_path": os.path.join(self.root, "WIDER_test", "images", line.rstrip())})

    def _check_integrity(self) -> bool:
        return all(os.path.exists(os.path.join(self.root, folder)) for folder in self.EXTRACTED)

    def download(self) -> None:
        """The image zips from Google Drive and the annotation zip from the dataset's site, each MD5-checked and
        extracted."""
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        for file_id, md5, filename in self.FILE_LIST:
            download_file_from_google_drive(file_id, self.root, filename, md5)
            extract_archive(os.path.join(self.root, filename))
        url, md5, filename = self.ANNOTATIONS_FILE
        download_and_extract_archive(url=url, download_root=self.root, filename=filename, md5=md5)

    def extra_repr(self) -> str:
        return "Split: {split}".format(**self.__dict__)
