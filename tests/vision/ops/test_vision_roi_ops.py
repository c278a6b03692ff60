"""roi_align / ps_roi_align / roi_pool / ps_roi_pool against NumPy references written here (bilinear
sampling on the bin grid; max and mean over snapped bins), gradcheck, empty and bad boxes."""

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from embervision import ops


def bilinear(plane, y, x):
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1] + ly * (1 - lx) * plane[y1, x0]
            + ly * lx * plane[y1, x1])


def reference_align(x, rois, out_hw, scale, ratio, aligned, position_sensitive=False):
    ph, pw = out_hw
    c_out = x.shape[1] // (ph * pw) if position_sensitive else x.shape[1]
    out = np.zeros((len(rois), c_out, ph, pw))
    off = 0.5 if aligned else 0.0
    for k, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy = x1 * scale - off, y1 * scale - off
        rw, rh = x2 * scale - off - sx, y2 * scale - off - sy
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for c in range(c_out):
            for i in range(ph):
                for j in range(pw):
                    cin = (c * ph + i) * pw + j if position_sensitive else c
                    plane = x[int(b), cin]
                    total = sum(bilinear(plane, sy + i * bh + (iy + 0.5) * bh / gh, sx + j * bw + (ix + 0.5) * bw / gw)
                                for iy in range(gh) for ix in range(gw))
                    out[k, c, i, j] = total / max(gh * gw, 1)
    return out


def reference_pool(x, rois, out_hw, scale, position_sensitive=False):
    ph, pw = out_hw
    c_out = x.shape[1] // (ph * pw) if position_sensitive else x.shape[1]
    h, w = x.shape[2:]
    out = np.zeros((len(rois), c_out, ph, pw))
    extra, hi_h, hi_w = (0, h - 1, w - 1) if position_sensitive else (1, h, w)
    for k, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy, ex, ey = (int(np.round(v * scale)) for v in (x1, y1, x2, y2))
        rw, rh = max(ex - sx + extra, 1), max(ey - sy + extra, 1)
        bh, bw = rh / ph, rw / pw
        for c in range(c_out):
            for i in range(ph):
                for j in range(pw):
                    h0 = min(max(math.floor(i * bh) + sy, 0), hi_h)
                    h1 = min(max(math.ceil((i + 1) * bh) + sy, 0), hi_h)
                    w0 = min(max(math.floor(j * bw) + sx, 0), hi_w)
                    w1 = min(max(math.ceil((j + 1) * bw) + sx, 0), hi_w)
                    if h1 <= h0 or w1 <= w0:
                        continue
                    cin = (c * ph + i) * pw + j if position_sensitive else c
                    region = x[int(b), cin, h0:h1, w0:w1]
                    out[k, c, i, j] = region.mean() if position_sensitive else region.max()
    return out


def random_rois(rng, k, n, size):
    b = rng.integers(0, n, size=(k, 1)).astype(np.float64)
    xy = rng.uniform(-2, size - 2, size=(k, 2))
    wh = rng.uniform(0.3, size / 2, size=(k, 2))
    return np.concatenate([b, xy, xy + wh], axis=1)


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("ratio", [-1, 2])
@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_roi_align_matches_bilinear_reference(aligned, ratio, scale):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 9, 11))
    rois = random_rois(rng, 7, 2, 18 if scale == 0.5 else 9)
    got = ops.roi_align(ember.tensor(x), ember.tensor(rois), (3, 2), scale, ratio, aligned)
    np.testing.assert_allclose(got.numpy(), reference_align(x, rois, (3, 2), scale, ratio, aligned), atol=1e-12)


def test_roi_align_takes_a_box_list_and_float32():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 2, 8, 8)).astype(np.float32)
    per_image = [rng.uniform(0, 4, size=(3, 4)).astype(np.float32) for _ in range(2)]
    for b in per_image:
        b[:, 2:] += b[:, :2] + 1
    rois = np.concatenate([np.concatenate([np.full((3, 1), i, np.float32), b], 1) for i, b in enumerate(per_image)])
    got = ops.roi_align(ember.tensor(x), [ember.tensor(b) for b in per_image], 2, 1.0, -1, True)
    assert got.dtype == ember.float32
    np.testing.assert_allclose(got.numpy(), reference_align(x, rois, (2, 2), 1.0, -1, True), rtol=1e-5, atol=1e-6)
    module = ops.RoIAlign((2, 2), 1.0, -1, aligned=True)
    np.testing.assert_allclose(module(ember.tensor(x), ember.tensor(rois)).numpy(), got.numpy())
    assert repr(module) == "RoIAlign(output_size=(2, 2), spatial_scale=1.0, sampling_ratio=-1, aligned=True)"


def test_ps_roi_align_matches_reference():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 2 * 2 * 3, 7, 8))
    rois = random_rois(rng, 5, 2, 7)
    got = ops.ps_roi_align(ember.tensor(x), ember.tensor(rois), (2, 3), 1.0, 2)
    assert tuple(got.shape) == (5, 2, 2, 3)
    np.testing.assert_allclose(got.numpy(), reference_align(x, rois, (2, 3), 1.0, 2, True, True), atol=1e-12)


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_roi_pool_matches_reference(scale):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 10, 9))
    rois = random_rois(rng, 8, 2, 18 if scale == 0.5 else 9)
    got = ops.roi_pool(ember.tensor(x), ember.tensor(rois), (3, 2), scale)
    np.testing.assert_allclose(got.numpy(), reference_pool(x, rois, (3, 2), scale), atol=1e-12)


