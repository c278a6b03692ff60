"""The digits recipe (examples/digits): IDX parsing against files written here with NumPy, training
on small MNIST-format files, and resuming: a run interrupted after an epoch and resumed from its
checkpoint ends with the same weights as an uninterrupted run."""
import gzip
import struct

import numpy as np
import pytest

import ember
from recipes import recipe_module


def _module(name):
    return recipe_module("digits", name)


def _write_idx(path, array, compress=False):
    codes = {np.uint8: 0x08, np.int32: 0x0C}
    header = bytes([0, 0, codes[array.dtype.type], array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    payload = header + array.astype(array.dtype.newbyteorder(">")).tobytes()
    (gzip.open if compress else open)(path, "wb").write(payload)


def _fake_mnist(folder, n_train=160, n_test=40, seed=0):
    """Ten classes told apart by where a bright square sits, plus noise."""
    rng = np.random.default_rng(seed)
    for split, n, (img_name, lbl_name) in (("train", n_train, ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")),
                                           ("test", n_test, ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte"))):
        labels = rng.integers(0, 10, n).astype(np.uint8)
        images = rng.integers(0, 60, (n, 28, 28)).astype(np.uint8)
        for i, k in enumerate(labels):
            r, c = 2 + 8 * (k // 4), 2 + 6 * (k % 4)
            images[i, r:r + 6, c:c + 6] = 250
        _write_idx(folder / img_name, images, img_name.endswith(".gz"))
        _write_idx(folder / lbl_name, labels)


def test_read_idx_matches_the_written_arrays(tmp_path):
    data = _module("data")
    a = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    b = np.array([-5, 7, 1 << 20], dtype=np.int32)
    _write_idx(tmp_path / "a", a)
    _write_idx(tmp_path / "b.gz", b, compress=True)
    np.testing.assert_array_equal(data.read_idx(tmp_path / "a"), a)
    np.testing.assert_array_equal(data.read_idx(tmp_path / "b.gz"), b)


def test_read_idx_rejects_malformed_files(tmp_path):
    data = _module("data")
    (tmp_path / "bad").write_bytes(b"\x01\x02\x08\x01" + b"\0" * 8)
    with pytest.raises(ValueError, match="bad magic"):
        data.read_idx(tmp_path / "bad")
    _write_idx(tmp_path / "short", np.zeros((4, 5), np.uint8))
    (tmp_path / "short").write_bytes((tmp_path / "short").read_bytes()[:-3])
    with pytest.raises(ValueError, match="needs 20"):
        data.read_idx(tmp_path / "short")
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte"):
        data.load_mnist(tmp_path, "train")


def _state(path):
    return {k: v.numpy() for k, v in ember.load(path)["model"].items()}


def test_mnist_files_train_and_resume_gives_identical_weights(tmp_path):
    train = _module("train")
    _fake_mnist(tmp_path)
    common = ["--mnist", str(tmp_path), "--epochs", "3", "--batch-size", "32", "--workers", "2"]
    full, resumed = tmp_path / "full.ckpt", tmp_path / "resumed.ckpt"
    _, accuracy = train.train(train.parse_args(common + ["--checkpoint", str(full)]))
    assert accuracy >= 0.9  # the squares are easy to tell apart
    train.train(train.parse_args(common + ["--checkpoint", str(resumed), "--stop-after", "1"]))
    assert ember.load(resumed)["epoch"] == 1
    train.train(train.parse_args(common + ["--checkpoint", str(resumed), "--resume"]))
    a, b = _state(full), _state(resumed)
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
