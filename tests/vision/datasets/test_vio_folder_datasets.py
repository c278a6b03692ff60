"""VisionDataset/StandardTransform, DatasetFolder/ImageFolder on a class tree the test writes (PNG and
JPEG files read back against Pillow), and FakeData's per-index determinism."""
import numpy as np
import pytest
from PIL import Image

import ember
from embervision.datasets import DatasetFolder, FakeData, ImageFolder, StandardTransform, VisionDataset

RNG = np.random.default_rng(7)


@pytest.fixture
def tree(tmp_path):
    """root/cat/{a.png, nested/b.jpg}, root/dog/c.png, root/dog/notes.txt, root/empty_not_a_class.txt"""
    images = {}
    for rel, fmt in (("cat/a.png", "PNG"), ("cat/nested/b.jpg", "JPEG"), ("dog/c.png", "PNG")):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        pixels = RNG.integers(0, 256, (6, 5, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(path, format=fmt)
        images[rel] = np.asarray(Image.open(path).convert("RGB"))
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    (tmp_path / "stray.txt").write_text("a file at the root is no class")
    return tmp_path, images


def test_image_folder_samples_classes_and_pixels(tree):
    root, images = tree
    ds = ImageFolder(str(root))
    assert ds.classes == ["cat", "dog"] and ds.class_to_idx == {"cat": 0, "dog": 1}
    assert [(p[len(str(root)) + 1:], t) for p, t in ds.samples] == [("cat/a.png", 0), ("cat/nested/b.jpg", 0),
                                                                     ("dog/c.png", 1)]
    assert ds.targets == [0, 0, 1] and ds.imgs == ds.samples and len(ds) == 3
    for i, rel in enumerate(["cat/a.png", "cat/nested/b.jpg", "dog/c.png"]):
        img, target = ds[i]
        assert img.mode == "RGB"
        np.testing.assert_array_equal(np.asarray(img), images[rel])


def test_transforms_apply_to_sample_and_target(tree):
    root, _ = tree
    ds = ImageFolder(str(root), transform=lambda img: img.size, target_transform=lambda t: t + 10)
    assert ds[2] == ((5, 6), 11)
    assert isinstance(ds.transforms, StandardTransform)
    assert "Root location" in repr(ds) and "Number of datapoints: 3" in repr(ds)


def test_dataset_folder_with_own_loader_and_validity(tree):
    root, _ = tree
    ds = DatasetFolder(str(root), loader=lambda p: open(p, "rb").read()[:4], extensions=(".txt", ".png"))
    assert [t for _, t in ds.samples] == [0, 1, 1]
    assert ds[2][0] == b"not "  # dog/notes.txt sorts after dog/c.png
    only_jpg = DatasetFolder(str(root), loader=str, is_valid_file=lambda p: p.endswith((".jpg", ".png")))
    assert len(only_jpg) == 3
    with pytest.raises(ValueError, match="Both extensions and is_valid_file cannot be None or not None"):
        DatasetFolder(str(root), loader=str)
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes cat, dog. Supported "
                                                "extensions are: .bmp"):
        DatasetFolder(str(root), loader=str, extensions=(".bmp",))


def test_no_class_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder in"):
        ImageFolder(str(tmp_path))


def test_vision_dataset_transform_arguments():
    with pytest.raises(ValueError, match="Only transforms or transform/target_transform can be passed"):
        VisionDataset("x", transforms=lambda a, b: (a, b), transform=lambda a: a)
    st = StandardTransform(lambda x: x * 2, None)
    assert st(3, 4) == (6, 4)


def test_fake_data_is_a_function_of_the_index():
    ds = FakeData(size=5, image_size=(3, 4, 6), num_classes=3, random_offset=11)
    ember.manual_seed(0)
    before = ember.rand(3)
    ember.manual_seed(0)
    img, target = ds[2]
    after = ember.rand(3)
    np.testing.assert_array_equal(before.numpy(), after.numpy())  # the global generator is left as it was
    ember.manual_seed(13)  # index 2 + random_offset 11
    expected = ember.randn(3, 4, 6)
    expected_target = int(ember.randint(0, 3, size=(1,), dtype=ember.long)[0])
    assert img.mode == "RGB" and img.size == (6, 4) and target == expected_target
    np.testing.assert_array_equal(np.asarray(img), expected.mul(255).to(ember.uint8).permute(1, 2, 0).numpy())
    np.testing.assert_array_equal(np.asarray(ds[2][0]), np.asarray(img))
    assert len(ds) == 5
    with pytest.raises(IndexError, match="FakeData index out of range"):
        ds[5]
    gray = FakeData(size=1, image_size=(1, 3, 3))[0][0]
    assert gray.mode == "L"
