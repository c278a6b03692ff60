"""Caltech101 (root/caltech101/101_ObjectCategories/<category>/image_NNNN.jpg, contours in
Annotations/<category>/annotation_NNNN.mat) and Caltech256 (root/caltech256/256_ObjectCategories/
NNN.<name>/NNN_NNNN.jpg), as torchvision.datasets.Caltech101/Caltech256."""
import os
from typing import Any, Callable, List, Optional, Tuple, Union

from .utils import verify_str_arg
from .vision import VisionDataset

__all__ = ["Caltech101", "Caltech256"]


def _no_drive_download(name: str, files: str, root: str) -> None:
    # torchvision fetches these from Google Drive, whose confirmation page our downloader does not handle.
    raise RuntimeError(f"{name}: download=True is not supported (the files are on Google Drive); download {files} "
                       f"from the dataset's page and extract them into {root}")


class Caltech101(VisionDataset):
    """target_type: "category", "annotation" (the object's contour, a 2 x N array) or a list of both."""

    # annotation folders named differently from their image folders
    _ANNOTATION_NAMES = {"Faces": "Faces_2", "Faces_easy": "Faces_3", "Motorbikes": "Motorbikes_16",
                         "airplanes": "Airplanes_Side_2"}

    def __init__(self, root: str, target_type: Union[List[str], str] = "category",
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = False) -> None:
        super().__init__(os.path.join(root, "caltech101"), transform=transform, target_transform=target_transform)
        os.makedirs(self.root, exist_ok=True)
        if isinstance(target_type, str):
            target_type = [target_type]
        self.target_type = [verify_str_arg(t, "target_type", ("category", "annotation")) for t in target_type]
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        self.categories = sorted(os.listdir(os.path.join(self.root, "101_ObjectCategories")))
        if "BACKGROUND_Google" in self.categories:
            self.categories.remove("BACKGROUND_Google")  # the clutter class is no category
        self.annotation_categories = [self._ANNOTATION_NAMES.get(c, c) for c in self.categories]
        self.index: List[int] = []
        self.y: List[int] = []
        for i, c in enumerate(self.categories):
            n = len(os.listdir(os.path.join(self.root, "101_ObjectCategories", c)))
            self.index.extend(range(1, n + 1))
            self.y.extend(n * [i])

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img = Image.open(os.path.join(self.root, "101_ObjectCategories", self.categories[self.y[index]],
                                      "image_{:04d}.jpg".format(self.index[index])))
        target: Any = []
        for t in self.target_type:
            if t == "category":
                target.append(self.y[index])
            else:
                import scipy.io
                folder = os.path.join(self.root, "Annotations", self.annotation_categories[self.y[index]])
                data = scipy.io.loadmat(os.path.join(folder, "annotation_{:04d}.mat".format(self.index[index])))
                target.append(data["obj_contour"])
        target = tuple(target) if len(target) > 1 else target[0]
        img, target = self._transform_pair(img, target)
        return img, target

    def _check_integrity(self) -> bool:
        return os.path.exists(os.path.join(self.root, "101_ObjectCategories"))

    def __len__(self) -> int:
        return len(self.index)

    def download(self) -> None:
        if not self._check_integrity():
            _no_drive_download("Caltech101", "101_ObjectCategories.tar.gz and Annotations.tar", self.root)

    def extra_repr(self) -> str:
        return "Target type: {target_type}".format(**self.__dict__)


class Caltech256(VisionDataset):
    def __init__(self, root: str, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = False) -> None:
        super().__init__(os.path.join(root, "caltech256"), transform=transform, target_transform=target_transform)
        os.makedirs(self.root, exist_ok=True)
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        self.categories = sorted(os.listdir(os.path.join(self.root, "256_ObjectCategories")))
        self.index: List[int] = []
        self.y: List[int] = []
        for i, c in enumerate(self.categories):
            n = len([item for item in os.listdir(os.path.join(self.root, "256_ObjectCategories", c))
                     if item.endswith(".jpg")])
            self.index.extend(range(1, n + 1))
            self.y.extend(n * [i])

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img = Image.open(os.path.join(self.root, "256_ObjectCategories", self.categories[self.y[index]],
                                      "{:03d}_{:04d}.jpg".format(self.y[index] + 1, self.index[index])))
        target = self.y[index]
        img, target = self._transform_pair(img, target)
        return img, target

    def _check_integrity(self) -> bool:
        return os.path.exists(os.path.join(self.root, "256_ObjectCategories"))

    def __len__(self) -> int:
        return len(self.index)

    def download(self) -> None:
        if not self._check_integrity():
            _no_drive_download("Caltech256", "256_ObjectCategories.tar", self.root)
