"""MNIST and its relatives (FashionMNIST, KMNIST, EMNIST, QMNIST), read from the IDX files
("SN3 PascalVincent" format: a big-endian magic of element type and rank, the sizes, then the data) in
root/<Class>/raw, plain or gzip'ed, as torchvision.datasets.mnist. Downloading fetches and unpacks them."""
import gzip
import os
import string
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.error import URLError

import numpy as np

import ember

from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST", "read_sn3_pascalvincent_tensor",
           "read_image_file", "read_label_file"]

# IDX element type codes -> big-endian NumPy dtypes
_SN3_TYPES = {8: np.dtype(">u1"), 9: np.dtype(">i1"), 11: np.dtype(">i2"), 12: np.dtype(">i4"),
              13: np.dtype(">f4"), 14: np.dtype(">f8")}
_NATIVE = {8: ember.uint8, 9: ember.int8, 11: ember.int16, 12: ember.int32, 13: ember.float32, 14: ember.float64}


def _open_maybe_gzip(path: str):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def read_sn3_pascalvincent_tensor(path: str, strict: bool = True) -> ember.Tensor:
    """An IDX file (optionally .gz) as a tensor of its element type and shape."""
    with _open_maybe_gzip(path) as f:
        data = f.read()
    if len(data) < 4:
        raise RuntimeError(f"{path}: not an IDX file (only {len(data)} bytes)")
    magic = int.from_bytes(data[0:4], "big")
    nd, ty = magic % 256, magic // 256
    if not 1 <= nd <= 3 or ty not in _SN3_TYPES:
        raise RuntimeError(f"{path}: not an IDX file (magic 0x{magic:08x}: element type {ty}, {nd} dimensions)")
    if len(data) < 4 + 4 * nd:
        raise RuntimeError(f"{path}: the IDX header is truncated")
    sizes = [int.from_bytes(data[4 * (i + 1):4 * (i + 2)], "big") for i in range(nd)]
    dtype = _SN3_TYPES[ty]
    expected = int(np.prod(sizes)) * dtype.itemsize
    body = data[4 * (nd + 1):]
    if len(body) != expected and (strict or len(body) < expected):
        raise RuntimeError(f"{path}: the IDX data has {len(body)} bytes, its header {sizes} asks for {expected}")
    array = np.frombuffer(body, dtype=dtype, count=int(np.prod(sizes))).astype(dtype.newbyteorder("="))
    return ember.from_numpy(array.reshape(sizes).copy()).to(_NATIVE[ty])


def read_label_file(path: str) -> ember.Tensor:
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != ember.uint8 or x.dim() != 1:
        raise RuntimeError(f"{path}: expected a 1-D uint8 label file, got {x.dim()}-D {x.dtype}")
    return x.long()


def read_image_file(path: str) -> ember.Tensor:
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != ember.uint8 or x.dim() != 3:
        raise RuntimeError(f"{path}: expected a 3-D uint8 image file, got {x.dim()}-D {x.dtype}")
    return x


