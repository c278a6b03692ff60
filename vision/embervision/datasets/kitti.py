"""KITTI 2D object detection (root/Kitti/raw/{training,testing}/image_2/*.png, training/label_2/*.txt with one
object a line), as torchvision.datasets.Kitti."""
import csv
import os
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.error import URLError

from .utils import download_and_extract_archive
from .vision import VisionDataset

__all__ = ["Kitti"]


class Kitti(VisionDataset):
    """(image, target): target is None for the test split, else a list of one dict per labelled object with keys
    type (str), truncated (float), occluded (int), alpha (float), bbox (4 floats: left, top, right, bottom),
    dimensions (3 floats: height, width, length), location (3 floats: x, y, z) and rotation_y (float)."""

    data_url = "https://s3.eu-central-1.amazonaws.com/avg-kitti/"
    resources = ["data_object_image_2.zip", "data_object_label_2.zip"]
    image_dir_name = "image_2"
    labels_dir_name = "label_2"

    def __init__(self, root: str, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, transforms: Optional[Callable] = None,
                 download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform, transforms=transforms)
        self.images: List[str] = []
        self.targets: List[str] = []
        self.train = train
        self._location = "training" if self.train else "testing"
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You may use download=True to download it.")
        image_dir = os.path.join(self._raw_folder, self._location, self.image_dir_name)
        labels_dir = os.path.join(self._raw_folder, self._location, self.labels_dir_name)
        for img_file in sorted(os.listdir(image_dir)):
            self.images.append(os.path.join(image_dir, img_file))
            if self.train:
                self.targets.append(os.path.join(labels_dir, f"{img_file.split('.')[0]}.txt"))

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        image = Image.open(self.images[index])
        target = self._parse_target(index) if self.train else None
        if self.transforms:
            image, target = self.transforms(image, target)
        return image, target

    def _parse_target(self, index: int) -> List[Dict[str, Any]]:
        target = []
        with open(self.targets[index]) as inp:
            for line in csv.reader(inp, delimiter=" "):
                if len(line) < 15:
                    raise ValueError(f"Kitti: {self.targets[index]}: a label line has {len(line)} fields, expected "
                                     f"15 (type truncated occluded alpha bbox[4] dimensions[3] location[3] "
                                     f"rotation_y)")
                target.append({
                    "type": line[0],
                    "truncated": float(line[1]),
                    "occluded": int(line[2]),
                    "alpha": float(line[3]),
                    "bbox": [float(x) for x in line[4:8]],
                    "dimensions": [float(x) for x in line[8:11]],
                    "location": [float(x) for x in line[11:14]],
                    "rotation_y": float(line[14]),
                })
        return target

    def __len__(self) -> int:
        return len(self.images)

    @property
    def _raw_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "raw")

    def _check_exists(self) -> bool:
        folders = [self.image_dir_name]
        if self.train:
            folders.append(self.labels_dir_name)
        return all(os.path.isdir(os.path.join(self._raw_folder, self._location, f)) for f in folders)

    def download(self) -> None:
        """The image and label archives, extracted into root/Kitti/raw (a failed download is reported and the
        check that follows raises)."""
        if self._check_exists():
            return
        os.makedirs(self._raw_folder, exist_ok=True)
        for fname in self.resources:
            try:
                download_and_extract_archive(url=f"{self.data_url}{fname}", download_root=self._raw_folder,
                                             filename=fname)
            except URLError as error:
                print(f"Error downloading {fname}: {error}")
