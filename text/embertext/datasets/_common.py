"""What every embertext dataset shares: the split argument, the dataset's folder, fetching (download,
hash check, extraction; skipped when the extracted files are already there) and the iterable dataset
with a length."""

import csv
import functools
import io
import os
import sys
from typing import Callable, Iterable, Iterator, Optional, Sequence, Tuple, Union

from ember.utils.data import IterableDataset

from ..utils import download_from_url, extract_archive

DEFAULT_ROOT = ".data"


class RawTextIterableDataset(IterableDataset):
    """An iterable dataset over one split's raw items; iterating again starts over. len() is the number
    of items, counted on first use from the files on disk."""

    def __init__(self, description: str, make_iterator: Callable[[], Iterator]):
        super().__init__()
        self.description = description
        self._make_iterator = make_iterator
        self._num_lines: Optional[int] = None

    def __iter__(self):
        return iter(self._make_iterator())

    def __len__(self) -> int:
        if self._num_lines is None:
            self._num_lines = sum(1 for _ in self._make_iterator())
        return self._num_lines

    def __str__(self) -> str:
        return self.description


def wrap_split_argument(splits: Tuple[str, ...]):
    """Lets a dataset function fn(root, split, **kwargs) take one split (returning one dataset) or a
    tuple of them (returning a tuple), with root defaulting to .data/<dataset name>."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(root: str = DEFAULT_ROOT, split: Union[str, Sequence[str]] = splits, **kwargs):
            chosen = (split,) if isinstance(split, str) else tuple(split)
            unknown = [s for s in chosen if s not in splits]
            if unknown or not chosen:
                raise ValueError(f"{fn.__name__}: split {split!r} is not supported; choose from {splits}")
            folder = os.path.join(os.path.expanduser(os.fspath(root)), fn.__name__)
            os.makedirs(folder, exist_ok=True)
            datasets = tuple(fn(folder, s, **kwargs) for s in chosen)
            return datasets[0] if isinstance(split, str) else datasets

        return wrapper

    return decorate


def fetch(
    folder: str, url: str, filename: str, hash_value: str, hash_type: str = "md5", needed: Iterable[str] = ()
) -> str:
    """The downloaded file folder/filename, downloaded (and checked) unless every `needed` extracted
    file (relative to folder) is there already; archives are extracted into folder."""
    needed = [os.path.join(folder, n) for n in needed]
    path = os.path.join(folder, filename)
    if needed and all(os.path.exists(n) for n in needed):
        return path
    download_from_url(url, path=path, hash_value=hash_value, hash_type=hash_type)
    if needed:
        extract_archive(path, folder)
        missing = [n for n in needed if not os.path.exists(n)]
        if missing:
            raise RuntimeError(f"{path} does not hold the expected files {missing}")
    return path


def read_csv_rows(path: str) -> Iterator[list]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # reviews and answers exceed the default 128 KiB
    with io.open(path, encoding="utf-8", newline="") as f:
        yield from csv.reader(f)


def label_and_text(path: str) -> Iterator[Tuple[int, str]]:
    """The rows of a '"label","title","text",...' CSV as (label, the other fields joined by spaces)."""
    for row in read_csv_rows(path):
        yield int(row[0]), " ".join(row[1:])


def read_lines(path: str, strip_newline: bool) -> Iterator[str]:
    with io.open(path, encoding="utf-8") as f:
        for line in f:
            yield line.rstrip("\n") if strip_newline else line


def read_iob(path: str, separator: str) -> Iterator[list]:
    """Blank-line-separated sentences of `separator`-delimited columns, as one list per column."""
    columns: list = []
    with io.open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                if columns:
                    yield columns
                columns = []
                continue
            for i, column in enumerate(line.split(separator)):
                if len(columns) < i + 1:
                    columns.append([])
                columns[i].append(column)
    if columns:
        yield columns