def test_ps_roi_pool_matches_reference():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3 * 2 * 2, 9, 9))
    rois = random_rois(rng, 6, 2, 9)
    got = ops.ps_roi_pool(ember.tensor(x), ember.tensor(rois), 2, 1.0)
    np.testing.assert_allclose(got.numpy(), reference_pool(x, rois, (2, 2), 1.0, True), atol=1e-12)


@pytest.mark.parametrize("name", ["roi_align", "ps_roi_align", "roi_pool", "ps_roi_pool"])
def test_gradcheck_float64(name):
    rng = np.random.default_rng(5)
    x = ember.tensor(rng.normal(size=(2, 8, 6, 7)), requires_grad=True)
    rois = ember.tensor([[0, 0.3, 0.6, 4.2, 3.9], [1, 1.1, 0.2, 5.7, 5.1], [1, -0.7, 2.3, 3.4, 6.2]],
                        dtype=ember.float64)
    fn = {
        "roi_align": lambda t: ops.roi_align(t, rois, 2, 1.0, 2, True),
        "ps_roi_align": lambda t: ops.ps_roi_align(t, rois, 2, 1.0, 2),
        "roi_pool": lambda t: ops.roi_pool(t, rois, 2, 1.0),
        "ps_roi_pool": lambda t: ops.ps_roi_pool(t, rois, 2, 1.0),
    }[name]
    assert gradcheck(fn, (x,))


def test_roi_align_backward_matches_reference_weights():
    # d(sum of outputs)/d(input): each sample spreads 1/count over its four neighbours.
    x = ember.zeros((1, 1, 5, 5), dtype=ember.float64, requires_grad=True)
    ops.roi_align(x, ember.tensor([[0, 1.0, 1.0, 3.0, 3.0]], dtype=ember.float64), 1, 1.0, 1, False).sum().backward()
    expected = np.zeros((5, 5))
    expected[2, 2] = 1.0  # the single sample sits exactly on pixel (2, 2)
    np.testing.assert_allclose(x.grad.numpy()[0, 0], expected)


@pytest.mark.parametrize("fn", [ops.roi_align, ops.roi_pool])
def test_empty_boxes_give_empty_output(fn):
    x = ember.ones((1, 3, 4, 4))
    out = fn(x, ember.zeros((0, 5)), (2, 2))
    assert tuple(out.shape) == (0, 3, 2, 2)
    out = fn(x, [ember.zeros((0, 4))], (2, 2))
    assert tuple(out.shape) == (0, 3, 2, 2)


@pytest.mark.parametrize("fn", [ops.roi_align, ops.ps_roi_align, ops.roi_pool, ops.ps_roi_pool])
def test_bad_boxes_raise(fn):
    x = ember.ones((1, 4, 4, 4))
    with pytest.raises(AssertionError, match=r"Tensor\[K, 5\]"):
        fn(x, ember.zeros((2, 4)), (2, 2))
    with pytest.raises(AssertionError, match=r"List\[Tensor\[L, 4\]\]"):
        fn(x, [ember.zeros((2, 5))], (2, 2))
    with pytest.raises(AssertionError, match="boxes is expected"):
        fn(x, "boxes", (2, 2))
    with pytest.raises(ValueError, match="box 0 has a non-finite coordinate"):
        fn(x, ember.tensor([[0.0, float("nan"), 0, 1, 1]]), (2, 2))
    with pytest.raises(IndexError, match="batch index 3"):
        fn(x, ember.tensor([[3.0, 0, 0, 1, 1]]), (2, 2))
    with pytest.raises(TypeError, match="dtype"):
        fn(x, ember.zeros((1, 5), dtype=ember.float64), (2, 2))


def test_autocast_runs_in_float32_and_returns_the_input_dtype():
    rng = np.random.default_rng(6)
    x = ember.tensor(rng.normal(size=(1, 4, 6, 6)).astype(np.float32))
    rois = ember.tensor([[0, 0.5, 0.5, 4.5, 3.5]])
    expected = ops.roi_align(x, rois, 2, 1.0, 2, True)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        got = ops.roi_align(x.to(ember.bfloat16), rois.to(ember.bfloat16), 2, 1.0, 2, True)
        pooled = ops.roi_pool(x.to(ember.bfloat16), [rois[:, 1:].to(ember.bfloat16)], 2)
        keep = ops.nms(rois[:, 1:].to(ember.bfloat16), ember.ones(1, dtype=ember.bfloat16), 0.5)
    assert got.dtype == ember.bfloat16 and pooled.dtype == ember.bfloat16 and keep.tolist() == [0]
    np.testing.assert_allclose(got.float().numpy(), expected.numpy(), rtol=2e-2, atol=2e-2)
