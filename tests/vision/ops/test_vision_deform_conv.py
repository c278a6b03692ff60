"""deform_conv2d against a NumPy reference (explicit loops over output positions and taps, bilinear
reads that count pixels off the image as 0), gradcheck for every input, and shape errors."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from embervision import ops


def sample(plane, y, x):
    h, w = plane.shape
    if not (-1 < y < h and -1 < x < w):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * plane[yy, xx]
    return total


def reference(x, offset, weight, bias, stride, padding, dilation, mask):
    b, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    groups, offset_groups = c // cg, offset.shape[1] // (2 * kh * kw)
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((b, o, oh, ow))
    for n in range(b):
        for oc in range(o):
            g = oc // (o // groups)
            for oy in range(oh):
                for ox in range(ow):
                    acc = bias[oc] if bias is not None else 0.0
                    for ci in range(cg):
                        cin = g * cg + ci
                        og = cin // (c // offset_groups)
                        for i in range(kh):
                            for j in range(kw):
                                t = i * kw + j
                                dy, dx = offset[n, og * 2 * kh * kw + 2 * t: og * 2 * kh * kw + 2 * t + 2, oy, ox]
                                y = oy * stride[0] - padding[0] + i * dilation[0] + dy
                                xx = ox * stride[1] - padding[1] + j * dilation[1] + dx
                                m = mask[n, og * kh * kw + t, oy, ox] if mask is not None else 1.0
                                acc += weight[oc, ci, i, j] * m * sample(x[n, cin], y, xx)
                    out[n, oc, oy, ox] = acc
    return out


@pytest.mark.parametrize("use_mask", [False, True])
@pytest.mark.parametrize("groups,offset_groups", [(1, 1), (2, 2), (1, 2)])
def test_deform_conv2d_matches_reference(use_mask, groups, offset_groups):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 6, 5))
    weight = rng.normal(size=(6, 4 // groups, 3, 2))
    bias = rng.normal(size=6)
    stride, padding, dilation = (2, 1), (1, 1), (1, 2)
    oh, ow = (6 + 2 - 2 - 1) // 2 + 1, (5 + 2 - 2 - 1) // 1 + 1
    offset = rng.uniform(-2, 2, size=(2, offset_groups * 2 * 6, oh, ow))
    mask = rng.uniform(size=(2, offset_groups * 6, oh, ow)) if use_mask else None
    got = ops.deform_conv2d(ember.tensor(x), ember.tensor(offset), ember.tensor(weight), ember.tensor(bias), stride,
                            padding, dilation, None if mask is None else ember.tensor(mask))
    np.testing.assert_allclose(got.numpy(), reference(x, offset, weight, bias, stride, padding, dilation, mask),
                               atol=1e-10)


def test_zero_offsets_are_an_ordinary_convolution():
    rng = np.random.default_rng(1)
    x = ember.tensor(rng.normal(size=(1, 3, 7, 7)).astype(np.float32))
    layer = ops.DeformConv2d(3, 5, 3, padding=1)
    offset = ember.zeros((1, 18, 7, 7))
    expected = ember.nn.functional.conv2d(x, layer.weight, layer.bias, padding=1)
    np.testing.assert_allclose(layer(x, offset).detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert repr(layer) == "DeformConv2d(3, 5, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"


def test_gradcheck_input_offset_mask_weight_bias():
    rng = np.random.default_rng(2)
    def t(*shape):
        return ember.tensor(rng.normal(size=shape), requires_grad=True)
    x, weight, bias = t(1, 2, 4, 4), t(2, 2, 2, 2), t(2)
    # Offsets away from integers, where bilinear sampling is not differentiable.
    offset = ember.tensor(rng.uniform(-1, 1, size=(1, 8, 3, 3)) * 0.8 + 0.1, requires_grad=True)
    mask = ember.tensor(rng.uniform(size=(1, 4, 3, 3)), requires_grad=True)
    assert gradcheck(lambda *a: ops.deform_conv2d(a[0], a[1], a[2], a[3], mask=a[4]), (x, offset, weight, bias, mask))
    assert gradcheck(lambda a, b: ops.deform_conv2d(a, b, weight), (x, offset))


def test_bad_shapes_raise():
    x, w = ember.ones((1, 2, 4, 4)), ember.ones((3, 2, 3, 3))
    with pytest.raises(RuntimeError, match="offset.shape\\[1\\] must be a positive multiple of 2 \\* kh \\* kw = 18"):
        ops.deform_conv2d(x, ember.zeros((1, 10, 2, 2)), w)
    with pytest.raises(RuntimeError, match="offset's spatial size"):
        ops.deform_conv2d(x, ember.zeros((1, 18, 3, 3)), w)
    with pytest.raises(RuntimeError, match="mask must be"):
        ops.deform_conv2d(x, ember.zeros((1, 18, 2, 2)), w, mask=ember.zeros((1, 8, 2, 2)))
    with pytest.raises(RuntimeError, match="must be a multiple of weight.shape\\[1\\]"):
        ops.deform_conv2d(ember.ones((1, 3, 4, 4)), ember.zeros((1, 18, 2, 2)), w)
