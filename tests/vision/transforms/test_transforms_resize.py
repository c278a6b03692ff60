"""Tensor resize: antialias=True against Pillow's resampling (within one level for uint8), float images
against Pillow's 32-bit float mode, Resize's size rules (shorter edge, max_size) and any batch shape."""
import numpy as np
import pytest
from PIL import Image

import ember
import embervision.transforms as T
import embervision.transforms.functional as F
from embervision.transforms import InterpolationMode

_MODES = [InterpolationMode.BILINEAR, InterpolationMode.BICUBIC]
_PIL = {InterpolationMode.BILINEAR: Image.Resampling.BILINEAR, InterpolationMode.BICUBIC: Image.Resampling.BICUBIC}


def _noise(h, w, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("size", [[20, 31], [70, 90], [37, 20], [5, 7], [37, 53], [101, 13]])
def test_antialias_uint8_within_one_level_of_pillow(mode, size):
    arr = _noise(37, 53)
    t = ember.from_numpy(arr.transpose(2, 0, 1).copy())
    ours = F.resize(t, size, mode, antialias=True).numpy().astype(int)
    pillow = np.asarray(Image.fromarray(arr).resize((size[1], size[0]), _PIL[mode]))
    assert ours.shape == pillow.transpose(2, 0, 1).shape
    assert np.abs(ours - pillow.transpose(2, 0, 1).astype(int)).max() <= 1


@pytest.mark.parametrize("mode", _MODES)
def test_antialias_float_matches_pillow_float_mode(mode):
    arr = np.random.default_rng(1).random((29, 41)).astype(np.float32)
    ours = F.resize(ember.from_numpy(arr[None].copy()), [11, 17], mode, antialias=True).numpy()[0]
    pil_filter = Image.Resampling.BICUBIC if mode == InterpolationMode.BICUBIC else Image.Resampling.BILINEAR
    pillow = np.asarray(Image.fromarray(arr, mode="F").resize((17, 11), pil_filter))
    np.testing.assert_allclose(ours, pillow, atol=1e-5)


def test_antialias_weights_are_a_box_average_for_integer_factors():
    # bilinear with factor 2: the triangle stretched to support 2 gives weights 1/8, 3/8, 3/8, 1/8
    x = ember.arange(16.0).reshape(1, 1, 16)
    out = F.resize(x.expand(1, 4, 16), [4, 8], antialias=True)[0, 0].numpy()
    v = np.arange(16.0)
    padded = np.concatenate([[v[0]], v, [v[-1]]])
    ref = np.array([(padded[2 * i] + 3 * padded[2 * i + 1] + 3 * padded[2 * i + 2] + padded[2 * i + 3]) / 8
                    for i in range(8)])
    # Pillow drops the taps outside the image and renormalises instead of repeating the edge
    ref[0] = (3 * v[0] + 3 * v[1] + v[2]) / 7
    ref[-1] = (v[13] + 3 * v[14] + 3 * v[15]) / 7
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_any_leading_batch_shape_equals_per_image():
    x = ember.randint(0, 256, (2, 3, 3, 20, 24), dtype=ember.uint8)
    out = F.resize(x, [9, 10], antialias=True)
    assert list(out.shape) == [2, 3, 3, 9, 10]
    for i in range(2):
        for j in range(3):
            assert ember.equal(out[i, j], F.resize(x[i, j], [9, 10], antialias=True))
    plain = F.resize(x, [9, 10])
    assert ember.equal(plain[1, 2], F.resize(x[1, 2], [9, 10]))
    assert list(F.resize(x[0, 0, 0], [5, 6]).shape) == [5, 6]


def test_size_rules():
    x = ember.zeros(3, 40, 60)
    assert list(F.resize(x, 20).shape) == [3, 20, 30]
    assert list(F.resize(x, [20]).shape) == [3, 20, 30]
    assert list(F.resize(x, 20, max_size=25).shape) == [3, 16, 25]
    assert list(F.resize(ember.zeros(3, 60, 40), 20).shape) == [3, 30, 20]
    pil = Image.new("RGB", (60, 40))
    assert F.resize(pil, 20, max_size=25).size == (25, 16)
    with pytest.raises(ValueError, match="max_size = 20 must be strictly greater"):
        F.resize(x, 20, max_size=20)
    with pytest.raises(ValueError, match="max_size should only be passed if size specifies the length of the "
                                         "smaller edge"):
        F.resize(x, [20, 30], max_size=40)
    with pytest.raises(TypeError, match="Size should be int or sequence"):
        T.Resize("big")
    with pytest.raises(ValueError, match="unsupported with Tensor input"):
        F.resize(x, 20, InterpolationMode.LANCZOS)


def test_resize_module_with_pil_uses_pillow():
    arr = _noise(30, 40)
    out = T.Resize([15, 20], InterpolationMode.BICUBIC)(Image.fromarray(arr))
    ref = Image.fromarray(arr).resize((20, 15), Image.Resampling.BICUBIC)
    assert np.array_equal(np.asarray(out), np.asarray(ref))


@pytest.mark.parametrize("mode", _MODES)
def test_antialias_on_a_smooth_image_any_shape(mode):
    # an image without overshoot-clipping edges: either pass order of Pillow gives the same levels
    y, x = np.mgrid[0:64, 0:80]
    arr = np.stack([(x * 3) % 256, (y * 4) % 256, (x + y) * 255 // 142], -1).astype(np.uint8)
    t = ember.from_numpy(arr.transpose(2, 0, 1).copy())
    rng = np.random.default_rng(2)
    for _ in range(12):
        oh, ow = (int(v) for v in rng.integers(5, 100, 2))
        ours = F.resize(t, [oh, ow], mode, antialias=True).numpy().astype(int)
        pillow = np.asarray(Image.fromarray(arr).resize((ow, oh), _PIL[mode])).transpose(2, 0, 1).astype(int)
        assert np.abs(ours - pillow).max() <= 1, (oh, ow)


@pytest.mark.parametrize("shape", [(35, 27, 24, 24), (60, 72, 30, 53), (20, 70, 45, 13), (64, 20, 17, 50)])
def test_antialias_bilinear_noise_any_reduction(shape):
    h, w, oh, ow = shape
    arr = _noise(h, w, seed=3)
    t = ember.from_numpy(arr.transpose(2, 0, 1).copy())
    ours = F.resize(t, [oh, ow], InterpolationMode.BILINEAR, antialias=True).numpy().astype(int)
    pillow = np.asarray(Image.fromarray(arr).resize((ow, oh), Image.Resampling.BILINEAR)).transpose(2, 0, 1)
    assert np.abs(ours - pillow.astype(int)).max() <= 1


def test_pil_ignores_antialias_false_with_a_warning():
    pil = Image.fromarray(_noise(20, 20))
    with pytest.warns(UserWarning, match="Anti-alias option is always applied for PIL Image input"):
        out = F.resize(pil, [10, 10], antialias=False)
    assert out.size == (10, 10)
