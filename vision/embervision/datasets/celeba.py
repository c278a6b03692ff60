"""CelebA from root/celeba: img_align_celeba/ and the text files list_eval_partition.txt, identity_CelebA.txt,
list_bbox_celeba.txt, list_landmarks_align_celeba.txt, list_attr_celeba.txt (space-separated rows after a
count line and a header line), each MD5 checked, as torchvision.datasets.CelebA. download=True fetches them
from Google Drive (download_file_from_google_drive) and extracts img_align_celeba.zip."""
import csv
import os
from collections import namedtuple
from typing import Any, Callable, List, Optional, Tuple, Union

import ember

from .utils import check_integrity, download_file_from_google_drive, extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["CelebA"]

CSV = namedtuple("CSV", ["header", "index", "data"])


class CelebA(VisionDataset):
    """target_type: "attr" (40 binary attributes), "identity", "bbox", "landmarks", or a list of them."""

    base_folder = "celeba"
    file_list = [  # (Google Drive id, MD5, file name)
        ("0B7EVK8r0v71pZjFTYXZWM3FlRnM", "00d2c5bc6d35e252742224ab0c1e8fcb", "img_align_celeba.zip"),
        ("0B7EVK8r0v71pblRyaVFSWGxPY0U", "75e246fa4810816ffd6ee81facbd244c", "list_attr_celeba.txt"),
        ("1_ee_0u7vcNLOfNLegJRHmolfH5ICW-XS", "32bd1bd63d3c78cd57e08160ec5ed1e2", "identity_CelebA.txt"),
        ("0B7EVK8r0v71pbThiMVRxWXZ4dU0", "00566efa6fedff7a56946cd1c10f1c16", "list_bbox_celeba.txt"),
        ("0B7EVK8r0v71pd0FJY3Blby1HUTQ", "cc24ecafdb5b50baae59b03474781f8c", "list_landmarks_align_celeba.txt"),
        ("0B7EVK8r0v71pY0NSMzRuSXJEVkk", "d32c9cbf5e040fd4025c592c306e6668", "list_eval_partition.txt"),
    ]

    def __init__(self, root: str, split: str = "train", target_type: Union[List[str], str] = "attr",
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = split
        self.target_type = target_type if isinstance(target_type, list) else [target_type]
        if not self.target_type and self.target_transform is not None:
            raise RuntimeError("target_transform is specified but target_type is empty")
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        split_map = {"train": 0, "valid": 1, "test": 2, "all": None}
        split_ = split_map[verify_str_arg(split.lower(), "split", ("train", "valid", "test", "all"))]
        splits = self._load_csv("list_eval_partition.txt")
        identity = self._load_csv("identity_CelebA.txt")
        bbox = self._load_csv("list_bbox_celeba.txt", header=1)
        landmarks_align = self._load_csv("list_landmarks_align_celeba.txt", header=1)
        attr = self._load_csv("list_attr_celeba.txt", header=1)
        if split_ is None:
            rows = list(range(len(splits.index)))
        else:
            rows = [i for i, s in enumerate(splits.data[:, 0].tolist()) if s == split_]
        picks = ember.tensor(rows, dtype=ember.long)
        self.filename = [splits.index[i] for i in rows]
        self.identity = identity.data[picks]
        self.bbox = bbox.data[picks]
        self.landmarks_align = landmarks_align.data[picks]
        self.attr = ember.div(attr.data[picks] + 1, 2, rounding_mode="floor")  # {-1, 1} -> {0, 1}
        self.attr_names = attr.header

    def _load_csv(self, filename: str, header: Optional[int] = None) -> CSV:
        with open(os.path.join(self.root, self.base_folder, filename)) as csv_file:
            data = list(csv.reader(csv_file, delimiter=" ", skipinitialspace=True))
        headers: List[str] = []
        if header is not None:
            headers = [h for h in data[header] if h]  # the real header line ends in a space
            data = data[header + 1:]
        data = [row for row in data if row]
        indices = [row[0] for row in data]
        values = [[int(v) for v in row[1:] if v != ""] for row in data]
        return CSV(headers, indices, ember.tensor(values, dtype=ember.long))

    def _check_integrity(self) -> bool:
        for _, md5, filename in self.file_list:
            if os.path.splitext(filename)[1] not in (".zip", ".7z") and \
                    not check_integrity(os.path.join(self.root, self.base_folder, filename), md5):
                return False
        return os.path.isdir(os.path.join(self.root, self.base_folder, "img_align_celeba"))

    def download(self) -> None:
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        folder = os.path.join(self.root, self.base_folder)
        for file_id, md5, filename in self.file_list:
            download_file_from_google_drive(file_id, folder, filename, md5)
        extract_archive(os.path.join(folder, "img_align_celeba.zip"))

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        X = Image.open(os.path.join(self.root, self.base_folder, "img_align_celeba", self.filename[index]))
        target: Any = []
        for t in self.target_type:
            if t == "attr":
                target.append(self.attr[index, :])
            elif t == "identity":
                target.append(self.identity[index, 0])
            elif t == "bbox":
                target.append(self.bbox[index, :])
            elif t == "landmarks":
                target.append(self.landmarks_align[index, :])
            else:
                raise ValueError(f'Target type "{t}" is not recognized.')
        if self.transform is not None:
            X = self.transform(X)
        if target:
            target = tuple(target) if len(target) > 1 else target[0]
            if self.target_transform is not None:
                target = self.target_transform(target)
        else:
            target = None
        return X, target

    def __len__(self) -> int:
        return len(self.attr)

    def extra_repr(self) -> str:
        lines = ["Target type: {target_type}", "Split: {split}"]
        return "\n".join(lines).format(**self.__dict__)
