"""WIDERFace on annotation files and image folders written in the real layout (including an image with
no face, which the format still follows with a line of zeros)."""
import numpy as np
import pytest
from PIL import Image

from embervision.datasets import WIDERFace

RNG = np.random.default_rng(37)


@pytest.fixture
def wider(tmp_path):
    base = tmp_path / "widerface"
    for folder in ("WIDER_train", "WIDER_val", "WIDER_test", "wider_face_split"):
        (base / folder).mkdir(parents=True)
    images = {"0--Parade/a.jpg": 2, "1--Handshaking/b.jpg": 0, "1--Handshaking/c.jpg": 1}
    faces, text = {}, ""
    for rel, n in images.items():
        (base / "WIDER_train" / "images" / rel).parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(RNG.integers(0, 256, (8, 9, 3), dtype=np.uint8)).save(base / "WIDER_train" / "images" / rel,
                                                                              format="PNG")
        faces[rel] = RNG.integers(0, 50, (max(n, 1), 10)) * (1 if n else 0)
        text += f"{rel}\n{n}\n" + "".join(" ".join(map(str, row)) + " \n" for row in faces[rel])
    (base / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text(text)
    (base / "wider_face_split" / "wider_face_test_filelist.txt").write_text("0--Parade/t.jpg\n")
    (base / "WIDER_test" / "images" / "0--Parade").mkdir(parents=True)
    Image.fromarray(RNG.integers(0, 256, (4, 4, 3), dtype=np.uint8)).save(base / "WIDER_test" / "images" /
                                                                          "0--Parade" / "t.jpg", format="PNG")
    return tmp_path, faces


def test_widerface_train_annotations(wider):
    root, faces = wider
    ds = WIDERFace(str(root), split="train")
    assert len(ds) == 3
    img, target = ds[0]
    assert img.size == (9, 8)
    rows = faces["0--Parade/a.jpg"]
    np.testing.assert_array_equal(target["bbox"].numpy(), rows[:, 0:4])
    for key, column in (("blur", 4), ("expression", 5), ("illumination", 6), ("occlusion", 7), ("pose", 8),
                        ("invalid", 9)):
        np.testing.assert_array_equal(target[key].numpy(), rows[:, column])
    assert ds[1][1]["bbox"].numpy().tolist() == [[0, 0, 0, 0]]  # the faceless image's line of zeros
    np.testing.assert_array_equal(ds[2][1]["bbox"].numpy(), faces["1--Handshaking/c.jpg"][:, 0:4])


def test_widerface_test_split_and_errors(wider, tmp_path):
    root, _ = wider
    test = WIDERFace(str(root), split="test")
    assert len(test) == 1 and test[0][1] is None and test[0][0].size == (4, 4)
    with pytest.raises(FileNotFoundError):
        WIDERFace(str(root), split="val")  # its annotation file was not written
    (root / "widerface" / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text("x.jpg\n2\n1 2 3\n")
    with pytest.raises(RuntimeError, match="Error parsing annotation file .* at line 1"):
        WIDERFace(str(root))
    from urllib.error import URLError

    from embervision.datasets import _google_drive
    with pytest.MonkeyPatch.context() as mp:  # Google Drive unreachable: the download fails naming the file
        mp.setattr(_google_drive, "_DRIVE_URL", "http://127.0.0.1:9/uc")
        with pytest.raises(URLError, match="could not download the file 15hGDLhsx8bLgLcIRD5DhYt5iBxnjNF1M"):
            WIDERFace(str(tmp_path / "fresh"), download=True)


def test_widerface_downloads_images_from_drive_and_annotations(wider, tmp_path, local_server, monkeypatch):
    import hashlib
    import io
    import zipfile

    from embervision.datasets import _google_drive
    root, faces = wider
    base = root / "widerface"

    def zipped(folder):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for path in sorted((base / folder).rglob("*")):
                z.write(path, str(path.relative_to(base)))
            z.writestr(f"{folder}/", "")
        return buf.getvalue()

    archives = {name: zipped(name) for name in WIDERFace.EXTRACTED}
    url, routes = local_server
    ids = {fid: name for fid, _, name in WIDERFace.FILE_LIST}
    routes["/uc"] = lambda request, query: (200, {}, archives[ids[query["id"]][:-4]])
    routes["/wider_face_split.zip"] = archives["wider_face_split"]
    monkeypatch.setattr(_google_drive, "_DRIVE_URL", url + "/uc")
    monkeypatch.setattr(WIDERFace, "FILE_LIST", [(fid, hashlib.md5(archives[name[:-4]]).hexdigest(), name)
                                                 for fid, _, name in WIDERFace.FILE_LIST])
    monkeypatch.setattr(WIDERFace, "ANNOTATIONS_FILE", (url + "/wider_face_split.zip",
                                                        hashlib.md5(archives["wider_face_split"]).hexdigest(),
                                                        "wider_face_split.zip"))
    ds = WIDERFace(str(tmp_path / "fresh"), download=True)
    assert len(ds) == 3
    np.testing.assert_array_equal(ds[2][1]["bbox"].numpy(), faces["1--Handshaking/c.jpg"][:, 0:4])