class MNIST(VisionDataset):
    """root/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]; items are (PIL image "L", int)."""

    mirrors = ["http://yann.lecun.com/exdb/mnist/", "https://ossci-datasets.s3.amazonaws.com/mnist/"]
    resources = [("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
                 ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
                 ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
                 ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")]
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]

    def __init__(self, root: str, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        self.data, self.targets = self._load_data()

    def _file_stems(self) -> Tuple[str, str]:
        prefix = "train" if self.train else "t10k"
        return f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"

    def _raw_path(self, stem: str) -> Optional[str]:
        for name in (stem, stem + ".gz"):
            path = os.path.join(self.raw_folder, name)
            if os.path.isfile(path):
                return path
        return None

    def _load_data(self):
        images, labels = self._file_stems()
        return read_image_file(self._raw_path(images)), read_label_file(self._raw_path(labels))

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img, target = self.data[index], int(self.targets[index])
        img = Image.fromarray(img.numpy())  # a 2-D uint8 array: mode "L"
        img, target = self._transform_pair(img, target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)

    @property
    def raw_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def class_to_idx(self) -> Dict[str, int]:
        return {_class: i for i, _class in enumerate(self.classes)}

    def _check_exists(self) -> bool:
        return all(self._raw_path(stem) is not None for stem in self._file_stems())

    def download(self) -> None:
        """Fetches each resource from the first mirror that answers, checks its MD5 and unpacks it."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            errors = []
            for mirror in self.mirrors:
                try:
                    download_and_extract_archive(f"{mirror}{filename}", download_root=self.raw_folder,
                                                 filename=filename, md5=md5)
                    break
                except (URLError, RuntimeError) as error:
                    errors.append(f"{mirror}: {error}")
            else:
                raise RuntimeError(f"Error downloading {filename}:\n" + "\n".join(errors))

    def extra_repr(self) -> str:
        return "Split: {}".format("Train" if self.train is True else "Test")


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST in MNIST's layout, under root/FashionMNIST/raw."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
                 ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
                 ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
                 ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310")]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST in MNIST's layout, under root/KMNIST/raw."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
                 ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
                 ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
                 ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134")]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


class EMNIST(MNIST):
    """EMNIST's splits (byclass, bymerge, balanced, letters, digits, mnist) from
    root/EMNIST/raw/emnist-<split>-{train,test}-{images-idx3,labels-idx1}-ubyte[.gz]."""

    url = "https://www.itl.nist.gov/iaui/vip/cs_links/EMNIST/gzip.zip"
    md5 = "58c8d27c78d21e728a6bc7b3cc06412e"
    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    # Merged classes: letters whose upper and lower case look alike
    _merged_classes = {"c", "i", "j", "k", "l", "m", "o", "p", "s", "u", "v", "w", "x", "y", "z"}
    _all_classes = set(string.digits + string.ascii_letters)
    classes_split_dict = {
        "byclass": sorted(_all_classes),
        "bymerge": sorted(_all_classes - _merged_classes),
        "balanced": sorted(_all_classes - _merged_classes),
        "letters": ["N/A"] + list(string.ascii_lowercase),
        "digits": list(string.digits),
        "mnist": list(string.digits),
    }

    def __init__(self, root: str, split: str, **kwargs: Any) -> None:
        self.split = verify_str_arg(split, "split", self.splits)
        self.classes = self.classes_split_dict[self.split]
        super().__init__(root, **kwargs)

    def _file_stems(self) -> Tuple[str, str]:
        part = "train" if self.train else "test"
        return f"emnist-{self.split}-{part}-images-idx3-ubyte", f"emnist-{self.split}-{part}-labels-idx1-ubyte"

    def download(self) -> None:
        """Fetches EMNIST's gzip.zip and unpacks every split's files into raw/."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        download_and_extract_archive(self.url, download_root=self.raw_folder, md5=self.md5)
        gzip_folder = os.path.join(self.raw_folder, "gzip")
        for name in os.listdir(gzip_folder):
            if name.endswith(".gz"):
                os.replace(os.path.join(gzip_folder, name), os.path.join(self.raw_folder, name))


class QMNIST(MNIST):
    """QMNIST (what: train, test, test10k, test50k, nist) from root/QMNIST/raw/qmnist-*-idx*; with
    compat=True a target is the digit, else the row of 8 integers of QMNIST's extended labels."""

    subsets = {"train": "train", "test": "test", "test10k": "test", "test50k": "test", "nist": "nist"}
    resources: Dict[str, List[Tuple[str, str]]] = {  # type: ignore[assignment]
        "train": [("qmnist-train-images-idx3-ubyte.gz", "ed72d4157d28c017586c42bc6afe6370"),
                  ("qmnist-train-labels-idx2-int.gz", "0058f8dd561b90ffdd0f734c6a30e5e4")],
        "test": [("qmnist-test-images-idx3-ubyte.gz", "1394631089c404de565df7b7aeaf9412"),
                 ("qmnist-test-labels-idx2-int.gz", "5b5b05890a5e13444e108efe57b788aa")],
        "nist": [("xnist-images-idx3-ubyte.xz", "7f124b3b8ab81486c9d8c2749c17f834"),
                 ("xnist-labels-idx2-int.xz", "5ed0e788978e45d4a8bd4b7caec3d79d")],
    }
    base_url = "https://raw.githubusercontent.com/facebookresearch/qmnist/master/"
    classes = MNIST.classes

    def __init__(self, root: str, what: Optional[str] = None, compat: bool = True, train: bool = True,
                 **kwargs: Any) -> None:
        if what is None:
            what = "train" if train else "test"
        self.what = verify_str_arg(what, "what", tuple(self.subsets.keys()))
        self.compat = compat
        super().__init__(root, train, **kwargs)

    def _file_stems(self) -> Tuple[str, str]:
        images, labels = (name for name, _ in self.resources[self.subsets[self.what]])
        return os.path.splitext(images)[0], os.path.splitext(labels)[0]

    def _load_data(self):
        images, labels = self._file_stems()
        data = read_image_file(self._raw_path(images))
        targets = read_sn3_pascalvincent_tensor(self._raw_path(labels)).long()
        if targets.dim() != 2 or targets.shape[1] != 8:
            raise RuntimeError(f"{self._raw_path(labels)}: QMNIST labels are [N, 8] int32, got {tuple(targets.shape)}")
        if self.what == "test10k":
            data, targets = data[0:10000].clone(), targets[0:10000].clone()
        elif self.what == "test50k":
            data, targets = data[10000:].clone(), targets[10000:].clone()
        return data, targets

    def download(self) -> None:
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources[self.subsets[self.what]]:
            download_and_extract_archive(self.base_url + filename, self.raw_folder, filename=filename, md5=md5)

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        img, target = self.data[index], self.targets[index]
        img = Image.fromarray(img.numpy())
        if self.transform is not None:
            img = self.transform(img)
        target = int(target[0]) if self.compat else target
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def extra_repr(self) -> str:
        return f"Split: {self.what}"


