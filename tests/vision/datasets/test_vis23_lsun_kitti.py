"""LSUN on LMDB databases written here with the lmdb package (keys -> WebP/JPEG bytes, as the released databases
hold), its key cache file, class-list validation and a missing database; Kitti on image_2/label_2 folders with
label lines in KITTI's format, its test split, downloading its zips from a local server, and the offline error."""
import io
import os
import pickle
import zipfile

import numpy as np
import pytest
from PIL import Image

from embervision.datasets import LSUN, Kitti, LSUNClass

try:  # make setup / make test install it; only LSUN's tests need it
    import lmdb
except ImportError:
    lmdb = None
needs_lmdb = pytest.mark.skipif(lmdb is None, reason="the lmdb package is not installed")


def _encoded(seed, fmt="WEBP"):
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)).save(buf, fmt, **(
        {"lossless": True} if fmt == "WEBP" else {}))
    return buf.getvalue()


def _write_db(path, items):
    env = lmdb.open(str(path), map_size=1 << 22)
    with env.begin(write=True) as txn:
        for key, value in items.items():
            txn.put(key, value)
    env.close()


def _rgb(data):
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


@pytest.fixture
def lsun_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # LSUNClass writes its key cache into the working directory
    root = tmp_path / "lsun"
    root.mkdir()
    bedroom = {b"0a1": _encoded(1), b"0b2": _encoded(2, "JPEG"), b"0c3": _encoded(3)}
    church = {b"ff": _encoded(4)}
    _write_db(root / "bedroom_train_lmdb", bedroom)
    _write_db(root / "church_outdoor_train_lmdb", church)
    return root, bedroom, church


@needs_lmdb
def test_lsun_classes_concatenate_databases(lsun_root):
    root, bedroom, church = lsun_root
    ds = LSUN(str(root), classes=["bedroom_train", "church_outdoor_train"])
    assert len(ds) == 4 and ds.indices == [3, 4]
    for i, key in enumerate(sorted(bedroom)):  # LMDB keeps keys sorted
        img, target = ds[i]
        assert target == 0 and img.mode == "RGB"
        np.testing.assert_array_equal(np.asarray(img), _rgb(bedroom[key]))
    img, target = ds[3]
    assert target == 1
    np.testing.assert_array_equal(np.asarray(img), _rgb(church[b"ff"]))
    assert "Classes: ['bedroom_train', 'church_outdoor_train']" in repr(ds)


@needs_lmdb
def test_lsun_transforms(lsun_root):
    root, _, _ = lsun_root
    ds = LSUN(str(root), classes=["church_outdoor_train"], transform=lambda im: im.size,
              target_transform=lambda t: t + 10)
    assert ds[0] == ((7, 5), 10)


@needs_lmdb
def test_lsun_class_caches_its_keys(lsun_root):
    root, bedroom, _ = lsun_root
    db_root = str(root / "bedroom_train_lmdb")
    LSUNClass(db_root)
    cache = "_cache_" + "".join(c for c in db_root if c.isascii() and c.isalpha())
    assert os.path.isfile(cache)
    with open(cache, "rb") as f:
        assert pickle.load(f) == sorted(bedroom)
    with open(cache, "wb") as f:  # a present cache is used as it is
        pickle.dump([b"0c3"], f)
    np.testing.assert_array_equal(np.asarray(LSUNClass(db_root)[0][0]), _rgb(bedroom[b"0c3"]))


@needs_lmdb
def test_lsun_split_names_every_category(lsun_root):
    root, _, _ = lsun_root
    assert LSUN._verify_classes("val") == [c + "_val" for c in [
        "bedroom", "bridge", "church_outdoor", "classroom", "conference_room", "dining_room", "kitchen",
        "living_room", "restaurant", "tower"]]
    assert LSUN._verify_classes("test") == ["test"]
    with pytest.raises(lmdb.Error, match="bridge_train_lmdb: No such file or directory"):
        LSUN(str(root), classes="train")  # only two of the ten databases are there


@pytest.mark.parametrize("classes, message", [
    (["kitchenette_train"], "Unknown value 'kitchenette' for LSUN class. Valid values are {'bedroom', 'bridge',"),
    (["bedroom_dev"], "Unknown value 'dev' for postfix. Valid values are {'train', 'val', 'test'}."),
    ([3], "Expected type str, but got type <class 'int'>."),
    (5, "Expected type str or Iterable for argument classes, but got type <class 'int'>."),
    ("trainval", "Unknown value 'trainval' for argument classes. Valid values are {'train', 'val', 'test'}."),
])
@needs_lmdb
def test_lsun_bad_classes(tmp_path, classes, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("{", r"\{")
                       .replace("}", r"\}").replace(".", r"\.")):
        LSUN(str(tmp_path), classes=classes)


