"""CIFAR10/100 on pickled batches and SVHN on a MATLAB file, both written by the test in the real
layout; the datasets' MD5 lists are pointed at the written files' digests (the real ones cannot match
a small file), and a file that does not match its MD5 is refused."""
import hashlib
import pickle

import numpy as np
import pytest
import scipy.io

from embervision.datasets import CIFAR10, CIFAR100, SVHN

RNG = np.random.default_rng(13)


def _md5(path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def _write_batch(path, n, label_key):
    data = RNG.integers(0, 256, (n, 3072), dtype=np.uint8)  # rows: 1024 red, 1024 green, 1024 blue
    labels = RNG.integers(0, 10, n).tolist()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        pickle.dump({"batch_label": "x", label_key: labels, "data": data, "filenames": [b"f"] * n}, f)
    return data, labels


def _tiny_cifar(base, tmp_path, train_names, test_names, meta_name, meta_key, label_key, classes):
    folder = tmp_path / base.base_folder
    written = {name: _write_batch(folder / name, 3, label_key) for name in train_names + test_names}
    with open(folder / meta_name, "wb") as f:
        pickle.dump({meta_key: classes}, f)

    class Tiny(base):
        train_list = [[n, _md5(folder / n)] for n in train_names]
        test_list = [[n, _md5(folder / n)] for n in test_names]
        meta = {"filename": meta_name, "key": meta_key, "md5": _md5(folder / meta_name)}
    return Tiny, written


@pytest.mark.parametrize("base, train_names, test_names, meta_name, meta_key, label_key", [
    (CIFAR10, ["data_batch_1", "data_batch_2"], ["test_batch"], "batches.meta", "label_names", "labels"),
    (CIFAR100, ["train"], ["test"], "meta", "fine_label_names", "fine_labels"),
])
def test_cifar_reads_pickled_batches(tmp_path, base, train_names, test_names, meta_name, meta_key, label_key):
    classes = [f"class{i}" for i in range(10)]
    Tiny, written = _tiny_cifar(base, tmp_path, train_names, test_names, meta_name, meta_key, label_key, classes)
    train = Tiny(str(tmp_path), train=True)
    assert len(train) == 3 * len(train_names) and train.classes == classes and train.class_to_idx["class4"] == 4
    rows = np.concatenate([written[n][0] for n in train_names])
    labels = sum((written[n][1] for n in train_names), [])
    for i in range(len(train)):
        img, target = train[i]
        assert img.mode == "RGB" and img.size == (32, 32) and target == labels[i]
        np.testing.assert_array_equal(np.asarray(img), rows[i].reshape(3, 32, 32).transpose(1, 2, 0))
    test = Tiny(str(tmp_path), train=False)
    np.testing.assert_array_equal(np.asarray(test[1][0]), written[test_names[0]][0][1].reshape(3, 32, 32)
                                  .transpose(1, 2, 0))


def test_cifar_refuses_missing_or_corrupt_files(tmp_path):
    Tiny, _ = _tiny_cifar(CIFAR10, tmp_path, ["data_batch_1"], ["test_batch"], "batches.meta", "label_names",
                          "labels", ["a"])
    with open(tmp_path / CIFAR10.base_folder / "data_batch_1", "ab") as f:
        f.write(b"tampered")
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted. You can use download=True"):
        Tiny(str(tmp_path))
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        CIFAR10(str(tmp_path / "nothing"))


def test_svhn_reads_the_mat_file(tmp_path):
    n = 5
    x = RNG.integers(0, 256, (32, 32, 3, n), dtype=np.uint8)
    y = np.array([[10], [1], [2], [10], [9]], dtype=np.uint8)  # SVHN's 10 stands for the digit 0
    scipy.io.savemat(str(tmp_path / "test_32x32.mat"), {"X": x, "y": y})

    class Tiny(SVHN):
        split_list = {**SVHN.split_list, "test": ["unused", "test_32x32.mat", _md5(tmp_path / "test_32x32.mat")]}
    ds = Tiny(str(tmp_path), split="test")
    assert len(ds) == n and [ds[i][1] for i in range(n)] == [0, 1, 2, 0, 9]
    for i in range(n):
        np.testing.assert_array_equal(np.asarray(ds[i][0]), x[:, :, :, i])
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        SVHN(str(tmp_path), split="test")  # the real MD5 does not match the small file
    with pytest.raises(ValueError, match="Unknown value 'dev' for argument split"):
        SVHN(str(tmp_path), split="dev")
