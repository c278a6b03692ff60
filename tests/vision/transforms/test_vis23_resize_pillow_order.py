"""antialias=True tensor resize against Pillow on noise, where bicubic's overshoot clips between the passes: with
the pass order (Pillow 13 filters vertically first when the height loses more than twice as many pixels as the
width) uint8 results are within one level of Pillow's, bicubic and bilinear, for reductions, enlargements and mixes
of both. (Not to the level: the taps are the core op's, PyTorch's float weights and int16 fixed point, not Pillow's
22-bit ones, so a sum on a rounding tie can land either side of it.)"""
import numpy as np
import PIL
import pytest
from PIL import Image

import ember
from embervision.transforms import InterpolationMode
from embervision.transforms import functional as F
from embervision.transforms._resize_aa import vertical_first

PILLOW_13 = int(PIL.__version__.split(".")[0]) >= 13
_PIL = {InterpolationMode.BILINEAR: Image.Resampling.BILINEAR, InterpolationMode.BICUBIC: Image.Resampling.BICUBIC}


def _compare(arr, oh, ow, mode):
    t = ember.from_numpy(arr.transpose(2, 0, 1).copy())
    ours = F.resize(t, [oh, ow], mode, antialias=True).numpy().astype(int)
    pillow = np.asarray(Image.fromarray(arr).resize((ow, oh), _PIL[mode])).transpose(2, 0, 1).astype(int)
    assert ours.shape == pillow.shape
    return np.abs(ours - pillow).max()


def test_pass_order_rule():
    assert vertical_first(100, 50, 20, 40)       # height loses 80 pixels, width 10
    assert not vertical_first(100, 50, 70, 30)   # 30 is not more than 2 * 20
    assert vertical_first(54, 73, 41, 100)       # the width grows: any height loss counts
    assert not vertical_first(40, 50, 60, 20)    # the height grows


@pytest.mark.skipif(not PILLOW_13, reason="Pillow before 13 always filters horizontally first")
@pytest.mark.parametrize("mode", [InterpolationMode.BICUBIC, InterpolationMode.BILINEAR])
def test_noise_any_shapes_within_one_level_of_pillow(mode):
    rng = np.random.default_rng(11)
    orders = set()
    for _ in range(40):
        h, w = (int(v) for v in rng.integers(4, 100, 2))
        oh, ow = (int(v) for v in rng.integers(2, 100, 2))
        arr = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        orders.add(vertical_first(h, w, oh, ow))
        assert _compare(arr, oh, ow, mode) <= 1, (h, w, oh, ow)
    assert orders == {True, False}


@pytest.mark.skipif(not PILLOW_13, reason="Pillow before 13 always filters horizontally first")
@pytest.mark.parametrize("shape", [(83, 98, 5, 97), (54, 73, 41, 100), (57, 65, 41, 95), (118, 36, 43, 119)])
def test_vertical_first_cases_that_clip(shape):
    # these differed from Pillow by 2 to 16 levels when the horizontal pass always went first
    h, w, oh, ow = shape
    arr = np.random.default_rng(sum(shape)).integers(0, 256, (h, w, 3), dtype=np.uint8)
    assert _compare(arr, oh, ow, InterpolationMode.BICUBIC) <= 1


def test_batched_and_gray_uint8_use_the_same_arithmetic():
    rng = np.random.default_rng(4)
    batch = rng.integers(0, 256, (2, 3, 40, 30), dtype=np.uint8)
    out = F.resize(ember.from_numpy(batch), [9, 25], InterpolationMode.BICUBIC, antialias=True)
    for i in range(2):
        one = F.resize(ember.from_numpy(batch[i].copy()), [9, 25], InterpolationMode.BICUBIC, antialias=True)
        np.testing.assert_array_equal(out[i].numpy(), one.numpy())
    gray = rng.integers(0, 256, (31, 47), dtype=np.uint8)
    ours = F.resize(ember.from_numpy(gray[None].copy()), [6, 40], InterpolationMode.BICUBIC, antialias=True)
    pillow = np.asarray(Image.fromarray(gray).resize((40, 6), Image.Resampling.BICUBIC))
    assert np.abs(ours.numpy()[0].astype(int) - pillow.astype(int)).max() <= 1
