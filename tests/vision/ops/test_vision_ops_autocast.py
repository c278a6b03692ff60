"""torchvision's autocast rule for its ops (csrc/ops/autocast): inside a CPU autocast region nms, roi_align,
ps_roi_align, roi_pool, ps_roi_pool and deform_conv2d cast their floating tensors (but float64) to float32, run
with autocast off and return the input's dtype; eager and scripted calls alike. The references are the NumPy
ones of the ops' own tests, computed on the bfloat16-rounded inputs in float64."""

import numpy as np
import pytest
from test_vision_deform_conv import reference as reference_deform
from test_vision_nms import random_boxes, reference_nms
from test_vision_roi_ops import reference_align, reference_pool

import ember
from embervision import ops


def bf16(a):
    return ember.tensor(a).to(ember.bfloat16)


def rounded(t):
    """The float64 values a bfloat16 tensor holds (what the float32 kernel sees after the cast)."""
    return t.to(ember.float64).numpy()


@ember.jit.script
def scripted_nms(boxes: ember.Tensor, scores: ember.Tensor, thresh: float) -> ember.Tensor:
    return ops.nms(boxes, scores, thresh)


@ember.jit.script
def scripted_roi_align(x: ember.Tensor, rois: ember.Tensor) -> ember.Tensor:
    return ops.roi_align(x, rois, [3, 2], 0.5, 2, True)


@pytest.mark.parametrize("call", [ops.nms, scripted_nms], ids=["eager", "scripted"])
def test_nms_runs_in_float32_inside_a_region(call):
    rng = np.random.default_rng(0)
    boxes, scores = bf16(random_boxes(rng, 40)), bf16(rng.uniform(size=40).astype(np.float32))
    with ember.autocast("cpu", dtype=ember.bfloat16):
        keep = call(boxes, scores, 0.5)
        mixed = call(boxes, scores.float(), 0.5)  # the cast makes mixed dtypes agree, as torchvision's does
    expected = reference_nms(rounded(boxes), rounded(scores), 0.5)
    assert keep.dtype == ember.int64
    np.testing.assert_array_equal(keep.numpy(), expected)
    np.testing.assert_array_equal(mixed.numpy(), expected)


@pytest.mark.parametrize("call", [ops.nms, scripted_nms], ids=["eager", "scripted"])
def test_nms_outside_a_region_refuses_bfloat16(call):
    boxes = bf16(np.array([[0, 0, 2, 2]], dtype=np.float32))
    with pytest.raises(TypeError, match="nms: boxes must be float32 or float64, got bfloat16"):
        call(boxes, ember.ones(1, dtype=ember.bfloat16), 0.5)


def roi_inputs():
    rng = np.random.default_rng(1)
    x = bf16(rng.normal(size=(2, 3, 9, 8)).astype(np.float32))
    rois = bf16(np.array([[0, 1.0, 2.0, 12.0, 10.0], [1, 0.0, 0.0, 15.0, 16.0], [1, 3.5, 1.5, 9.0, 7.0]],
                         dtype=np.float32))
    return x, rois


@pytest.mark.parametrize("call", [lambda x, r: ops.roi_align(x, r, [3, 2], 0.5, 2, True), scripted_roi_align],
                         ids=["eager", "scripted"])
def test_roi_align_runs_in_float32_and_returns_bfloat16(call):
    x, rois = roi_inputs()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        out = call(x, rois)
        from_float_rois = call(x, rois.float())
    expected = reference_align(rounded(x), rounded(rois), (3, 2), 0.5, 2, True)
    assert out.dtype == ember.bfloat16 and tuple(out.shape) == (3, 3, 3, 2)
    # the float32 result rounded once to bfloat16: within half a bfloat16 step of the exact value
    np.testing.assert_allclose(rounded(out), expected, rtol=2 ** -8, atol=1e-6)
    np.testing.assert_array_equal(rounded(from_float_rois), rounded(out))


def test_scripted_roi_align_in_a_region_keeps_a_float32_input_float32():
    x, rois = roi_inputs()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        out = scripted_roi_align(x.float(), rois)
    assert out.dtype == ember.float32
    np.testing.assert_allclose(out.numpy(), reference_align(rounded(x), rounded(rois), (3, 2), 0.5, 2, True),
                               rtol=1e-5, atol=1e-6)


