"""Caltech101 (images, contour annotations in .mat files, renamed annotation folders) and Caltech256 on
trees the test writes in their layouts."""
import numpy as np
import pytest
import scipy.io
from PIL import Image

from embervision.datasets import Caltech101, Caltech256

RNG = np.random.default_rng(23)


def _png_as_jpg(path, pixels):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels).save(path, format="PNG")  # lossless content under the dataset's .jpg name


def test_caltech101_categories_images_and_contours(tmp_path):
    base = tmp_path / "caltech101"
    written = {}
    for category, n in (("Faces", 2), ("ant", 1), ("BACKGROUND_Google", 1)):
        for i in range(1, n + 1):
            pixels = RNG.integers(0, 256, (5, 6, 3), dtype=np.uint8)
            _png_as_jpg(base / "101_ObjectCategories" / category / f"image_{i:04d}.jpg", pixels)
            written[(category, i)] = pixels
    contours = {}
    for folder, i in (("Faces_2", 1), ("Faces_2", 2), ("ant", 1)):
        contours[(folder, i)] = RNG.random((2, 7))
        (base / "Annotations" / folder).mkdir(parents=True, exist_ok=True)
        scipy.io.savemat(str(base / "Annotations" / folder / f"annotation_{i:04d}.mat"),
                         {"obj_contour": contours[(folder, i)]})
    ds = Caltech101(str(tmp_path), target_type=["category", "annotation"])
    assert ds.categories == ["Faces", "ant"] and len(ds) == 3  # the clutter folder is no category
    img, (category, contour) = ds[1]
    assert category == 0
    np.testing.assert_array_equal(np.asarray(img), written[("Faces", 2)])
    np.testing.assert_array_equal(contour, contours[("Faces_2", 2)])
    assert Caltech101(str(tmp_path))[2][1] == 1
    with pytest.raises(ValueError, match="Unknown value 'box' for argument target_type"):
        Caltech101(str(tmp_path), target_type="box")
    from urllib.error import URLError

    from embervision.datasets import _google_drive
    with pytest.MonkeyPatch.context() as mp:  # Google Drive unreachable: the download fails naming the file
        mp.setattr(_google_drive, "_DRIVE_URL", "http://127.0.0.1:9/uc")
        with pytest.raises(URLError, match="could not download the file 137RyRjvTBkBiIfeYBNZBtViDHQ6_Ewsp"):
            Caltech101(str(tmp_path / "fresh"), download=True)


def test_caltech256(tmp_path):
    base = tmp_path / "caltech256" / "256_ObjectCategories"
    pixels = {}
    for k, (name, n) in enumerate((("001.ak47", 2), ("002.bat", 1))):
        for i in range(1, n + 1):
            pixels[(k, i)] = RNG.integers(0, 256, (4, 4, 3), dtype=np.uint8)
            _png_as_jpg(base / name / f"{k + 1:03d}_{i:04d}.jpg", pixels[(k, i)])
    (base / "002.bat" / "notes.txt").write_text("not counted")
    ds = Caltech256(str(tmp_path))
    assert len(ds) == 3 and [ds[i][1] for i in range(3)] == [0, 0, 1]
    np.testing.assert_array_equal(np.asarray(ds[2][0]), pixels[(1, 1)])
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        Caltech256(str(tmp_path / "none"))
