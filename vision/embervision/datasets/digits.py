"""Two small handwritten-digit sets in their text formats: USPS (libsvm lines "label index:value ..."
with values in [-1, 1], bz2-compressed) and SEMEION (256 binary pixels then a one-hot of 10 per line),
as torchvision.datasets.USPS/SEMEION; items are (PIL "L" image 16x16, int)."""
import bz2
import os
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .utils import check_integrity, download_url
from .vision import VisionDataset

__all__ = ["USPS", "SEMEION"]


class _GrayDigits(VisionDataset):
    data: np.ndarray
    targets: Any

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img, target = Image.fromarray(self.data[index]), int(self.targets[index])
        img, target = self._transform_pair(img, target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)


class USPS(_GrayDigits):
    split_list = {
        "train": ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.bz2", "usps.bz2",
                  "ec16c51db3855ca6c91edd34d0e9b197"],
        "test": ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.t.bz2", "usps.t.bz2",
                 "8ea070ee2aca1ac39742fdd1ef5ed118"],
    }

    def __init__(self, root: str, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        split = "train" if train else "test"
        url, filename, checksum = self.split_list[split]
        full_path = os.path.join(self.root, filename)
        if download and not os.path.exists(full_path):
            download_url(url, self.root, filename, md5=checksum)
        if not os.path.isfile(full_path):
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        with bz2.open(full_path) as fp:
            raw_data = [line.decode().split() for line in fp.readlines()]
        pixels = [[x.split(":")[-1] for x in data[1:]] for data in raw_data]
        images = np.asarray(pixels, dtype=np.float32).reshape((-1, 16, 16))
        self.data = ((images + 1) / 2 * 255).astype(dtype=np.uint8)  # [-1, 1] -> [0, 255]
        self.targets = [int(d[0]) - 1 for d in raw_data]  # the file's labels are 1..10


class SEMEION(_GrayDigits):
    url = "http://archive.ics.uci.edu/ml/machine-learning-databases/semeion/semeion.data"
    filename = "semeion.data"
    md5_checksum = "cb545d371d2ce14ec121470795a77432"

    def __init__(self, root: str, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = True) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        data = np.loadtxt(os.path.join(self.root, self.filename))
        self.data = (data[:, :256] * 255).astype("uint8").reshape(-1, 16, 16)
        self.labels = np.nonzero(data[:, 256:])[1]  # the one-hot columns' index
        self.targets = self.labels

    def _check_integrity(self) -> bool:
        return check_integrity(os.path.join(self.root, self.filename), self.md5_checksum)

    def download(self) -> None:
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        download_url(self.url, self.root, self.filename, self.md5_checksum)


