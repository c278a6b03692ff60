"""bfloat16 convolution (conv1d/conv2d forward, input and weight gradients, conv_transpose) on the
AVX512_BF16 product where the CPU has it and on the float32 fallback (forced by
ember._C._set_bf16_gemm_enabled(False)), against a float64 NumPy reference of the bf16 inputs:
each result is that reference rounded once to bfloat16 (float32 sums)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from bf16_reference import bf16_values, check

RNG = np.random.default_rng(21)


@pytest.fixture(params=["bf16_path", "fallback"])
def path(request):
    previous = ember._C._set_bf16_gemm_enabled(request.param == "bf16_path")
    yield request.param
    ember._C._set_bf16_gemm_enabled(previous)


def windows(x, kh, kw, stride, pad, dil):
    """x (N, C, H, W) padded, as (N, C, OH, OW, kh, kw) windows."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    span = ((kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1)
    v = np.lib.stride_tricks.sliding_window_view(xp, span, axis=(2, 3))
    return v[:, :, :: stride[0], :: stride[1], :: dil[0], :: dil[1]], xp.shape


def conv_ref(x, w, stride, pad, dil, groups):
    """Forward conv2d in float64: (output, the same with |x| and |w|)."""
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    win, _ = windows(x, kh, kw, stride, pad, dil)
    outs = []
    for absval in (False, True):
        xs, ws = (np.abs(win), np.abs(w)) if absval else (win, w)
        og = o // groups
        parts = [np.einsum("nchwij,ocij->nohw", xs[:, g * cg:(g + 1) * cg], ws[g * og:(g + 1) * og])
                 for g in range(groups)]
        outs.append(np.concatenate(parts, axis=1))
    return outs


def grads_ref(x, w, g, stride, pad, dil, groups):
    """The input and weight gradients of conv2d for output gradient g, in float64 (each with its
    sum of absolute terms)."""
    o, cg, kh, kw = w.shape
    og = o // groups
    win, padded_shape = windows(x, kh, kw, stride, pad, dil)
    results = []
    for absval in (False, True):
        xs, ws, gs = (np.abs(win), np.abs(w), np.abs(g)) if absval else (win, w, g)
        dw = np.concatenate([np.einsum("nohw,nchwij->ocij", gs[:, k * og:(k + 1) * og], xs[:, k * cg:(k + 1) * cg])
                             for k in range(groups)])
        dxp = np.zeros(padded_shape)
        oh, ow = g.shape[2:]
        for k in range(groups):
            contrib = np.einsum("nohw,ocij->nchwij", gs[:, k * og:(k + 1) * og], ws[k * og:(k + 1) * og])
            for i in range(kh):
                for j in range(kw):
                    r0, c0 = i * dil[0], j * dil[1]
                    dxp[:, k * cg:(k + 1) * cg, r0:r0 + oh * stride[0]:stride[0], c0:c0 + ow * stride[1]:stride[1]] += (
                        contrib[..., i, j])
        dx = dxp[:, :, pad[0]:padded_shape[2] - pad[0], pad[1]:padded_shape[3] - pad[1]]
        results.append((dx, dw))
    return results


CASES = [
    # (N, C, H, W), (O, C/groups, kh, kw), stride, padding, dilation, groups
    ((2, 3, 9, 11), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 8, 16, 16), (16, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((3, 4, 13, 7), (6, 2, 3, 2), (2, 1), (1, 0), (1, 2), 2),
    ((2, 17, 8, 8), (7, 17, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    ((1, 3, 20, 20), (4, 3, 5, 5), (3, 3), (2, 2), (1, 1), 1),
]


@pytest.mark.parametrize("xs,ws,stride,pad,dil,groups", CASES)
def test_conv2d_forward_and_gradients(path, xs, ws, stride, pad, dil, groups):
    x, xn = bf16_values(RNG, xs)
    w, wn = bf16_values(RNG, ws)
    b, bn = bf16_values(RNG, (ws[0],))
    x.requires_grad_(True)
    w.requires_grad_(True)
    y = F.conv2d(x, w, b, stride=stride, padding=pad, dilation=dil, groups=groups)
    ref, terms = conv_ref(xn, wn, stride, pad, dil, groups)
    k = ws[1] * ws[2] * ws[3]
    check(y, ref + bn[None, :, None, None], terms + np.abs(bn)[None, :, None, None], k + 1)
    g, gn = bf16_values(RNG, tuple(y.shape))
    y.backward(g)
    (dx, dw), (dx_terms, dw_terms) = grads_ref(xn, wn, gn, stride, pad, dil, groups)
    check(x.grad, dx, dx_terms, ws[0] // groups * k)
    check(w.grad, dw, dw_terms, xs[0] * y.shape[2] * y.shape[3])


def test_conv1d_forward_and_gradients(path):
    x, xn = bf16_values(RNG, (2, 6, 30))
    w, wn = bf16_values(RNG, (4, 6, 5))
    x.requires_grad_(True)
    w.requires_grad_(True)
    y = F.conv1d(x, w, stride=2, padding=2)
    ref, terms = conv_ref(xn[:, :, None], wn[:, :, None], (1, 2), (0, 2), (1, 1), 1)
    check(y, ref[:, :, 0], terms[:, :, 0], 30)
    g, gn = bf16_values(RNG, tuple(y.shape))
    y.backward(g)
    as_2d = (xn[:, :, None], wn[:, :, None], gn[:, :, None])
    (dx, dw), (dx_terms, dw_terms) = grads_ref(*as_2d, (1, 2), (0, 2), (1, 1), 1)
    check(x.grad, dx[:, :, 0], dx_terms[:, :, 0], 4 * 5)
    check(w.grad, dw[:, :, 0], dw_terms[:, :, 0], 2 * y.shape[2])


def test_conv_transpose2d_with_bias(path):
    # conv_transpose2d is the input gradient of conv2d: y = grad_x(x as the output gradient) + bias
    x, xn = bf16_values(RNG, (2, 5, 6, 7))
    w, wn = bf16_values(RNG, (5, 3, 3, 3))  # (in, out, kh, kw)
    b, bn = bf16_values(RNG, (3,))
    y = F.conv_transpose2d(x, w, b, stride=2, padding=1)
    # as conv2d's input gradient for an input of y's spatial size, weight w (out=5, in=3)
    (dx, _), (dx_terms, _) = grads_ref(np.zeros((2, 3) + tuple(y.shape[2:])), wn, xn, (2, 2), (1, 1), (1, 1), 1)
    check(y, dx + bn[None, :, None, None], dx_terms + np.abs(bn)[None, :, None, None], 5 * 9 + 1)


def test_conv_on_the_threads_per_image(path):
    # a batch of several images runs whole images per thread; the weight gradient adds their sums
    x, xn = bf16_values(RNG, (6, 4, 10, 10))
    w, wn = bf16_values(RNG, (8, 4, 3, 3))
    x.requires_grad_(True)
    w.requires_grad_(True)
    y = F.conv2d(x, w, padding=1)
    ref, terms = conv_ref(xn, wn, (1, 1), (1, 1), (1, 1), 1)
    check(y, ref, terms, 36)
    g, gn = bf16_values(RNG, tuple(y.shape))
    y.backward(g)
    (dx, dw), (dx_terms, dw_terms) = grads_ref(xn, wn, gn, (1, 1), (1, 1), (1, 1), 1)
    check(x.grad, dx, dx_terms, 72)
    check(w.grad, dw, dw_terms, 600)
