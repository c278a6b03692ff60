"""Places365 (root/categories_places365.txt, root/places365_<split>.txt listing "/<path> <class index>" lines,
images under data_{large,256}_{standard,challenge} or val_{large,256}), as torchvision.datasets.Places365."""
import os
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.parse import urljoin

from .folder import default_loader
from .utils import check_integrity, download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["Places365"]


class Places365(VisionDataset):
    """split: "train-standard", "train-challenge" or "val"; small: the 256 x 256 images instead of the large ones.
    The devkit (category and file lists) is checked by MD5 at construction; download=True fetches what is missing."""

    _SPLITS = ("train-standard", "train-challenge", "val")
    _BASE_URL = "http://data.csail.mit.edu/places/places365/"
    _DEVKIT_META = {
        "standard": ("filelist_places365-standard.tar", "35a0585fee1fa656440f3ab298f8479c"),
        "challenge": ("filelist_places365-challenge.tar", "70a8307e459c3de41690a7c76c931734"),
    }
    _CATEGORIES_META = ("categories_places365.txt", "06c963b85866bd0649f97cb43dd16673")
    _FILE_LIST_META = {
        "train-standard": ("places365_train_standard.txt", "30f37515461640559006b8329efbed1a"),
        "train-challenge": ("places365_train_challenge.txt", "b2931dc997b8c33c27e7329c073a6b57"),
        "val": ("places365_val.txt", "e9f2fd57bfd9d07630173f4e8708e4b1"),
    }
    _IMAGES_META = {
        ("train-standard", False): ("train_large_places365standard.tar", "67e186b496a84c929568076ed01a8aa1"),
        ("train-challenge", False): ("train_large_places365challenge.tar", "605f18e68e510c82b958664ea134545f"),
        ("val", False): ("val_large.tar", "9b71c4993ad89d2d8bcbdc4aef38042f"),
        ("train-standard", True): ("train_256_places365standard.tar", "53ca1c756c3d1e7809517cc47c5561c5"),
        ("train-challenge", True): ("train_256_places365challenge.tar", "741915038a5e3471ec7332404dfb64ef"),
        ("val", True): ("val_256.tar", "e27b17d8d44f4af9a78502beb927f808"),
    }

    def __init__(self, root: str, split: str = "train-standard", small: bool = False, download: bool = False,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 loader: Callable[[str], Any] = default_loader) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", self._SPLITS)
        self.small = small
        self.loader = loader
        self.classes, self.class_to_idx = self.load_categories(download)
        self.imgs, self.targets = self.load_file_list(download)
        if download:
            self.download_images()

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        file, target = self.imgs[index]
        image = self.loader(file)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self) -> int:
        return len(self.imgs)

    @property
    def variant(self) -> str:
        return "challenge" if "challenge" in self.split else "standard"

    @property
    def images_dir(self) -> str:
        size = "256" if self.small else "large"
        folder = f"data_{size}_{self.variant}" if self.split.startswith("train") else f"{self.split}_{size}"
        return os.path.join(self.root, folder)

    def load_categories(self, download: bool = True) -> Tuple[List[str], Dict[str, int]]:
        file, md5 = self._CATEGORIES_META
        file = os.path.join(self.root, file)
        if not self._check_integrity(file, md5, download):
            self.download_devkit()
        class_to_idx = {}
        with open(file) as fh:
            for line in fh:
                name, idx = line.split()
                class_to_idx[name] = int(idx)
        return sorted(class_to_idx.keys()), class_to_idx

    def load_file_list(self, download: bool = True) -> Tuple[List[Tuple[str, int]], List[int]]:
        file, md5 = self._FILE_LIST_META[self.split]
        file = os.path.join(self.root, file)
        if not self._check_integrity(file, md5, download):
            self.download_devkit()
        images = []
        with open(file) as fh:
            for line in fh:
                image, idx = line.split()
                images.append((os.path.join(self.images_dir, image.lstrip("/").replace("/", os.sep)), int(idx)))
        return images, [target for _, target in images]

    def download_devkit(self) -> None:
        file, md5 = self._DEVKIT_META[self.variant]
        download_and_extract_archive(urljoin(self._BASE_URL, file), self.root, md5=md5)

    def download_images(self) -> None:
        if os.path.exists(self.images_dir):
            return
        file, md5 = self._IMAGES_META[(self.split, self.small)]
        download_and_extract_archive(urljoin(self._BASE_URL, file), self.root, md5=md5)
        if self.split.startswith("train"):  # the archives hold data_{size}/: name it for its variant
            os.rename(self.images_dir.rsplit("_", 1)[0], self.images_dir)

    def extra_repr(self) -> str:
        return "\n".join(("Split: {split}", "Small: {small}")).format(**self.__dict__)

    def _check_integrity(self, file: str, md5: str, download: bool) -> bool:
        integrity = check_integrity(file, md5=md5)
        if not integrity and not download:
            raise RuntimeError(f"The file {file} does not exist or is corrupted. You can set download=True to "
                               f"download it.")
        return integrity
