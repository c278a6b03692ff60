"""InterpolationMode.LANCZOS (torchvision: PIL images only): resize, Resize, RandomResizedCrop and v2's resize of
a PIL image equal Pillow's LANCZOS resampling exactly, for each image mode, also given as Pillow's integer
constant; a float image against a NumPy Lanczos-3 resampling written here; tensors (eager, batched, scripted, v2)
raise torchvision's error."""
import numpy as np
import pytest
from PIL import Image

import ember
import embervision.transforms as T
import embervision.transforms.functional as F
import embervision.transforms.v2 as V2
from embervision.transforms import InterpolationMode

LANCZOS = InterpolationMode.LANCZOS


def noise_image(mode, h=37, w=53, seed=0):
    rng = np.random.default_rng(seed)
    if mode == "F":
        return Image.fromarray(rng.normal(size=(h, w)).astype(np.float32), mode="F")
    if mode == "I;16":
        return Image.fromarray(rng.integers(0, 65536, (h, w), dtype=np.uint16))
    channels = {"L": 1, "RGB": 3, "RGBA": 4}[mode]
    arr = rng.integers(0, 256, (h, w, channels), dtype=np.uint8)
    return Image.fromarray(arr[..., 0] if channels == 1 else arr, mode=mode)


def pillow(img, w, h):
    return np.asarray(img.resize((w, h), Image.Resampling.LANCZOS))


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "I;16", "F"])
@pytest.mark.parametrize("size,wh", [([20, 31], (31, 20)), ([70, 90], (90, 70)), (25, (35, 25))])
def test_resize_of_a_pil_image_is_pillows_lanczos(mode, size, wh):
    img = noise_image(mode)
    out = F.resize(img, size, LANCZOS)
    assert out.mode == img.mode and out.size == wh
    np.testing.assert_array_equal(np.asarray(out), pillow(img, *wh))


def test_the_pillow_constant_and_the_modules_take_lanczos():
    img = noise_image("RGB")
    want = pillow(img, 26, 18)
    np.testing.assert_array_equal(np.asarray(F.resize(img, [18, 26], int(Image.Resampling.LANCZOS))), want)
    np.testing.assert_array_equal(np.asarray(T.Resize([18, 26], interpolation=LANCZOS)(img)), want)
    np.testing.assert_array_equal(np.asarray(V2.Resize([18, 26], interpolation=LANCZOS)(img)), want)
    # the shorter edge to 18 makes the longer int(18 * 53 / 37) = 25; max_size=24 caps it, the shorter becomes
    # int(24 * 18 / 25) = 17 (torchvision's rule)
    capped = T.Resize(18, interpolation=LANCZOS, max_size=24)(img)
    np.testing.assert_array_equal(np.asarray(capped), pillow(img, 24, 17))
    ember.manual_seed(3)
    crop = T.RandomResizedCrop(16, interpolation=LANCZOS)
    top, left, h, w = crop.get_params(img, crop.scale, crop.ratio)
    ember.manual_seed(3)
    got = crop(img)
    np.testing.assert_array_equal(np.asarray(got), pillow(img.crop((left, top, left + w, top + h)), 16, 16))


def lanczos3(x):
    x = np.abs(x)
    return np.where(x < 3.0, np.sinc(x) * np.sinc(x / 3.0), 0.0)


def resample_axis(a, out_len, axis):
    """Pillow's separable resampling along one axis: each output pixel's centre mapped back, the kernel
    stretched by the scale when shrinking, its taps clipped to the image and the weights normalised."""
    in_len = a.shape[axis]
    scale = in_len / out_len
    stretch = max(scale, 1.0)
    support = 3.0 * stretch
    rows = []
    for i in range(out_len):
        centre = (i + 0.5) * scale
        lo, hi = max(int(centre - support + 0.5), 0), min(int(centre + support + 0.5), in_len)
        weights = lanczos3((np.arange(lo, hi) - centre + 0.5) / stretch)
        weights /= weights.sum()
        rows.append(np.tensordot(np.take(a, np.arange(lo, hi), axis=axis), weights, axes=([axis], [0])))
    return np.stack(rows, axis=axis)


@pytest.mark.parametrize("size", [[20, 31], [70, 90], [37, 21]])
def test_float_image_against_a_numpy_lanczos3(size):
    img = noise_image("F")
    src = np.asarray(img).astype(np.float64)
    want = resample_axis(resample_axis(src, size[1], axis=1), size[0], axis=0)  # Pillow: horizontal pass first
    got = np.asarray(F.resize(img, size, LANCZOS))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(3, 37, 53), (2, 3, 37, 53)])
def test_tensors_refuse_lanczos_as_torchvision(shape):
    x = ember.zeros(*shape, dtype=ember.uint8)
    with pytest.raises(ValueError, match="This interpolation mode is unsupported with Tensor input"):
        F.resize(x, 20, LANCZOS)
    with pytest.raises(ValueError, match="This interpolation mode is unsupported with Tensor input"):
        T.Resize(20, interpolation=LANCZOS)(x)
    with pytest.raises(ValueError, match="This interpolation mode is unsupported with Tensor input"):
        V2.Resize(20, interpolation=LANCZOS)(x)


def test_scripted_resize_refuses_lanczos_on_tensors():
    scripted = ember.jit.script(T.Resize(20, interpolation=LANCZOS))
    with pytest.raises(ValueError, match="This interpolation mode is unsupported with Tensor input"):
        scripted(ember.zeros(3, 30, 30, dtype=ember.uint8))
