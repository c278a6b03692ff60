"""transforms.v2 on tv_tensors.KeyPoints: every geometric transform moves the points with the image. Each point
is rendered as a blob of pixels centred on it in a Mask channel of its own; the Mask goes through the same
transform (nearest sampling) and the blob's centroid is where the point must land: exactly for flips, crops,
pads, right-angle rotations and integer upscales, within a pixel for random affine/crop/resize pipelines."""
import numpy as np
import pytest

import ember
from embervision import tv_tensors as tv
from embervision.transforms import v2
from embervision.transforms.v2 import functional as F2

H, W = 40, 56
POINTS = [[12.0, 9.0], [40.0, 14.0], [20.0, 30.0], [33.0, 22.0]]


def _render(points, h=H, w=W, radius=2):
    masks = np.zeros((len(points), h, w), dtype=np.uint8)
    for k, (x, y) in enumerate(points):
        x, y = int(x), int(y)
        masks[k, y - radius:y + radius + 1, x - radius:x + radius + 1] = 1
    return tv.Mask(ember.from_numpy(masks))


def _centroids(masks):
    out = []
    for m in masks.numpy():
        ys, xs = np.nonzero(m)
        out.append(None if len(xs) == 0 else [xs.mean(), ys.mean()])
    return out


def _close_where_whole(points, masks, tol):
    """Points whose blob lies whole inside the canvas are within tol of its centroid; returns how many."""
    checked = 0
    h, w = masks.shape[-2:]
    for p, m in zip(points.numpy(), masks.numpy()):
        ys, xs = np.nonzero(m)
        if len(xs) == 0 or xs.min() == 0 or ys.min() == 0 or xs.max() == w - 1 or ys.max() == h - 1:
            continue  # cut by the border: its centroid is no longer the point
        assert np.abs(p - np.array([xs.mean(), ys.mean()])).max() <= tol, (p, xs.mean(), ys.mean())
        checked += 1
    return checked


def _sample():
    image = tv.Image(ember.zeros(3, H, W, dtype=ember.uint8))
    return image, tv.KeyPoints(POINTS, canvas_size=(H, W)), _render(POINTS)


def _check_exact(points, masks):
    for p, c in zip(points.numpy(), _centroids(masks)):
        np.testing.assert_allclose(p, c, atol=1e-5)


@pytest.mark.parametrize("op", [
    lambda x: F2.hflip(x), lambda x: F2.vflip(x), lambda x: F2.crop(x, 3, 5, 30, 44),
    lambda x: F2.pad(x, [4, 2, 1, 7]), lambda x: F2.center_crop(x, [32, 38]),
    lambda x: F2.resize(x, [2 * H, 3 * W], v2.InterpolationMode.NEAREST),
    lambda x: F2.rotate(x, 90.0, expand=True), lambda x: F2.rotate(x, 180.0),
    lambda x: F2.rotate(x, -90.0, expand=True),
    lambda x: F2.affine(x, 0.0, [6.0, -3.0], 1.0, [0.0, 0.0]),
], ids=["hflip", "vflip", "crop", "pad", "center_crop", "upscale", "rot90_expand", "rot180", "rot270_expand",
        "translate"])
def test_exact_ops_follow_the_rendered_points(op):
    _, points, masks = _sample()
    out_points, out_masks = op(points), op(masks)
    assert isinstance(out_points, tv.KeyPoints)
    assert out_points.canvas_size == tuple(out_masks.shape[-2:])
    _check_exact(out_points, out_masks)


def test_rot90_of_a_square_sends_pixel_to_its_rotated_pixel():
    # a 90-degree counter-clockwise turn of an n x n image moves pixel (x, y) to (y, n - 1 - x)
    n = 9
    points = tv.KeyPoints([[2.0, 1.0], [8.0, 0.0]], canvas_size=(n, n))
    np.testing.assert_allclose(F2.rotate(points, 90.0).numpy(), [[1.0, 6.0], [0.0, 0.0]], atol=1e-9)