LABELS_0 = ("Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"
            "Pedestrian 0.50 2 0.21 423.17 173.67 433.17 224.03 1.60 0.48 0.62 -7.28 1.56 30.27 -0.03\n")
LABELS_1 = "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10\n"


def _png(seed):
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (4, 6, 3), dtype=np.uint8)).save(buf, "PNG")
    return buf.getvalue()


KITTI_FILES = {"training/image_2/000000.png": _png(0), "training/image_2/000001.png": _png(1),
               "testing/image_2/000000.png": _png(2)}
KITTI_LABELS = {"training/label_2/000000.txt": LABELS_0.encode(), "training/label_2/000001.txt": LABELS_1.encode()}


def _write_kitti(root):
    for name, data in {**KITTI_FILES, **KITTI_LABELS}.items():
        path = root / "Kitti" / "raw" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def test_kitti_train_targets(tmp_path):
    _write_kitti(tmp_path)
    ds = Kitti(str(tmp_path))
    assert len(ds) == 2
    img, target = ds[0]
    np.testing.assert_array_equal(np.asarray(img), np.asarray(Image.open(io.BytesIO(KITTI_FILES[
        "training/image_2/000000.png"]))))
    assert target == [
        {"type": "Car", "truncated": 0.0, "occluded": 0, "alpha": -1.58, "bbox": [587.01, 173.33, 614.12, 200.12],
         "dimensions": [1.65, 1.67, 3.64], "location": [-0.65, 1.71, 46.70], "rotation_y": -1.59},
        {"type": "Pedestrian", "truncated": 0.5, "occluded": 2, "alpha": 0.21,
         "bbox": [423.17, 173.67, 433.17, 224.03], "dimensions": [1.60, 0.48, 0.62], "location": [-7.28, 1.56, 30.27],
         "rotation_y": -0.03}]
    assert ds[1][1] == [{"type": "DontCare", "truncated": -1.0, "occluded": -1, "alpha": -10.0,
                         "bbox": [503.89, 169.71, 590.61, 190.13], "dimensions": [-1.0, -1.0, -1.0],
                         "location": [-1000.0, -1000.0, -1000.0], "rotation_y": -10.0}]


def test_kitti_test_split_and_transforms(tmp_path):
    _write_kitti(tmp_path)
    ds = Kitti(str(tmp_path), train=False)
    assert len(ds) == 1 and ds[0][1] is None
    both = Kitti(str(tmp_path), transforms=lambda im, t: (im.size, len(t)))
    assert both[0] == ((6, 4), 2)


def test_kitti_short_label_line_raises(tmp_path):
    _write_kitti(tmp_path)
    (tmp_path / "Kitti/raw/training/label_2/000001.txt").write_text("Car 0.00 0 -1.58\n")
    with pytest.raises(ValueError, match="000001.txt: a label line has 4 fields, expected 15"):
        Kitti(str(tmp_path))[1]


def _zip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_kitti_download(local_server, tmp_path, monkeypatch):
    url, routes = local_server
    routes["/avg-kitti/data_object_image_2.zip"] = _zip(KITTI_FILES)
    routes["/avg-kitti/data_object_label_2.zip"] = _zip(KITTI_LABELS)
    monkeypatch.setattr(Kitti, "data_url", url + "/avg-kitti/")
    ds = Kitti(str(tmp_path), download=True)
    assert len(ds) == 2 and ds[0][1][1]["type"] == "Pedestrian"
    assert (tmp_path / "Kitti/raw/data_object_label_2.zip").is_file()


def test_kitti_missing_offline(closed_port_url, tmp_path, monkeypatch, capsys):
    with pytest.raises(RuntimeError, match="Dataset not found. You may use download=True to download it."):
        Kitti(str(tmp_path))
    monkeypatch.setattr(Kitti, "data_url", closed_port_url + "/")
    with pytest.raises(RuntimeError, match="Dataset not found"):
        Kitti(str(tmp_path), download=True)
    assert "Error downloading data_object_image_2.zip" in capsys.readouterr().out
