"""Caltech101 (root/caltech101/101_ObjectCategories/<category>/image_NNNN.jpg, contours in
Annotations/<category>/annotation_NNNN.mat) and Caltech256 (root/caltech256/256_ObjectCategories/
NNN.<name>/NNN_NNNN.jpg), as torchvision.datasets.Caltech101/Caltech256."""
import os
from typing import Any, Callable, List, Optional, Tuple, Union

from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["Caltech101", "Caltech256"]


def _download(resources: List[Tuple[str, str, str]], root: str) -> None:
    # Google Drive file URLs: download_url fetches them through download_file_from_google_drive
    for url, filename, md5 in resources:
        download_and_extract_archive(url, root, filename=filename, md5=md5)


class Caltech101(VisionDataset):
    """target_type: "category", "annotation" (the object's contour, a 2 x N array) or a list of both."""

    # (Google Drive URL, file name, MD5) of the archives, as torchvision's
    resources = [("https://drive.google.com/file/d/137RyRjvTBkBiIfeYBNZBtViDHQ6_Ewsp", "101_ObjectCategories.tar.gz",
                  "b224c7392d521a49829488ab0f1120d9"),
                 ("https://drive.google.com/file/d/175kQy3UsZ0wUEHZjqkUDdNVssr7bgh_m", "Annotations.tar",
                  "6f83eeb1f24d99cab4eb377263132c91")]
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
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        _download(self.resources, self.root)

    def extra_repr(self) -> str:
        return "Target type: {target_type}".format(**self.__dict__)


class Caltech256(VisionDataset):
    resources = [("https://drive.google.com/file/d/1r6o0pSROcV1_VwT4oSjA2FBUSCWGuxLK", "256_ObjectCategories.tar",
                  "67b4f42ca05d46448c6bb8ecd2220f6d")]

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
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        _download(self.resources, self.root)