@pytest.mark.parametrize("seed", range(10))
def test_random_pipeline_moves_points_with_their_blobs(seed):
    image, points, masks = _sample()
    pipeline = v2.Compose([v2.RandomAffine(degrees=25, translate=(0.1, 0.1), scale=(0.9, 1.3), shear=8),
                           v2.RandomCrop((34, 48)), v2.RandomHorizontalFlip(), v2.RandomVerticalFlip(),
                           v2.Resize((51, 72), interpolation=v2.InterpolationMode.NEAREST)])
    ember.manual_seed(seed)
    out_image, out_points, out_masks = pipeline(image, points, masks)
    assert out_points.canvas_size == (51, 72) and list(out_image.shape) == [3, 51, 72]
    assert _close_where_whole(out_points, out_masks, tol=1.0) >= 2


def test_rotation_with_expand_and_center_and_random_rotation():
    _, points, masks = _sample()
    for angle in (30.0, -75.0):
        out_p, out_m = F2.rotate(points, angle, expand=True), F2.rotate(masks, angle, expand=True)
        assert out_p.canvas_size == tuple(out_m.shape[-2:])
        assert _close_where_whole(out_p, out_m, tol=0.75) == len(POINTS)
        out_p, out_m = F2.rotate(points, angle, center=[30, 18]), F2.rotate(masks, angle, center=[30, 18])
        assert _close_where_whole(out_p, out_m, tol=0.75) >= 2
    ember.manual_seed(3)
    out_points, out_masks = v2.RandomRotation(40, expand=True)(points, masks)
    assert _close_where_whole(out_points, out_masks, tol=0.75) == len(POINTS)


def test_keypoints_type_shape_and_errors():
    kp = tv.KeyPoints([3, 4], canvas_size=(10, 20))
    assert list(kp.shape) == [1, 2] and kp.canvas_size == (10, 20)
    skeleton = tv.KeyPoints(ember.zeros(2, 5, 2, 2), canvas_size=(8, 8))
    assert list(F2.hflip(skeleton).shape) == [2, 5, 2, 2]
    np.testing.assert_array_equal(F2.hflip(skeleton).numpy(), np.full((2, 5, 2, 2), [7.0, 0.0]))
    assert "canvas_size=(10, 20)" in repr(kp)
    with pytest.raises(ValueError, match=r"Expected a tensor of shape \(..., 2\), not \[2, 3\]"):
        tv.KeyPoints(ember.zeros(2, 3), canvas_size=(4, 4))
    with pytest.raises(ValueError, match="canvas_size should be"):
        tv.KeyPoints([[1, 2]], canvas_size=(4,))
    with pytest.raises(ValueError, match="Padding mode 'reflect' is not supported with KeyPoints"):
        F2.pad(kp, [1, 1], padding_mode="reflect")


def test_integer_points_round_and_colour_ops_pass_points_through():
    kp = tv.KeyPoints(ember.tensor([[3, 4], [0, 9]], dtype=ember.int64), canvas_size=(10, 20))
    out = F2.resize(kp, [15, 30])
    assert out.dtype == ember.int64
    np.testing.assert_array_equal(out.numpy(), np.round((np.array([[3, 4], [0, 9]]) + 0.5) * 1.5 - 0.5))
    image = tv.Image(ember.rand(3, 10, 20))
    _, same = v2.ColorJitter(brightness=0.5, hue=0.1)(image, kp)
    assert same is kp
    _, same = v2.ToDtype(ember.float64, scale=True)(image, kp)
    assert same.dtype == ember.int64
    _, same = v2.Normalize([0.5] * 3, [0.2] * 3)(image, kp)
    assert same is kp


def test_keypoints_alone_set_the_size():
    kp = tv.KeyPoints([[1.0, 2.0]], canvas_size=(10, 20))
    out = v2.CenterCrop(6)(kp)
    assert out.canvas_size == (6, 6)
    np.testing.assert_allclose(out.numpy(), [[1.0 - 7, 2.0 - 2]])
