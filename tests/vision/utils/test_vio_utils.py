"""embervision.utils against hand-built expectations (NumPy grids, box outlines and blends computed
here) and Pillow (the default font's glyphs, circles)."""
import io

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

import ember
from embervision.utils import draw_bounding_boxes, draw_keypoints, draw_segmentation_masks, make_grid, save_image

RNG = np.random.default_rng(5)


def _grid_reference(images: np.ndarray, nrow: int, padding: int, pad_value: float) -> np.ndarray:
    b, c, h, w = images.shape
    cols = min(nrow, b)
    rows = -(-b // cols)
    grid = np.full((c, rows * (h + padding) + padding, cols * (w + padding) + padding), pad_value, images.dtype)
    for k in range(b):
        y, x = divmod(k, cols)
        top, left = y * (h + padding) + padding, x * (w + padding) + padding
        grid[:, top:top + h, left:left + w] = images[k]
    return grid


@pytest.mark.parametrize("count, nrow, padding", [(5, 2, 2), (8, 8, 0), (3, 5, 3)])
def test_make_grid_tiles_like_the_reference(count, nrow, padding):
    images = RNG.random((count, 3, 4, 6)).astype(np.float32)
    out = make_grid(ember.tensor(images), nrow=nrow, padding=padding, pad_value=0.25)
    np.testing.assert_array_equal(out.numpy(), _grid_reference(images, nrow, padding, 0.25))
    from_list = make_grid([ember.tensor(x) for x in images], nrow=nrow, padding=padding, pad_value=0.25)
    np.testing.assert_array_equal(from_list.numpy(), out.numpy())


def test_make_grid_gray_and_single_images():
    gray = RNG.random((2, 1, 3, 3)).astype(np.float32)
    out = make_grid(ember.tensor(gray), padding=1)
    np.testing.assert_array_equal(out.numpy(), _grid_reference(np.repeat(gray, 3, axis=1), 8, 1, 0.0))
    single = RNG.random((3, 3)).astype(np.float32)
    np.testing.assert_array_equal(make_grid(ember.tensor(single)).numpy(), np.stack([single] * 3))


def test_make_grid_normalize():
    images = (RNG.random((2, 3, 2, 2)) * 10 - 3).astype(np.float32)
    whole = make_grid(ember.tensor(images), normalize=True, padding=0).numpy()
    expected = (images - images.min()) / (images.max() - images.min())
    np.testing.assert_allclose(whole, _grid_reference(expected, 8, 0, 0.0), rtol=1e-6, atol=1e-6)
    each = make_grid(ember.tensor(images), normalize=True, scale_each=True, padding=0).numpy()
    per = np.stack([(x - x.min()) / (x.max() - x.min()) for x in images])
    np.testing.assert_allclose(each, _grid_reference(per, 8, 0, 0.0), rtol=1e-6, atol=1e-6)
    ranged = make_grid(ember.tensor(images), normalize=True, value_range=(0.0, 4.0), padding=0).numpy()
    np.testing.assert_allclose(ranged, _grid_reference(np.clip(images, 0, 4) / 4, 8, 0, 0.0), atol=1e-6)
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        make_grid(ember.tensor(images), normalize=True, value_range=[0, 1])
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        make_grid(images)


def test_save_image_rounds_to_uint8(tmp_path):
    images = RNG.random((3, 3, 5, 4)).astype(np.float32)
    path = tmp_path / "grid.png"
    save_image(ember.tensor(images), str(path), nrow=2)
    expected = np.clip(_grid_reference(images, 2, 2, 0.0) * 255 + 0.5, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(np.asarray(Image.open(path)), expected.transpose(1, 2, 0))
    buf = io.BytesIO()
    save_image(ember.tensor(images[0]), buf, format="PNG")
    np.testing.assert_array_equal(np.asarray(Image.open(buf)),
                                  np.clip(images[0] * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0))


def _outline(h, w, box, width):
    x0, y0, x1, y1 = box
    inside = np.zeros((h, w), bool)
    inside[y0:y1 + 1, x0:x1 + 1] = True
    core = np.zeros((h, w), bool)
    core[y0 + width:y1 + 1 - width, x0 + width:x1 + 1 - width] = True
    return inside & ~core, core


@pytest.mark.parametrize("width", [1, 2])
def test_box_outlines_and_fill(width):
    image = RNG.integers(0, 256, (3, 20, 24), dtype=np.uint8)
    boxes = [[2, 3, 12, 15], [10, 1, 22, 9]]
    out = draw_bounding_boxes(ember.tensor(image), ember.tensor(boxes, dtype=ember.float32), width=width,
                              colors=["red", (0, 0, 255)]).numpy()
    expected = image.copy()
    for box, color in zip(boxes, [(255, 0, 0), (0, 0, 255)]):
        edge, _ = _outline(20, 24, box, width)
        expected[:, edge] = np.array(color)[:, None]
    np.testing.assert_array_equal(out, expected)
    filled = draw_bounding_boxes(ember.tensor(image), ember.tensor(boxes[:1]), width=width, colors="lime",
                                 fill=True).numpy()
    edge, core = _outline(20, 24, boxes[0], width)
    blend = image.astype(np.float64) * (155 / 255) + np.array([0, 255, 0])[:, None, None] * (100 / 255)
    np.testing.assert_allclose(filled[:, core], blend[:, core], atol=1)
    assert (filled[:, edge] == np.array([0, 255, 0])[:, None]).all()


def test_box_labels_use_pillows_default_font():
    image = np.zeros((3, 40, 60), dtype=np.uint8)
    out = draw_bounding_boxes(ember.tensor(image), ember.tensor([[1, 1, 58, 38]]), labels=["dog"], colors="white")
    reference = Image.new("RGB", (60, 40))
    draw = ImageDraw.Draw(reference)
    draw.rectangle([1, 1, 58, 38], outline=(255, 255, 255), width=1)
    draw.text((3, 3), "dog", fill=(255, 255, 255), font=ImageFont.load_default())
    np.testing.assert_array_equal(out.numpy().transpose(1, 2, 0), np.asarray(reference))
    assert out.numpy()[:, 4:20, 4:30].any()  # the label's glyphs are there


def test_gray_image_comes_back_rgb_and_checks():
    gray = RNG.integers(0, 256, (1, 8, 8), dtype=np.uint8)
    out = draw_bounding_boxes(ember.tensor(gray), ember.tensor([[0, 0, 3, 3]]), colors="red")
    assert tuple(out.shape) == (3, 8, 8)
    np.testing.assert_array_equal(out.numpy()[:, 5:, 5:], np.repeat(gray, 3, axis=0)[:, 5:, 5:])
    with pytest.raises(ValueError, match="Tensor uint8 expected"):
        draw_bounding_boxes(ember.zeros((3, 8, 8)), ember.tensor([[0, 0, 1, 1]]))
    with pytest.raises(ValueError, match="Pass individual images, not batches"):
        draw_bounding_boxes(ember.zeros((1, 3, 8, 8), dtype=ember.uint8), ember.tensor([[0, 0, 1, 1]]))
    with pytest.raises(ValueError, match=r"\(xmin, ymin, xmax, ymax\) format"):
        draw_bounding_boxes(ember.tensor(gray), ember.tensor([[4, 0, 1, 1]]))
    with pytest.raises(ValueError, match="Number of boxes \\(1\\) and labels \\(2\\) mismatch"):
        draw_bounding_boxes(ember.tensor(gray), ember.tensor([[0, 0, 1, 1]]), labels=["a", "b"])


def test_segmentation_masks_blend():
    image = RNG.integers(0, 256, (3, 6, 7), dtype=np.uint8)
    masks = RNG.random((2, 6, 7)) > 0.5
    out = draw_segmentation_masks(ember.tensor(image), ember.tensor(masks), alpha=0.3,
                                  colors=["blue", (10, 200, 30)]).numpy()
    painted = image.copy()
    for mask, color in zip(masks, [(0, 0, 255), (10, 200, 30)]):  # later masks paint over earlier ones
        painted[:, mask] = np.array(color, dtype=np.uint8)[:, None]
    expected = (image.astype(np.float32) * 0.7 + painted.astype(np.float32) * 0.3).astype(np.uint8)
    assert np.abs(out.astype(np.int32) - expected).max() <= 1  # float32 rounding at .0 boundaries
    stripes = np.zeros((3, 6, 7), bool)
    for i in range(3):
        stripes[i, 2 * i:2 * i + 2] = True  # rows 0-1, 2-3, 4-5
    default = draw_segmentation_masks(ember.tensor(image), ember.tensor(stripes), alpha=1.0).numpy()
    for i in range(3):  # torchvision's default colors: i * (2^25 - 1, 2^15 - 1, 2^21 - 1) mod 255
        color = np.array([(i * p) % 255 for p in (2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1)], dtype=np.uint8)
        assert (default[:, 2 * i:2 * i + 2] == color[:, None, None]).all()


def test_segmentation_mask_checks():
    image = ember.zeros((3, 4, 4), dtype=ember.uint8)
    with pytest.raises(ValueError, match="The masks must be of dtype bool"):
        draw_segmentation_masks(image, ember.zeros((4, 4)))
    with pytest.raises(ValueError, match="same height and width"):
        draw_segmentation_masks(image, ember.zeros((4, 5), dtype=ember.bool))
    with pytest.raises(ValueError, match="Pass an RGB image"):
        draw_segmentation_masks(ember.zeros((1, 4, 4), dtype=ember.uint8), ember.zeros((4, 4), dtype=ember.bool))


def test_keypoints_are_pillow_circles_and_lines():
    image = np.zeros((3, 30, 30), dtype=np.uint8)
    points = [[[5, 5], [20, 22], [25, 8]]]
    out = draw_keypoints(ember.tensor(image), ember.tensor(points), connectivity=[(0, 1)], colors="red", radius=3,
                         width=2)
    reference = Image.new("RGB", (30, 30))
    draw = ImageDraw.Draw(reference)
    for x, y in points[0]:
        draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=(255, 0, 0), outline=None, width=0)
    draw.line(((5, 5), (20, 22)), width=2)
    np.testing.assert_array_equal(out.numpy().transpose(1, 2, 0), np.asarray(reference))
    assert tuple(out.numpy()[:, 8, 25]) == (255, 0, 0)  # a keypoint's centre
    with pytest.raises(ValueError, match=r"keypoints must be of shape \(num_instances, K, 2\)"):
        draw_keypoints(ember.tensor(image), ember.tensor([[1, 2]]))