def test_float64_inputs_stay_float64_in_a_region():
    x, rois = roi_inputs()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        out = scripted_roi_align(x.double(), rois.double())
    assert out.dtype == ember.float64
    np.testing.assert_allclose(out.numpy(), reference_align(rounded(x), rounded(rois), (3, 2), 0.5, 2, True),
                               rtol=1e-12)


@pytest.mark.parametrize("position_sensitive", [False, True])
def test_roi_pool_family_in_a_region(position_sensitive):
    rng = np.random.default_rng(2)
    x = bf16(rng.normal(size=(1, 8, 7, 7)).astype(np.float32))
    rois = bf16(np.array([[0, 0.0, 0.0, 6.0, 5.0], [0, 2.0, 1.0, 5.0, 6.0]], dtype=np.float32))
    with ember.autocast("cpu", dtype=ember.bfloat16):
        pool = ops.ps_roi_pool(x, rois, 2) if position_sensitive else ops.roi_pool(x, rois, 2)
        align = ops.ps_roi_align(x, rois, 2, 1.0, 2) if position_sensitive else None
    assert pool.dtype == ember.bfloat16
    expected = reference_pool(rounded(x), rounded(rois), (2, 2), 1.0, position_sensitive)
    np.testing.assert_allclose(rounded(pool), expected, rtol=2 ** -8, atol=1e-6)
    if position_sensitive:
        assert align.dtype == ember.bfloat16
        expected = reference_align(rounded(x), rounded(rois), (2, 2), 1.0, 2, True, position_sensitive=True)
        np.testing.assert_allclose(rounded(align), expected, rtol=2 ** -8, atol=1e-6)


def test_deform_conv2d_in_a_region_computes_in_float32():
    rng = np.random.default_rng(3)
    x = bf16(rng.normal(size=(1, 2, 6, 6)).astype(np.float32))
    offset = bf16(rng.uniform(-1, 1, size=(1, 18, 4, 4)).astype(np.float32))
    mask = bf16(rng.uniform(size=(1, 9, 4, 4)).astype(np.float32))
    weight = ember.tensor(rng.normal(size=(3, 2, 3, 3)).astype(np.float32))  # a float32 weight, as a model's
    bias = ember.tensor(rng.normal(size=3).astype(np.float32))
    with ember.autocast("cpu", dtype=ember.bfloat16):
        out = ops.deform_conv2d(x, offset, weight, bias, mask=mask)
    assert out.dtype == ember.bfloat16
    # a bfloat16 matmul would be off by about 2**-8 of the sum's terms; the float32 one only by the final rounding
    expected = reference_deform(rounded(x), rounded(offset), weight.double().numpy(), bias.double().numpy(),
                                (1, 1), (0, 0), (1, 1), rounded(mask))
    np.testing.assert_allclose(rounded(out), expected, rtol=2 ** -8, atol=1e-5)


def test_roi_align_gradient_flows_back_to_the_bfloat16_input():
    rng = np.random.default_rng(4)
    x = bf16(rng.normal(size=(1, 1, 5, 6)).astype(np.float32)).requires_grad_()
    rois = ember.tensor([[0, 0.5, 1.0, 4.5, 3.5]])
    with ember.autocast("cpu", dtype=ember.bfloat16):
        out = ops.roi_align(x, rois, [2, 2], 1.0, 2, True)
    out.float().sum().backward()
    assert x.grad.dtype == ember.bfloat16
    # the output is linear in x: d(sum)/dx at a pixel is the NumPy reference's sum on that pixel's one-hot image
    expected = np.zeros((1, 1, 5, 6))
    for i in range(5):
        for j in range(6):
            one_hot = np.zeros((1, 1, 5, 6))
            one_hot[0, 0, i, j] = 1.0
            expected[0, 0, i, j] = reference_align(one_hot, rois.numpy(), (2, 2), 1.0, 2, True).sum()
    np.testing.assert_allclose(rounded(x.grad), expected, rtol=2 ** -8, atol=1e-6)
