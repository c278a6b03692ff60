"""LSUN scene categories: one LMDB database per class (root/<category>_<split>_lmdb, keys -> encoded images), as
torchvision.datasets.LSUN. torchvision reads only the LMDB form (no folder-of-images form), and so do we: the
`lmdb` package is needed (`pip install lmdb`)."""
import io
import os
import pickle
import string
from collections.abc import Iterable
from typing import Any, Callable, List, Optional, Tuple, Union

from .utils import iterable_to_str, verify_str_arg
from .vision import VisionDataset

__all__ = ["LSUN", "LSUNClass"]

_CATEGORIES = ["bedroom", "bridge", "church_outdoor", "classroom", "conference_room", "dining_room", "kitchen",
               "living_room", "restaurant", "tower"]
_SPLITS = ["train", "val", "test"]


def _import_lmdb():
    try:
        import lmdb
    except ImportError as e:
        raise ImportError("LSUN reads LMDB databases: the lmdb package is needed (pip install lmdb)") from e
    return lmdb


class LSUNClass(VisionDataset):
    """One LMDB database; (image, None) per key. Its key list is cached in the working directory in
    `_cache_<letters of root>` (as torchvision does), reused when present."""

    def __init__(self, root: str, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None) -> None:
        lmdb = _import_lmdb()
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.env = lmdb.open(root, max_readers=1, readonly=True, lock=False, readahead=False, meminit=False)
        with self.env.begin(write=False) as txn:
            self.length = txn.stat()["entries"]
        cache_file = "_cache_" + "".join(c for c in root if c in string.ascii_letters)
        if os.path.isfile(cache_file):
            with open(cache_file, "rb") as f:
                self.keys = pickle.load(f)
        else:
            with self.env.begin(write=False) as txn:
                self.keys = list(txn.cursor().iternext(keys=True, values=False))
            with open(cache_file, "wb") as f:
                pickle.dump(self.keys, f)

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        with self.env.begin(write=False) as txn:
            imgbuf = txn.get(self.keys[index])
        img = Image.open(io.BytesIO(imgbuf)).convert("RGB")
        return self._transform_pair(img, None)

    def __len__(self) -> int:
        return self.length


class LSUN(VisionDataset):
    """classes: "train", "val" (every category's database of that split), "test", or a list such as
    ["bedroom_train", "church_outdoor_val"]; the target is the index of the database in that list."""

    def __init__(self, root: str, classes: Union[str, List[str]] = "train", transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.classes = self._verify_classes(classes)
        self.dbs = [LSUNClass(root=os.path.join(self.root, f"{c}_lmdb"), transform=transform) for c in self.classes]
        self.indices = []
        count = 0
        for db in self.dbs:
            count += len(db)
            self.indices.append(count)
        self.length = count

    @staticmethod
    def _verify_classes(classes: Union[str, List[str]]) -> List[str]:
        if isinstance(classes, str) and classes in _SPLITS:
            return [classes] if classes == "test" else [c + "_" + classes for c in _CATEGORIES]
        if isinstance(classes, str):
            verify_str_arg(classes, "classes", _SPLITS)
        if not isinstance(classes, Iterable):
            raise ValueError(f"Expected type str or Iterable for argument classes, but got type {type(classes)}.")
        classes = list(classes)
        for c in classes:
            verify_str_arg(c)
            parts = c.split("_")
            category, split = "_".join(parts[:-1]), parts[-1]
            verify_str_arg(category, valid_values=_CATEGORIES, custom_msg=(
                f"Unknown value '{category}' for LSUN class. Valid values are {{{iterable_to_str(_CATEGORIES)}}}."))
            verify_str_arg(split, valid_values=_SPLITS, custom_msg=(
                f"Unknown value '{split}' for postfix. Valid values are {{{iterable_to_str(_SPLITS)}}}."))
        return classes

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        target = 0
        sub = 0
        for end in self.indices:
            if index < end:
                break
            target += 1
            sub = end
        img, _ = self.dbs[target][index - sub]
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self) -> int:
        return self.length

    def extra_repr(self) -> str:
        return "Classes: {classes}".format(**self.__dict__)
