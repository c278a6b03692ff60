"""Places365 and SBU on small files in their real layouts: Places365's category list, file list and image folders
(checked by MD5, fetched from a local server with download=True, the train archive's folder renamed for its
variant); SBU's tarball with its URL and caption lists, each photo then fetched from its URL (missing ones
skipped); and the errors when the files are missing and nothing can be downloaded."""
import hashlib
import io
import os
import tarfile

import numpy as np
import pytest
from PIL import Image

from embervision.datasets import SBU, Places365


def _png(seed, size=(6, 5)):
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)).save(buf, "PNG")
    return buf.getvalue()


def _tar(members, gz=False):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _md5(data):
    return hashlib.md5(data).hexdigest()


CATEGORIES = b"/a/airfield 0\n/a/alley 1\n/b/bakery/shop 2\n"
TRAIN_LIST = b"/a/airfield/00000001.png 0\n/b/bakery/shop/00000001.png 2\n/a/alley/00000001.png 1\n"
VAL_LIST = b"Places365_val_00000001.png 1\nPlaces365_val_00000002.png 0\n"
IMAGES = {"a/airfield/00000001.png": _png(1), "b/bakery/shop/00000001.png": _png(2), "a/alley/00000001.png": _png(3)}
VAL_IMAGES = {"Places365_val_00000001.png": _png(4), "Places365_val_00000002.png": _png(5)}


def _places(base_url="http://127.0.0.1:9/"):
    class TestPlaces365(Places365):  # our files' digests instead of the real release's
        _BASE_URL = base_url
        _DEVKIT_META = {"standard": ("filelist_places365-standard.tar", None)}
        _CATEGORIES_META = ("categories_places365.txt", _md5(CATEGORIES))
        _FILE_LIST_META = {"train-standard": ("places365_train_standard.txt", _md5(TRAIN_LIST)),
                           "val": ("places365_val.txt", _md5(VAL_LIST))}
        _IMAGES_META = {("train-standard", True): ("train_256_places365standard.tar", None),
                        ("val", False): ("val_large.tar", None)}
    return TestPlaces365


def _write_places(root):
    (root / "categories_places365.txt").write_bytes(CATEGORIES)
    (root / "places365_train_standard.txt").write_bytes(TRAIN_LIST)
    (root / "places365_val.txt").write_bytes(VAL_LIST)
    for name, data in IMAGES.items():
        path = root / "data_large_standard" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _decoded(data):
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def test_places365_reads_lists_and_images(tmp_path):
    _write_places(tmp_path)
    ds = _places()(str(tmp_path))
    assert ds.classes == ["/a/airfield", "/a/alley", "/b/bakery/shop"]
    assert ds.class_to_idx == {"/a/airfield": 0, "/a/alley": 1, "/b/bakery/shop": 2}
    assert len(ds) == 3 and ds.targets == [0, 2, 1]
    for (img, target), (name, want_target) in zip(ds, [("a/airfield/00000001.png", 0),
                                                        ("b/bakery/shop/00000001.png", 2),
                                                        ("a/alley/00000001.png", 1)]):
        assert target == want_target
        np.testing.assert_array_equal(np.asarray(img), _decoded(IMAGES[name]))
    assert ds.imgs[0][0] == os.path.join(str(tmp_path), "data_large_standard", "a", "airfield", "00000001.png")
    assert "Split: train-standard" in repr(ds) and "Small: False" in repr(ds)


def test_places365_transforms_and_loader(tmp_path):
    _write_places(tmp_path)
    ds = _places()(str(tmp_path), transform=lambda im: im.size, target_transform=lambda t: -t,
                   loader=lambda path: Image.open(path))
    assert ds[1] == ((6, 5), -2)


def test_places365_missing_devkit_offline(tmp_path):
    with pytest.raises(RuntimeError, match="categories_places365.txt does not exist or is corrupted. You can set "
                                           "download=True"):
        _places()(str(tmp_path))
    (tmp_path / "categories_places365.txt").write_bytes(CATEGORIES)
    (tmp_path / "places365_val.txt").write_bytes(VAL_LIST + b"x 1\n")  # corrupted: its MD5 differs
    with pytest.raises(RuntimeError, match="places365_val.txt does not exist or is corrupted"):
        _places()(str(tmp_path), split="val")


