"""VOCDetection/VOCSegmentation on a VOCdevkit tree and CocoDetection/CocoCaptions on an annotation JSON,
both written by the test; targets are compared with what was written."""
import json

import numpy as np
import pytest
from PIL import Image

from embervision.datasets import CocoCaptions, CocoDetection, VOCDetection, VOCSegmentation

RNG = np.random.default_rng(19)

XML = """<annotation>
  <filename>{id}.jpg</filename>
  <size><width>8</width><height>6</height><depth>3</depth></size>
  {objects}
</annotation>"""
OBJECT = "<object><name>{name}</name><difficult>0</difficult><bndbox><xmin>{x}</xmin><ymin>1</ymin>" \
         "<xmax>5</xmax><ymax>4</ymax></bndbox></object>"


@pytest.fixture
def voc(tmp_path):
    base = tmp_path / "VOCdevkit" / "VOC2012"
    for sub in ("ImageSets/Main", "ImageSets/Segmentation", "JPEGImages", "Annotations", "SegmentationClass"):
        (base / sub).mkdir(parents=True)
    pixels, masks = {}, {}
    objects = {"a": [("dog", 1)], "b": [("cat", 0), ("person", 2)]}
    for id, objs in objects.items():
        pixels[id] = RNG.integers(0, 256, (6, 8, 3), dtype=np.uint8)
        Image.fromarray(pixels[id]).save(base / "JPEGImages" / f"{id}.jpg", quality=95)
        (base / "Annotations" / f"{id}.xml").write_text(
            XML.format(id=id, objects="".join(OBJECT.format(name=n, x=x) for n, x in objs)))
        masks[id] = RNG.integers(0, 21, (6, 8), dtype=np.uint8)
        mask = Image.fromarray(masks[id]).convert("P")  # gray to palette keeps each value as its index
        mask.save(base / "SegmentationClass" / f"{id}.png")
    (base / "ImageSets" / "Main" / "train.txt").write_text("a\nb\n")
    (base / "ImageSets" / "Segmentation" / "val.txt").write_text("b\n")
    return tmp_path, base, objects, masks


def test_voc_detection_parses_annotations(voc):
    root, base, objects, _ = voc
    ds = VOCDetection(str(root), year="2012", image_set="train")
    assert len(ds) == 2
    img, target = ds[0]
    assert img.mode == "RGB" and img.size == (8, 6)
    np.testing.assert_array_equal(np.asarray(img), np.asarray(Image.open(base / "JPEGImages" / "a.jpg")))
    ann = target["annotation"]
    assert ann["filename"] == "a.jpg" and ann["size"] == {"width": "8", "height": "6", "depth": "3"}
    assert ann["object"] == [{"name": "dog", "difficult": "0",
                              "bndbox": {"xmin": "1", "ymin": "1", "xmax": "5", "ymax": "4"}}]
    names = [o["name"] for o in ds[1][1]["annotation"]["object"]]
    assert names == ["cat", "person"]


def test_voc_segmentation_and_checks(voc, tmp_path):
    root, _, _, masks = voc
    ds = VOCSegmentation(str(root), image_set="val", transforms=lambda img, m: (img, np.asarray(m)))
    assert len(ds) == 1
    np.testing.assert_array_equal(ds[0][1], masks["b"])
    with pytest.raises(ValueError, match="Unknown value 'test' for argument image_set"):
        VOCSegmentation(str(root), year="2012", image_set="test")
    with pytest.raises(ValueError, match="Unknown value '2013' for argument year"):
        VOCDetection(str(root), year="2013")
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        VOCDetection(str(tmp_path / "nothing"))


def test_coco_detection_and_captions(tmp_path):
    images = {}
    for id, name in ((7, "x.jpg"), (3, "y.png")):
        images[id] = RNG.integers(0, 256, (5, 4, 3), dtype=np.uint8)
        Image.fromarray(images[id]).save(tmp_path / name)
    annotations = [
        {"id": 1, "image_id": 7, "bbox": [0, 0, 2, 2], "category_id": 5, "caption": "first of x"},
        {"id": 2, "image_id": 3, "bbox": [1, 1, 1, 1], "category_id": 2, "caption": "only of y"},
        {"id": 9, "image_id": 7, "bbox": [1, 2, 1, 1], "category_id": 1, "caption": "second of x"},
    ]
    ann_file = tmp_path / "ann.json"
    ann_file.write_text(json.dumps({"images": [{"id": 7, "file_name": "x.jpg"}, {"id": 3, "file_name": "y.png"}],
                                    "annotations": annotations, "categories": []}))
    det = CocoDetection(str(tmp_path), str(ann_file))
    assert det.ids == [3, 7] and len(det) == 2
    img, target = det[0]
    np.testing.assert_array_equal(np.asarray(img), images[3])  # the PNG, exactly
    assert target == [annotations[1]]
    assert [a["id"] for a in det[1][1]] == [1, 9]
    captions = CocoCaptions(str(tmp_path), str(ann_file), target_transform=len)
    assert captions[1][1] == 2
    assert CocoCaptions(str(tmp_path), str(ann_file))[1][1] == ["first of x", "second of x"]
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(ValueError, match="not a COCO annotation file"):
        CocoDetection(str(tmp_path), str(tmp_path / "bad.json"))
