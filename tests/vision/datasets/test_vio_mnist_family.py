"""MNIST, FashionMNIST, KMNIST, EMNIST and QMNIST on small IDX files the test writes (plain and gzip'ed),
read back against the arrays written; the IDX reader's types and its errors on broken files."""
import gzip
import struct

import numpy as np
import pytest

import ember
from embervision.datasets import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from embervision.datasets.mnist import read_sn3_pascalvincent_tensor

RNG = np.random.default_rng(11)
TYPE_CODES = {np.dtype(np.uint8): 8, np.dtype(np.int8): 9, np.dtype(np.int16): 11, np.dtype(np.int32): 12,
              np.dtype(np.float32): 13, np.dtype(np.float64): 14}


def idx_bytes(array: np.ndarray) -> bytes:
    """The IDX format: 0, 0, type code, rank; the sizes as big-endian int32; the data big-endian."""
    header = struct.pack(">BBBB", 0, 0, TYPE_CODES[array.dtype], array.ndim)
    header += b"".join(struct.pack(">I", n) for n in array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def write_idx(path, array, compress=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    data = idx_bytes(array)
    if compress:
        with gzip.open(str(path) + ".gz", "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
def test_idx_reader_types(tmp_path, dtype):
    array = (RNG.random((3, 4, 2)) * 100 - 50).astype(dtype)
    write_idx(tmp_path / "x-idx3", array)
    out = read_sn3_pascalvincent_tensor(str(tmp_path / "x-idx3"))
    assert out.dtype == {np.uint8: ember.uint8, np.int8: ember.int8, np.int16: ember.int16, np.int32: ember.int32,
                         np.float32: ember.float32, np.float64: ember.float64}[dtype]
    np.testing.assert_array_equal(out.numpy(), array)


def test_idx_reader_errors(tmp_path):
    (tmp_path / "bad").write_bytes(b"\x00\x00\x07\x01" + b"\x00" * 8)
    with pytest.raises(RuntimeError, match="not an IDX file \\(magic 0x00000701"):
        read_sn3_pascalvincent_tensor(str(tmp_path / "bad"))
    full = idx_bytes(RNG.integers(0, 9, (4, 5), dtype=np.uint8))
    (tmp_path / "short").write_bytes(full[:-3])
    with pytest.raises(RuntimeError, match="the IDX data has 17 bytes, its header \\[4, 5\\] asks for 20"):
        read_sn3_pascalvincent_tensor(str(tmp_path / "short"))


def _write_split(raw, prefix, n, compress, label_stem="labels-idx1-ubyte", image_stem="images-idx3-ubyte"):
    images = RNG.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = RNG.integers(0, 10, n, dtype=np.uint8)
    write_idx(raw / f"{prefix}-{image_stem}", images, compress)
    write_idx(raw / f"{prefix}-{label_stem}", labels, compress)
    return images, labels


@pytest.mark.parametrize("cls", [MNIST, FashionMNIST, KMNIST])
@pytest.mark.parametrize("compress", [False, True])
def test_mnist_like(tmp_path, cls, compress):
    raw = tmp_path / cls.__name__ / "raw"
    train = _write_split(raw, "train", 7, compress)
    test = _write_split(raw, "t10k", 3, compress)
    for is_train, (images, labels) in ((True, train), (False, test)):
        ds = cls(str(tmp_path), train=is_train)
        assert len(ds) == len(labels)
        for i in range(len(ds)):
            img, target = ds[i]
            assert img.mode == "L" and target == int(labels[i]) and isinstance(target, int)
            np.testing.assert_array_equal(np.asarray(img), images[i])
    assert len(ds.classes) == 10 and ds.class_to_idx[ds.classes[3]] == 3


def test_missing_mnist_says_how_to_download(tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found. You can use download=True to download it"):
        MNIST(str(tmp_path))


def test_emnist_split(tmp_path):
    raw = tmp_path / "EMNIST" / "raw"
    images, labels = _write_split(raw, "emnist-letters-train", 4, True)
    ds = EMNIST(str(tmp_path), split="letters")
    assert ds.classes[0] == "N/A" and ds.classes[1] == "a" and len(ds.classes) == 27
    np.testing.assert_array_equal(np.asarray(ds[3][0]), images[3])
    assert ds[3][1] == int(labels[3])
    assert len(EMNIST.classes_split_dict["byclass"]) == 62 and len(EMNIST.classes_split_dict["bymerge"]) == 47
    with pytest.raises(ValueError, match="Unknown value 'all' for argument split"):
        EMNIST(str(tmp_path), split="all")


def test_qmnist_compat_and_subsets(tmp_path):
    raw = tmp_path / "QMNIST" / "raw"
    n = 10003  # QMNIST's test10k/test50k split its test file at 10000
    images = RNG.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = RNG.integers(0, 1000, (n, 8)).astype(np.int32)
    write_idx(raw / "qmnist-test-images-idx3-ubyte", images, True)
    write_idx(raw / "qmnist-test-labels-idx2-int", labels, True)
    ds = QMNIST(str(tmp_path), train=False)
    assert len(ds) == n and ds[5][1] == int(labels[5, 0])
    np.testing.assert_array_equal(np.asarray(ds[5][0]), images[5])
    full = QMNIST(str(tmp_path), what="test", compat=False)
    np.testing.assert_array_equal(full[5][1].numpy(), labels[5])
    head = QMNIST(str(tmp_path), what="test10k")
    assert len(head) == 10000 and head[9999][1] == int(labels[9999, 0])
    tail = QMNIST(str(tmp_path), what="test50k")
    assert len(tail) == 3 and tail[0][1] == int(labels[10000, 0])
    np.testing.assert_array_equal(np.asarray(tail[2][0]), images[10002])
    with pytest.raises(ValueError, match="Unknown value 'val' for argument what"):
        QMNIST(str(tmp_path), what="val")
