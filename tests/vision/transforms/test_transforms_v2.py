"""transforms.v2: boxes and masks move with the image (checked against the boxes of rendered box masks
put through the same pipeline), box formats against a NumPy reference, MixUp/CutMix arithmetic."""
import numpy as np
import pytest
from PIL import Image as PILImage

import ember
from ember import nn
from embervision import tv_tensors as tv
from embervision.transforms import v2
from embervision.transforms.v2 import functional as F2

H, W = 60, 80
BOXES = [[10, 5, 30, 25], [40, 12, 70, 50], [5, 35, 25, 55]]


def _sample():
    image = tv.Image(ember.randint(0, 256, (3, H, W), dtype=ember.uint8, generator=ember.Generator().manual_seed(0)))
    masks = np.zeros((len(BOXES), H, W), dtype=np.uint8)
    for k, (x1, y1, x2, y2) in enumerate(BOXES):
        masks[k, y1:y2, x1:x2] = 1
    boxes = tv.BoundingBoxes(BOXES, format="XYXY", canvas_size=(H, W), dtype=ember.float32)
    return image, boxes, tv.Mask(ember.from_numpy(masks))


def _mask_boxes(masks):
    """XYXY of each mask's pixels (edges: max index + 1), None for an empty mask."""
    out = []
    for m in masks.numpy():
        ys, xs = np.nonzero(m)
        out.append(None if len(xs) == 0 else [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
    return out


def _check(boxes, masks, tol):
    checked = 0
    for box, ref in zip(boxes.numpy(), _mask_boxes(masks)):
        if ref is None:
            assert (box[2] - box[0]) * (box[3] - box[1]) < 4  # gone with its mask (a sliver at most)
            continue
        assert np.abs(box - np.array(ref)).max() <= tol, (box, ref)
        checked += 1
    return checked


@pytest.mark.parametrize("seed", range(8))
def test_affine_crop_flip_moves_boxes_with_masks(seed):
    image, boxes, masks = _sample()
    pipeline = v2.Compose([v2.RandomAffine(degrees=0, translate=(0.1, 0.1), scale=(0.8, 1.2)),
                           v2.RandomCrop((48, 64)), v2.RandomHorizontalFlip(), v2.RandomVerticalFlip()])
    ember.manual_seed(seed)
    out_image, out_boxes, out_masks = pipeline(image, boxes, masks)
    assert isinstance(out_image, tv.Image) and isinstance(out_masks, tv.Mask)
    assert isinstance(out_boxes, tv.BoundingBoxes) and out_boxes.canvas_size == (48, 64)
    assert list(out_image.shape) == [3, 48, 64] and list(out_masks.shape) == [3, 48, 64]
    assert _check(out_boxes, out_masks, tol=1.0) >= 1


def _check_contains(boxes, masks, tol):
    """A rotated box's enclosing box is the hull of its corners: it holds the mask's pixels and is at most
    `tol` wider on a side (nearest-sampled masks gain or lose part of a pixel along slanted edges, and
    the nearest upscale of a mask moves its edges by up to a source pixel)."""
    checked = 0
    for box, ref in zip(boxes.numpy(), _mask_boxes(masks)):
        if ref is None:
            continue
        ref = np.array(ref, dtype=np.float64)
        slack = 1.5
        assert box[0] <= ref[0] + slack and box[1] <= ref[1] + slack, (box, ref)
        assert box[2] >= ref[2] - slack and box[3] >= ref[3] - slack, (box, ref)
        assert np.abs(box - ref).max() <= tol, (box, ref)
        checked += 1
    return checked


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("make", [
    lambda: v2.Compose([v2.RandomAffine(degrees=25, translate=(0.05, 0.05), shear=8), v2.Resize([70, 90])]),
    lambda: v2.RandomRotation(30, expand=True),
], ids=["affine_resize", "rotate_expand"])
def test_rotation_and_shear_keep_boxes_around_masks(seed, make):
    image, boxes, masks = _sample()
    ember.manual_seed(seed)
    out_image, out_boxes, out_masks = make()(image, boxes, masks)
    assert out_boxes.canvas_size == tuple(out_masks.shape[-2:]) == tuple(out_image.shape[-2:])
    assert _check_contains(out_boxes, out_masks, tol=3.0) >= 1


def test_pil_and_tensor_images_give_the_same_boxes():
    image, boxes, _ = _sample()
    pil = PILImage.fromarray(image.as_subclass(ember.Tensor).permute(1, 2, 0).numpy())
    t = v2.Compose([v2.RandomResizedCrop(32), v2.RandomHorizontalFlip()])
    ember.manual_seed(3)
    pil_out, pil_boxes = t(pil, boxes)
    ember.manual_seed(3)
    t_out, t_boxes = t(image, boxes)
    assert pil_out.size == (32, 32) and list(t_out.shape) == [3, 32, 32]
    assert ember.equal(pil_boxes.as_subclass(ember.Tensor), t_boxes.as_subclass(ember.Tensor))


def test_box_formats_against_numpy():
    xyxy = np.array([[1.0, 2.0, 11.0, 8.0], [0.0, 0.0, 4.0, 3.0]])
    boxes = tv.BoundingBoxes(ember.from_numpy(xyxy), format="XYXY", canvas_size=(20, 20))
    xywh = F2.convert_bounding_box_format(boxes, "XYWH")
    np.testing.assert_allclose(xywh.numpy(), np.c_[xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]])
    cxcywh = F2.convert_bounding_box_format(xywh, tv.BoundingBoxFormat.CXCYWH)
    np.testing.assert_allclose(cxcywh.numpy(), np.c_[(xyxy[:, :2] + xyxy[:, 2:]) / 2, xyxy[:, 2:] - xyxy[:, :2]])
    back = F2.convert_bounding_box_format(cxcywh, "XYXY")
    np.testing.assert_allclose(back.numpy(), xyxy)
    assert back.canvas_size == (20, 20)
    # a flip in another format moves the same box
    flipped = F2.hflip(xywh)
    assert flipped.format == tv.BoundingBoxFormat.XYWH
    np.testing.assert_allclose(flipped.numpy(), [[20 - 11, 2, 10, 6], [16, 0, 4, 3]])


def test_clamp_and_errors():
    boxes = tv.BoundingBoxes([[-5.0, 3.0, 30.0, 12.0]], format="XYXY", canvas_size=(10, 20))
    np.testing.assert_allclose(v2.ClampBoundingBoxes()(boxes).numpy(), [[0, 3, 20, 10]])
    with pytest.raises(ValueError, match="last dim of 4"):
        tv.BoundingBoxes([[1, 2, 3]], format="XYXY", canvas_size=(4, 4))
    with pytest.raises(ValueError, match="multiple HxW"):
        v2.RandomHorizontalFlip()(tv.Image(ember.zeros(3, 4, 4)), tv.Mask(ember.zeros(5, 5)))
    with pytest.raises(ValueError, match="num_classes"):
        v2.MixUp()


def test_ops_on_typed_tensors_return_plain_tensors():
    image = tv.Image(ember.zeros(3, 4, 4))
    assert type(image + 1) is ember.Tensor
    assert isinstance(F2.hflip(image), tv.Image)


def test_non_image_leaves_pass_through():
    image, boxes, masks = _sample()
    labels = ember.tensor([3, 1, 2])
    ember.manual_seed(0)
    out = v2.RandomHorizontalFlip(p=1.0)({"image": image, "target": {"boxes": boxes, "labels": labels,
                                                                       "name": "a"}})
    assert out["target"]["labels"] is labels and out["target"]["name"] == "a"
    np.testing.assert_allclose(out["target"]["boxes"].numpy()[0], [W - 30, 5, W - 10, 25])


def test_plain_tensor_is_the_image_only_without_an_image():
    plain = ember.arange(12.0).reshape(1, 3, 4)
    other = ember.arange(12.0).reshape(1, 3, 4)
    a, b = v2.RandomHorizontalFlip(p=1.0)(plain, other)
    assert ember.equal(a, plain.flip(-1)) and ember.equal(b, other)


def test_containers_are_modules_and_nest():
    seq = nn.Sequential(v2.Compose([v2.RandomHorizontalFlip(1.0)]), v2.RandomChoice([v2.RandomVerticalFlip(1.0)]),
                        v2.RandomOrder([v2.RandomApply([v2.RandomHorizontalFlip(1.0)], p=1.0)]))
    x = ember.arange(24.0).reshape(2, 3, 4)
    assert ember.equal(seq(x), x.flip(-2))


def test_mixup_and_cutmix_arithmetic():
    x = ember.rand(4, 3, 8, 8)
    y = ember.tensor([0, 1, 2, 3])
    ember.manual_seed(0)
    mixed, labels = v2.MixUp(alpha=1.0, num_classes=4)(x, y)
    lam = float(labels[0, 0].item())
    np.testing.assert_allclose(mixed.numpy(), lam * x.numpy() + (1 - lam) * np.roll(x.numpy(), 1, 0), rtol=1e-5)
    np.testing.assert_allclose(labels.sum(1).numpy(), np.ones(4), rtol=1e-6)
    ember.manual_seed(1)
    cut, labels = v2.CutMix(alpha=1.0, num_classes=4)(x, y)
    from_rolled = np.all(cut.numpy() == np.roll(x.numpy(), 1, 0), axis=(0, 1))
    kept = np.all(cut.numpy() == x.numpy(), axis=(0, 1))
    assert np.all(from_rolled | kept)
    area = from_rolled.mean() if not kept.all() else 0.0
    np.testing.assert_allclose(labels[0, 0].item(), 1.0 - area, rtol=1e-6)
