"""Tensor-vs-PIL parity of transforms.functional: the tensor path (ember ops) against the PIL path
(Pillow), exactly for flips/crops/pads and within torchvision's tolerances for resampling/colour ops."""
import numpy as np
import pytest
from PIL import Image

import ember
import embervision.transforms.functional as F
from embervision.transforms import InterpolationMode


def _image(h=37, w=53, channels=3, seed=0):
    rng = np.random.default_rng(seed)
    arr = rng.integers(0, 256, (h, w, channels) if channels > 1 else (h, w), dtype=np.uint8)
    return Image.fromarray(arr)


def _smooth_image(h=40, w=60):
    """Gradients and a disc: few pixels sit on a sampling edge, so sampling ops agree closely."""
    y, x = np.mgrid[0:h, 0:w]
    r = (x * 255 // (w - 1)).astype(np.uint8)
    g = (y * 255 // (h - 1)).astype(np.uint8)
    b = (((x - w / 2) ** 2 + (y - h / 2) ** 2 < (min(h, w) / 3) ** 2) * 200 + 20).astype(np.uint8)
    return Image.fromarray(np.stack([r, g, b], -1))


def _as_np(img):
    if isinstance(img, Image.Image):
        arr = np.asarray(img)
        return (arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)).astype(np.int64)
    return img.numpy().astype(np.int64)


def _diff(pil_out, tensor_out):
    a, b = _as_np(pil_out), _as_np(tensor_out)
    assert a.shape == b.shape
    return np.abs(a - b)


@pytest.fixture
def pair():
    pil = _image()
    return pil, F.pil_to_tensor(pil)


@pytest.mark.parametrize("op,args", [
    ("hflip", ()), ("vflip", ()), ("crop", (3, 4, 20, 30)), ("crop", (-3, -4, 50, 60)), ("center_crop", ([20, 25],)),
    ("center_crop", ([40, 60],)), ("invert", ()), ("posterize", (3,)), ("solarize", (128,)), ("equalize", ()),
    ("autocontrast", ()), ("adjust_brightness", (1.3,)), ("adjust_gamma", (0.7,)), ("adjust_gamma", (1.8, 0.9)),
    ("adjust_sharpness", (2.0,)), ("gaussian_blur", ([5, 3], [1.5, 0.8])),
])
def test_exact_ops(pair, op, args):
    pil, t = pair
    assert _diff(getattr(F, op)(pil, *args), getattr(F, op)(t, *args)).max() == 0


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
@pytest.mark.parametrize("padding", [[2, 3, 4, 5], [-2, 3, 4, -5], 3, [1, 2]])
def test_pad_exact(pair, mode, padding):
    pil, t = pair
    assert _diff(F.pad(pil, padding, padding_mode=mode), F.pad(t, padding, padding_mode=mode)).max() == 0


def test_pad_constant_fill(pair):
    pil, t = pair
    assert _diff(F.pad(pil, [2, 1, 0, 4], fill=77), F.pad(t, [2, 1, 0, 4], fill=77)).max() == 0


@pytest.mark.parametrize("op,factor,tol", [
    ("adjust_contrast", 0.6, 1), ("adjust_contrast", 1.5, 1), ("adjust_saturation", 0.4, 1),
    ("adjust_saturation", 1.7, 1), ("adjust_sharpness", 0.3, 1), ("adjust_brightness", 0.45, 1),
    ("adjust_hue", 0.2, 16), ("adjust_hue", -0.45, 16),
])
def test_colour_ops_close(pair, op, factor, tol):
    # blends truncate to uint8 as torchvision's do where Pillow rounds: one level apart at most
    pil, t = pair
    assert _diff(getattr(F, op)(pil, factor), getattr(F, op)(t, factor)).max() <= tol


@pytest.mark.parametrize("channels", [1, 3])
def test_grayscale(channels):
    pil = _image()
    out_t = F.rgb_to_grayscale(F.pil_to_tensor(pil), channels)
    assert out_t.shape[-3] == channels
    assert _diff(F.rgb_to_grayscale(pil, channels), out_t).max() <= 1


def test_rotate_and_affine_mostly_equal():
    # torchvision's criterion for nearest sampling: under 3% of the pixels differ
    pil, t = _image(), F.pil_to_tensor(_image())
    for pil_out, t_out in [(F.rotate(pil, 30), F.rotate(t, 30)),
                           (F.rotate(pil, -47, expand=True), F.rotate(t, -47, expand=True)),
                           (F.rotate(pil, 10, center=[5, 8]), F.rotate(t, 10, center=[5, 8])),
                           (F.affine(pil, 20, [3, 4], 0.9, [10, 5]), F.affine(t, 20, [3, 4], 0.9, [10, 5])),
                           (F.affine(pil, -15, [-2, 1], 1.2, [-5, 0], fill=[10, 20, 30]),
                            F.affine(t, -15, [-2, 1], 1.2, [-5, 0], fill=[10, 20, 30]))]:
        assert (_diff(pil_out, t_out) > 0).mean() < 0.03


def test_rotate_right_angles_exact():
    pil, t = _image(), F.pil_to_tensor(_image())
    for angle in (90, 180, 270):
        assert _diff(F.rotate(pil, angle, expand=True), F.rotate(t, angle, expand=True)).max() == 0


def test_bilinear_rotate_and_perspective_close():
    pil = _smooth_image()
    t = F.pil_to_tensor(pil)
    bil = InterpolationMode.BILINEAR
    assert _diff(F.rotate(pil, 25, bil), F.rotate(t, 25, bil)).mean() < 2.0
    start, end = [[0, 0], [59, 0], [59, 39], [0, 39]], [[3, 2], [55, 4], [57, 36], [5, 33]]
    assert (_diff(F.perspective(pil, start, end, InterpolationMode.NEAREST),
                  F.perspective(t, start, end, InterpolationMode.NEAREST)) > 0).mean() < 0.03
    assert _diff(F.perspective(pil, start, end, bil), F.perspective(t, start, end, bil)).mean() < 2.0


def test_resize_upscale_bilinear_close():
    # upscaling: Pillow's bilinear is interpolate's (align_corners=False); rounding differs at most by one
    pil = _image(20, 30)
    t = F.pil_to_tensor(pil)
    assert _diff(F.resize(pil, [45, 61]), F.resize(t, [45, 61])).max() <= 1


def test_resize_nearest_matches_floor_indexing():
    # tensors follow torchvision 0.10 (interpolate's 'nearest': source = floor(dst * in / out)), not Pillow's centres
    pil = _image(11, 13)
    t = F.pil_to_tensor(pil)
    out = F.resize(t, [25, 7], InterpolationMode.NEAREST).numpy()
    rows = np.floor(np.arange(25) * 11 / 25).astype(int)
    cols = np.floor(np.arange(7) * 13 / 7).astype(int)
    np.testing.assert_array_equal(out, t.numpy()[:, rows][:, :, cols])


def test_five_and_ten_crop(pair):
    pil, t = pair
    for pil_out, t_out in zip(F.ten_crop(pil, [10, 12], vertical_flip=True), F.ten_crop(t, [10, 12], True)):
        assert _diff(pil_out, t_out).max() == 0


def test_conversions_round_trip(pair):
    pil, t = pair
    floats = F.to_tensor(pil)
    assert floats.dtype == ember.float32
    np.testing.assert_allclose(floats.numpy(), np.asarray(pil).transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert np.array_equal(np.asarray(F.to_pil_image(floats)), np.asarray(pil))
    assert np.array_equal(np.asarray(F.to_pil_image(t)), np.asarray(pil))
    gray = _image(channels=1)
    assert F.to_pil_image(F.pil_to_tensor(gray)).mode == "L"


def test_convert_image_dtype():
    u8 = ember.tensor([0, 1, 127, 128, 255], dtype=ember.uint8)
    f = F.convert_image_dtype(u8, ember.float32)
    np.testing.assert_allclose(f.numpy(), np.array([0, 1, 127, 128, 255]) / 255.0, rtol=1e-6)
    back = F.convert_image_dtype(f, ember.uint8)
    assert back.tolist() == [0, 1, 127, 128, 255]
    assert F.convert_image_dtype(u8, ember.int32).tolist() == [v << 23 for v in [0, 1, 127, 128, 255]]
    assert F.convert_image_dtype(ember.tensor([1 << 30], dtype=ember.int32), ember.uint8).tolist() == [128]
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        F.convert_image_dtype(f, ember.int32)


def test_normalize_matches_numpy():
    x = ember.rand(2, 3, 4, 5)
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.25, 2.0]
    ref = (x.numpy() - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    np.testing.assert_allclose(F.normalize(x, mean, std).numpy(), ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="Input tensor should be a float tensor"):
        F.normalize(ember.zeros(3, 2, 2, dtype=ember.uint8), mean, std)
    with pytest.raises(ValueError, match="std evaluated to zero"):
        F.normalize(x, mean, [1.0, 0.0, 1.0])


def test_float_images_follow_uint8_results(pair):
    _, t = pair
    f = t.float() / 255
    for op, args in [("adjust_brightness", (1.3,)), ("adjust_contrast", (0.7,)), ("invert", ()),
                     ("autocontrast", ()), ("hflip", ())]:
        ref = getattr(F, op)(t, *args).float() / 255
        assert np.abs(getattr(F, op)(f, *args).numpy() - ref.numpy()).max() <= 1.01 / 255
