"""Flickr8k (its HTML captions page), Flickr30k (token file) and Omniglot (alphabet/character tree with
its zip's MD5) on files the test writes in those formats."""
import hashlib
import zipfile

import numpy as np
import pytest
from PIL import Image

from embervision.datasets import Flickr8k, Flickr30k, Omniglot

RNG = np.random.default_rng(29)

PAGE = """<html><body><table>
<tr><td><a href="http://x/photos/u/{a}/">http://www.flickr.com/photos/u/{a}/</a></td></tr>
<tr><td><ul><li>A dog runs .</li><li>  A brown dog .</li></ul></td></tr>
<tr><td><a href="http://x/photos/u/999/">http://www.flickr.com/photos/u/999/</a></td></tr>
<tr><td>Image Not Found</td></tr>
<tr><td><a href="http://x/photos/u/{b}/">http://www.flickr.com/photos/u/{b}/</a></td></tr>
<tr><td><ul><li>Kids play .</li></ul></td></tr>
</table><ul><li>outside the table</li></ul></body></html>"""


def _image(path):
    pixels = RNG.integers(0, 256, (4, 5, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(path, format="PNG")
    return pixels


def test_flickr8k_html_captions(tmp_path):
    a = _image(tmp_path / "1001_abc.jpg")
    _image(tmp_path / "999_zzz.jpg")
    b = _image(tmp_path / "1002_def.jpg")
    (tmp_path / "captions.html").write_text(PAGE.format(a=1001, b=1002))
    ds = Flickr8k(str(tmp_path), str(tmp_path / "captions.html"))
    assert len(ds) == 3 and ds.ids[0].endswith("1001_abc.jpg")
    img, captions = ds[0]
    assert captions == ["A dog runs .", "A brown dog ."]
    np.testing.assert_array_equal(np.asarray(img), a)
    assert ds[1][1] == ["Kids play ."]
    np.testing.assert_array_equal(np.asarray(ds[1][0]), b)
    assert ds[2][1] == []  # "Image Not Found": its captions are not attached to anything


def test_flickr30k_tokens(tmp_path):
    x = _image(tmp_path / "10.jpg")
    _image(tmp_path / "7.jpg")
    (tmp_path / "tokens.txt").write_text("10.jpg#0\tFirst .\n7.jpg#0\tOther .\n10.jpg#1\tSecond .\n\n")
    ds = Flickr30k(str(tmp_path), str(tmp_path / "tokens.txt"))
    assert ds.ids == ["10.jpg", "7.jpg"]
    img, captions = ds[0]
    assert captions == ["First .", "Second ."]
    np.testing.assert_array_equal(np.asarray(img), x)
    (tmp_path / "bad.txt").write_text("no tab here\n")
    with pytest.raises(ValueError, match="bad.txt:1: expected"):
        Flickr30k(str(tmp_path), str(tmp_path / "bad.txt"))


def test_omniglot_tree(tmp_path):
    base = tmp_path / "omniglot-py"
    target = base / "images_evaluation"
    written = {}
    for alphabet, characters in (("Greek", ["character01", "character02"]), ("Anglo", ["character01"])):
        for c in characters:
            (target / alphabet / c).mkdir(parents=True)
            for k in range(2):
                pixels = (RNG.integers(0, 2, (6, 6)) * 255).astype(np.uint8)
                Image.fromarray(pixels).save(target / alphabet / c / f"img_{k}.png")
                written[(alphabet, c, k)] = pixels
    with zipfile.ZipFile(base / "images_evaluation.zip", "w") as z:
        z.writestr("placeholder", b"the archive the tree came from")
    md5 = hashlib.md5((base / "images_evaluation.zip").read_bytes()).hexdigest()

    class Tiny(Omniglot):
        zips_md5 = {**Omniglot.zips_md5, "images_evaluation": md5}
    ds = Tiny(str(tmp_path), background=False)
    assert len(ds) == 6  # Anglo's one character, then Greek's two, two images each
    assert [ds[i][1] for i in range(6)] == [0, 0, 1, 1, 2, 2]
    img, target = ds[3]
    assert img.mode == "L"
    np.testing.assert_array_equal(np.asarray(img), written[("Greek", "character01", 1)])
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        Omniglot(str(tmp_path), background=False)  # the real zip's MD5 does not match
