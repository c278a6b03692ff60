"""The recipe's data: scikit-learn's 8x8 handwritten digits (1,797 images, shipped inside the
scikit-learn wheel), or MNIST's IDX files when a folder is given. Both come back as float32 images
(N, 1, H, W) scaled to [0, 1] and int64 labels."""
from __future__ import annotations

import gzip
import pathlib
import struct

import numpy as np

import ember

# IDX type codes (the third byte of the magic number) and the NumPy dtypes they stand for
_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_MNIST_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
                "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def load_digits():
    """All of scikit-learn's digits: images (1797, 1, 8, 8) in [0, 1] and their labels."""
    from sklearn.datasets import load_digits as sk_load_digits
    bunch = sk_load_digits()
    images = bunch.images.astype(np.float32) / 16.0  # pixel values are counts 0..16
    return ember.tensor(images[:, None]), ember.tensor(bunch.target.astype(np.int64))


def read_idx(path):
    """An IDX file (optionally gzipped) as a NumPy array; a malformed file raises ValueError naming it."""
    path = pathlib.Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise ValueError(f"{path}: not an IDX file (bad magic number {raw[:4].hex() or 'empty'})")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: truncated IDX header")
    shape = struct.unpack(f">{ndim}I", raw[4:header])
    dtype = np.dtype(_IDX_TYPES[raw[2]])
    want = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) - header != want:
        raise ValueError(f"{path}: IDX data holds {len(raw) - header} bytes, its header {shape} needs {want}")
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)


def _find(folder, stem):
    for name in (stem, stem + ".gz"):
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(f"{folder}: no {stem} (or {stem}.gz); expected MNIST's IDX files there")


def load_mnist(folder, split):
    """MNIST's train or test split from its IDX files in folder: images (N, 1, 28, 28) in [0, 1]."""
    folder = pathlib.Path(folder)
    images = read_idx(_find(folder, _MNIST_FILES[split][0]))
    labels = read_idx(_find(folder, _MNIST_FILES[split][1]))
    if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
        raise ValueError(f"{folder}: {split} images {images.shape} and labels {labels.shape} do not match")
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"{folder}: {split} labels must lie in 0..9")
    pixels = images.astype(np.float32) / 255.0
    return ember.tensor(pixels[:, None]), ember.tensor(labels.astype(np.int64))
