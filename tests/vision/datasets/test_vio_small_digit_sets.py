"""STL10 (binary column-major images, labels 1..10, folds), USPS (bz2 libsvm text) and SEMEION (text rows
of 256 pixels + one-hot) on files the test writes in those formats, against the arrays written."""
import bz2
import hashlib

import numpy as np
import pytest

from embervision.datasets import SEMEION, STL10, USPS

RNG = np.random.default_rng(17)


def _md5(path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


@pytest.fixture
def stl(tmp_path):
    folder = tmp_path / STL10.base_folder
    folder.mkdir()
    written = {}
    for name, n in (("train", 6), ("test", 3), ("unlabeled", 2)):
        images = RNG.integers(0, 256, (n, 3, 96, 96), dtype=np.uint8)  # [N, C, H, W]
        np.ascontiguousarray(images.transpose(0, 1, 3, 2)).tofile(folder / f"{name}_X.bin")  # column-major on disk
        labels = RNG.integers(1, 11, n, dtype=np.uint8)
        if name != "unlabeled":
            labels.tofile(folder / f"{name}_y.bin")
        written[name] = (images, labels)
    (folder / "fold_indices.txt").write_text("0 2 4\n1 3 5\n" + "0\n" * 8)
    (folder / "class_names.txt").write_text("\n".join(f"c{i}" for i in range(10)) + "\n")

    class Tiny(STL10):
        train_list = [[n, _md5(folder / n)] for n in ("train_X.bin", "train_y.bin", "unlabeled_X.bin")]
        test_list = [[n, _md5(folder / n)] for n in ("test_X.bin", "test_y.bin")]
    return Tiny, tmp_path, written


def test_stl10_splits_and_folds(stl):
    Tiny, root, written = stl
    train = Tiny(str(root))
    images, labels = written["train"]
    assert len(train) == 6 and train.classes[3] == "c3"
    for i in range(6):
        img, target = train[i]
        assert img.size == (96, 96) and target == int(labels[i]) - 1
        np.testing.assert_array_equal(np.asarray(img), images[i].transpose(1, 2, 0))
    fold = Tiny(str(root), folds=1)
    assert [fold[i][1] for i in range(3)] == [int(labels[i]) - 1 for i in (1, 3, 5)]
    both = Tiny(str(root), split="train+unlabeled")
    assert len(both) == 8 and both[7][1] == -1
    np.testing.assert_array_equal(np.asarray(both[7][0]), written["unlabeled"][0][1].transpose(1, 2, 0))
    assert [Tiny(str(root), split="unlabeled")[i][1] for i in range(2)] == [-1, -1]
    test = Tiny(str(root), split="test")
    np.testing.assert_array_equal(np.asarray(test[2][0]), written["test"][0][2].transpose(1, 2, 0))
    with pytest.raises(ValueError, match=r"folds should be in the range \[0, 10\), but got 10"):
        Tiny(str(root), folds=10)
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        STL10(str(root))  # the real MD5s do not match


def test_usps_reads_libsvm_lines(tmp_path):
    pixels = RNG.integers(-4, 5, (4, 256)) / 4.0  # values in [-1, 1]
    labels = [1, 10, 3, 7]
    lines = [f"{label} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row))
             for label, row in zip(labels, pixels)]
    with bz2.open(tmp_path / "usps.t.bz2", "wt") as f:
        f.write("\n".join(lines) + "\n")
    ds = USPS(str(tmp_path), train=False)
    assert len(ds) == 4 and [ds[i][1] for i in range(4)] == [0, 9, 2, 6]
    expected = ((pixels.astype(np.float32) + 1) / 2 * 255).astype(np.uint8).reshape(-1, 16, 16)
    for i in range(4):
        assert ds[i][0].mode == "L"
        np.testing.assert_array_equal(np.asarray(ds[i][0]), expected[i])
    with pytest.raises(RuntimeError, match="Dataset not found"):
        USPS(str(tmp_path), train=True)


def test_semeion_reads_text_rows(tmp_path):
    bits = RNG.integers(0, 2, (5, 256))
    digits = [3, 0, 9, 3, 5]
    rows = [" ".join(f"{b}.0000" for b in row) + " " + " ".join("1" if k == d else "0" for k in range(10))
            for row, d in zip(bits, digits)]
    (tmp_path / "semeion.data").write_text("\n".join(rows) + "\n")

    class Tiny(SEMEION):
        md5_checksum = _md5(tmp_path / "semeion.data")
    ds = Tiny(str(tmp_path), download=False)
    assert [ds[i][1] for i in range(5)] == digits
    np.testing.assert_array_equal(np.asarray(ds[4][0]), (bits[4] * 255).astype(np.uint8).reshape(16, 16))
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        SEMEION(str(tmp_path), download=False)
