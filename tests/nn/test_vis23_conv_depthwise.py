"""Depthwise conv2d (groups == channels), which runs as a direct stencil (conv_depthwise.cpp, an AVX2 path for
float32 at strides 1 and 2), against a NumPy reference: kernel sizes, strides, padding, dilation, rectangular
kernels, output widths below, at and past the 8-column chunks, bias, float32/float64, a non-contiguous input,
and gradients (through the convolution's backward ops) against finite differences."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


def _reference(x, w, b, stride, pad, dil):
    n, c, h, wd = x.shape
    kh, kw = w.shape[-2:]
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for ky in range(kh):
        for kx in range(kw):
            rows = slice(ky * dil[0], ky * dil[0] + stride[0] * (oh - 1) + 1, stride[0])
            cols = slice(kx * dil[1], kx * dil[1] + stride[1] * (ow - 1) + 1, stride[1])
            out += xp[:, :, rows, cols] * w[None, :, 0, ky, kx, None, None]
    return out if b is None else out + b[None, :, None, None]


CASES = [((3, 3), (1, 1), (1, 1), (1, 1)), ((5, 5), (2, 2), (2, 2), (1, 1)), ((3, 3), (2, 2), (1, 1), (1, 1)),
         ((3, 3), (1, 1), (0, 0), (2, 2)), ((3, 5), (1, 2), (0, 3), (2, 1)), ((1, 1), (1, 1), (0, 0), (1, 1)),
         ((7, 7), (3, 3), (4, 4), (1, 1)), ((5, 5), (1, 1), (2, 2), (1, 1)), ((3, 3), (2, 1), (1, 0), (1, 3))]


@pytest.mark.parametrize("kernel, stride, pad, dil", CASES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("size", [(7, 7), (13, 17), (16, 24), (30, 9)])
def test_depthwise_matches_numpy(kernel, stride, pad, dil, dtype, size):
    rng = np.random.default_rng(sum(kernel) + sum(size))
    c = 5
    x = rng.standard_normal((2, c, *size))
    w = rng.standard_normal((c, 1, *kernel))
    b = rng.standard_normal(c)
    if any(size[d] + 2 * pad[d] - dil[d] * (kernel[d] - 1) - 1 < 0 for d in (0, 1)):
        pytest.skip("the kernel does not fit")
    want = _reference(x, w, b, stride, pad, dil)
    got = F.conv2d(ember.tensor(x, dtype=dtype), ember.tensor(w, dtype=dtype), ember.tensor(b, dtype=dtype), stride,
                   pad, dil, c).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == ember.float32 else 1e-12,
                               atol=1e-5 if dtype == ember.float32 else 1e-12)
    no_bias = F.conv2d(ember.tensor(x, dtype=dtype), ember.tensor(w, dtype=dtype), None, stride, pad, dil, c).numpy()
    np.testing.assert_allclose(no_bias, want - b[None, :, None, None], rtol=1e-5, atol=1e-5)


def test_non_contiguous_input_and_module():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 20, 11, 8)).astype(np.float32)
    conv = ember.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
    xt = ember.from_numpy(x).permute(0, 3, 1, 2)  # [3, 8, 20, 11], not contiguous
    assert not xt.is_contiguous()
    want = _reference(x.transpose(0, 3, 1, 2), conv.weight.detach().numpy(), conv.bias.detach().numpy(), (2, 2),
                      (1, 1), (1, 1))
    np.testing.assert_allclose(conv(xt).detach().numpy(), want, rtol=1e-5, atol=1e-5)


def test_channel_multiplier_still_correct():
    # groups == in channels with 2 outputs per channel is no plain depthwise: the general path serves it
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((1, 3, 9, 9)), rng.standard_normal((6, 1, 3, 3))
    got = F.conv2d(ember.tensor(x), ember.tensor(w), None, 1, 1, 1, 3).numpy()
    want = np.concatenate([_reference(x[:, [k // 2]], w[[k]], None, (1, 1), (1, 1), (1, 1)) for k in range(6)], 1)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_gradients_against_finite_differences():
    rng = np.random.default_rng(3)
    x = ember.tensor(rng.standard_normal((2, 3, 6, 7)), requires_grad=True)
    w = ember.tensor(rng.standard_normal((3, 1, 3, 3)), requires_grad=True)
    b = ember.tensor(rng.standard_normal(3), requires_grad=True)
    assert ember.autograd.gradcheck(lambda x, w, b: F.conv2d(x, w, b, 2, 1, 1, 3), (x, w, b))
