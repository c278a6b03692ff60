"""Shared pieces of the dataset classes."""
import os

from ember.utils.data import Dataset

from .._io import load


class AudioDataset(Dataset):
    """Indexing with Python's negative-index and range rules over the dataset's item list."""

    def _item_key(self, n):
        keys = self._walker
        if not -len(keys) <= n < len(keys):
            raise IndexError(f"{type(self).__name__} index {n} out of range for {len(keys)} items")
        return keys[n]

    def __len__(self):
        return len(self._walker)


def load_audio(*parts, **kwargs):
    return load(os.path.join(*parts), **kwargs)


def read_first_line(path):
    with open(path, encoding="utf-8") as f:
        return f.readline().rstrip("\n")
