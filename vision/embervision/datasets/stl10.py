"""STL10 from its binary files (root/stl10_binary: *_X.bin uint8 images stored column-major [N, 3, 96, 96],
*_y.bin labels 1..10, fold_indices.txt, class_names.txt), MD5 checked, as torchvision.datasets.STL10;
items are (PIL RGB image, int), the target -1 for unlabeled images."""
import os
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .utils import check_integrity, download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["STL10"]


class STL10(VisionDataset):
    base_folder = "stl10_binary"
    url = "http://ai.stanford.edu/~acoates/stl10/stl10_binary.tar.gz"
    filename = "stl10_binary.tar.gz"
    tgz_md5 = "91f7769df0f17e558f3565bffb0c7dfb"
    class_names_file = "class_names.txt"
    folds_list_file = "fold_indices.txt"
    train_list = [["train_X.bin", "918c2871b30a85fa023e0c44e0bee87f"],
                  ["train_y.bin", "5a34089d4802c674881badbb80307741"],
                  ["unlabeled_X.bin", "5242ba1fed5e4be9e1e742405eb56ca4"]]
    test_list = [["test_X.bin", "7f263ba9f9e0b06b93213547f721ac82"], ["test_y.bin", "36f9794fa4beb8a2c72628de14fa638e"]]
    splits = ("train", "train+unlabeled", "unlabeled", "test")

    def __init__(self, root: str, split: str = "train", folds: Optional[int] = None,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", self.splits)
        self.folds = self._verify_folds(folds)
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        if self.split == "train":
            self.data, self.labels = self._load(self.train_list[0][0], self.train_list[1][0])
            self._load_folds(folds)
        elif self.split == "train+unlabeled":
            self.data, self.labels = self._load(self.train_list[0][0], self.train_list[1][0])
            self._load_folds(folds)
            unlabeled, _ = self._load(self.train_list[2][0])
            self.data = np.concatenate((self.data, unlabeled))
            self.labels = np.concatenate((self.labels, np.asarray([-1] * unlabeled.shape[0])))
        elif self.split == "unlabeled":
            self.data, _ = self._load(self.train_list[2][0])
            self.labels = np.asarray([-1] * self.data.shape[0])
        else:
            self.data, self.labels = self._load(self.test_list[0][0], self.test_list[1][0])
        class_file = os.path.join(self.root, self.base_folder, self.class_names_file)
        if os.path.isfile(class_file):
            with open(class_file) as f:
                self.classes = f.read().splitlines()

    def _verify_folds(self, folds: Optional[int]) -> Optional[int]:
        if folds is None:
            return folds
        if isinstance(folds, int):
            if folds in range(10):
                return folds
            raise ValueError(f"Value for argument folds should be in the range [0, 10), but got {folds}.")
        raise ValueError(f"Expected type None or int for argument folds, but got type {type(folds)}.")

    def _load(self, data_file: str, labels_file: Optional[str] = None) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        labels = None
        if labels_file:
            labels = np.fromfile(os.path.join(self.root, self.base_folder, labels_file), dtype=np.uint8) - 1
        everything = np.fromfile(os.path.join(self.root, self.base_folder, data_file), dtype=np.uint8)
        if everything.size % (3 * 96 * 96):
            raise RuntimeError(f"{data_file}: {everything.size} bytes is not a whole number of 3x96x96 images")
        images = np.transpose(everything.reshape(-1, 3, 96, 96), (0, 1, 3, 2))  # the files are column-major
        return images, labels

    def _load_folds(self, folds: Optional[int]) -> None:
        """Keeps only the training images of fold `folds` (a line of indices in fold_indices.txt)."""
        if folds is None:
            return
        with open(os.path.join(self.root, self.base_folder, self.folds_list_file)) as f:
            indices = np.array(f.read().splitlines()[folds].split(), dtype=np.int64)
        self.data, self.labels = self.data[indices], self.labels[indices]

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        target = int(self.labels[index]) if self.labels is not None else None
        img = Image.fromarray(np.transpose(self.data[index], (1, 2, 0)))
        img, target = self._transform_pair(img, target)
        return img, target

    def __len__(self) -> int:
        return self.data.shape[0]

    def _check_integrity(self) -> bool:
        root = os.path.join(self.root, self.base_folder)
        return all(check_integrity(os.path.join(root, name), md5) for name, md5 in self.train_list + self.test_list)

    def download(self) -> None:
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)

    def extra_repr(self) -> str:
        return "Split: {split}".format(**self.__dict__)
