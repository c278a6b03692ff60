"""CelebA on its text files and image folder written by the test in the real layout (count line, header
line, space-aligned rows); targets against the values written, splits from list_eval_partition.txt."""
import hashlib

import numpy as np
import pytest
from PIL import Image

from embervision.datasets import CelebA

RNG = np.random.default_rng(31)
NAMES = [f"{i:06d}.jpg" for i in range(1, 6)]


@pytest.fixture
def celeba(tmp_path):
    base = tmp_path / "celeba"
    (base / "img_align_celeba").mkdir(parents=True)
    pixels = {}
    for name in NAMES:
        pixels[name] = RNG.integers(0, 256, (6, 5, 3), dtype=np.uint8)
        Image.fromarray(pixels[name]).save(base / "img_align_celeba" / name, format="PNG")
    attrs = RNG.choice([-1, 1], (5, 3))
    bbox = RNG.integers(0, 100, (5, 4))
    marks = RNG.integers(0, 100, (5, 10))
    identity = [7, 3, 7, 1, 2]
    partition = [0, 0, 1, 2, 0]
    files = {
        "list_eval_partition.txt": "".join(f"{n} {p}\n" for n, p in zip(NAMES, partition)),
        "identity_CelebA.txt": "".join(f"{n} {i}\n" for n, i in zip(NAMES, identity)),
        "list_bbox_celeba.txt": "5\nimage_id x_1 y_1 width height\n" +
                                "".join(f"{n}   {'   '.join(map(str, r))}\n" for n, r in zip(NAMES, bbox)),
        "list_landmarks_align_celeba.txt": "5\nlefteye_x lefteye_y righteye_x righteye_y nose_x nose_y "
                                           "leftmouth_x leftmouth_y rightmouth_x rightmouth_y\n" +
                                           "".join(f"{n} {' '.join(map(str, r))}\n" for n, r in zip(NAMES, marks)),
        "list_attr_celeba.txt": "5\nSmiling Male Young \n" +
                                "".join(f"{n} {' '.join(f'{v:2d}' for v in r)}\n" for n, r in zip(NAMES, attrs)),
    }
    for name, text in files.items():
        (base / name).write_text(text)
    digests = {name: hashlib.md5((base / name).read_bytes()).hexdigest() for name in files}

    class Tiny(CelebA):
        file_list = [(fid, digests.get(name, md5), name) for fid, md5, name in CelebA.file_list]
    return Tiny, tmp_path, pixels, attrs, bbox, marks, identity


def test_celeba_targets_and_splits(celeba):
    Tiny, root, pixels, attrs, bbox, marks, identity = celeba
    train = Tiny(str(root), split="train", target_type=["attr", "identity", "bbox", "landmarks"])
    assert train.filename == [NAMES[0], NAMES[1], NAMES[4]] and len(train) == 3
    assert train.attr_names == ["Smiling", "Male", "Young"]
    img, (attr, ident, box, landmarks) = train[2]
    np.testing.assert_array_equal(np.asarray(img), pixels[NAMES[4]])
    np.testing.assert_array_equal(attr.numpy(), (attrs[4] + 1) // 2)
    assert int(ident) == identity[4]
    np.testing.assert_array_equal(box.numpy(), bbox[4])
    np.testing.assert_array_equal(landmarks.numpy(), marks[4])
    assert len(Tiny(str(root), split="all")) == 5 and Tiny(str(root), split="valid").filename == [NAMES[2]]
    assert Tiny(str(root), split="test", target_type=[])[0][1] is None
    with pytest.raises(ValueError, match="Unknown value 'val' for argument split"):
        Tiny(str(root), split="val")
    with pytest.raises(ValueError, match='Target type "pose" is not recognized'):
        Tiny(str(root), target_type="pose")[0]


def test_celeba_integrity_and_offline_download(celeba, tmp_path):
    _, root, *_ = celeba
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        CelebA(str(root))  # the real MD5s do not match the small files
    from urllib.error import URLError

    from embervision.datasets import _google_drive
    with pytest.MonkeyPatch.context() as mp:  # Google Drive unreachable: the download fails naming the file
        mp.setattr(_google_drive, "_DRIVE_URL", "http://127.0.0.1:9/uc")
        with pytest.raises(URLError, match="could not download the file 0B7EVK8r0v71pZjFTYXZWM3FlRnM"):
            CelebA(str(tmp_path / "fresh"), download=True)


def test_celeba_downloads_from_drive(celeba, tmp_path, local_server, monkeypatch):
    import io
    import zipfile

    from embervision.datasets import _google_drive
    Tiny, root, pixels, *_ = celeba
    base = root / "celeba"
    served = {}
    for fid, _, name in Tiny.file_list:
        if name == "img_align_celeba.zip":
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                for img in NAMES:
                    z.write(base / "img_align_celeba" / img, f"img_align_celeba/{img}")
            served[fid] = buf.getvalue()
        else:
            served[fid] = (base / name).read_bytes()
    url, routes = local_server
    routes["/uc"] = lambda request, query: (200, {}, served[query["id"]])
    monkeypatch.setattr(_google_drive, "_DRIVE_URL", url + "/uc")

    class Fresh(Tiny):
        file_list = [(fid, hashlib.md5(served[fid]).hexdigest(), name) for fid, _, name in Tiny.file_list]
    ds = Fresh(str(tmp_path / "fresh"), split="all", download=True)
    assert len(ds) == 5
    np.testing.assert_array_equal(np.asarray(ds[3][0]), pixels[NAMES[3]])