def test_places365_bad_split(tmp_path):
    with pytest.raises(ValueError, match="Unknown value 'test' for argument split. Valid values are "
                                         "{'train-standard', 'train-challenge', 'val'}."):
        Places365(str(tmp_path), split="test")


def test_places365_downloads_devkit_and_images(local_server, tmp_path):
    url, routes = local_server
    routes["/filelist_places365-standard.tar"] = _tar({"categories_places365.txt": CATEGORIES,
                                                       "places365_train_standard.txt": TRAIN_LIST,
                                                       "places365_val.txt": VAL_LIST})
    routes["/train_256_places365standard.tar"] = _tar({"data_256/" + k: v for k, v in IMAGES.items()})
    routes["/val_large.tar"] = _tar({"val_large/" + k: v for k, v in VAL_IMAGES.items()})
    ds = _places(url + "/")(str(tmp_path), small=True, download=True)
    assert (tmp_path / "data_256_standard").is_dir() and not (tmp_path / "data_256").exists()
    np.testing.assert_array_equal(np.asarray(ds[2][0]), _decoded(IMAGES["a/alley/00000001.png"]))
    val = _places(url + "/")(str(tmp_path), split="val", download=True)
    assert [t for _, t in val] == [1, 0]
    np.testing.assert_array_equal(np.asarray(val[1][0]), _decoded(VAL_IMAGES["Places365_val_00000002.png"]))


def test_places365_download_offline(closed_port_url, tmp_path):
    from urllib.error import URLError
    with pytest.raises(URLError, match="could not download"):
        _places(closed_port_url + "/")(str(tmp_path), download=True)


URLS = "http://static.flickr.com/2723/4385058960_b0f291553e.jpg\n{url}/photos/1.png\n{url}/photos/gone.png\n" \
       "{url}/photos/2.png\n"
CAPTIONS = b"unreachable photo\nsecond caption  \nremoved photo\nthird caption\n"


def _sbu(url, tarball):
    class TestSBU(SBU):
        pass
    TestSBU.url = url + "/SBUCaptionedPhotoDataset.tar.gz"
    TestSBU.md5_checksum = _md5(tarball)
    return TestSBU


def _sbu_tarball(url):
    return _tar({"dataset/SBU_captioned_photo_dataset_urls.txt": URLS.format(url=url).encode(),
                 "dataset/SBU_captioned_photo_dataset_captions.txt": CAPTIONS}, gz=True)


def test_sbu_download_fetches_listed_photos(local_server, tmp_path, monkeypatch):
    url, routes = local_server
    tarball = _sbu_tarball(url)
    routes["/SBUCaptionedPhotoDataset.tar.gz"] = tarball
    routes["/photos/1.png"], routes["/photos/2.png"] = _png(7), _png(8, (3, 4))
    # the first photo's host is unreachable here; point it at a closed port so the test stays offline
    import embervision.datasets.sbu as sbu_module
    real = sbu_module.download_url
    monkeypatch.setattr(sbu_module, "download_url", lambda u, *a, **k: real(
        u.replace("http://static.flickr.com", "http://127.0.0.1:9"), *a, **k))
    ds = _sbu(url, tarball)(str(tmp_path), download=True)
    assert len(ds) == 2 and ds.photos == ["1.png", "2.png"]
    assert ds.captions == ["second caption", "third caption"]  # trailing blanks stripped
    img, caption = ds[1]
    assert caption == "third caption" and img.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(img), _decoded(_png(8, (3, 4))))
    again = _sbu(url, tarball)(str(tmp_path), transform=lambda im: im.size, target_transform=str.upper)
    assert again[0] == ((6, 5), "SECOND CAPTION")


def test_sbu_missing_tarball_offline(closed_port_url, tmp_path):
    from urllib.error import URLError
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted. You can use download=True"):
        SBU(str(tmp_path), download=False)
    cls = _sbu(closed_port_url, b"")
    with pytest.raises(URLError, match="could not download"):
        cls(str(tmp_path), download=True)
