"""bfloat16 3x3 stride-1 convolutions large enough for Winograd's F(4x4, 3x3) run there in float32
(the bf16 operands widened exactly, the result rounded once) instead of on the bf16 direct product:
forward, input gradient and weight gradient against a float64 NumPy reference of the bf16 inputs,
each result that reference rounded once to bfloat16; non-finite input still gives the direct path's
NaN pattern (Winograd refuses it)."""
import numpy as np
import pytest

import ember.nn.functional as F
from bf16_reference import bf16_values, check

RNG = np.random.default_rng(33)


def conv_ref(x, w, pad):
    """conv2d, stride 1, in float64: (output, the same with |x| and |w|)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", win, w), np.einsum("nchwij,ocij->nohw", np.abs(win), np.abs(w))


def grads_ref(x, w, g, pad):
    """conv2d's input and weight gradients for output gradient g, in float64, with their sums of
    absolute terms."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    out = []
    for absval in (False, True):
        ws, gs, wins = (np.abs(w), np.abs(g), np.abs(win)) if absval else (w, g, win)
        dw = np.einsum("nohw,nchwij->ocij", gs, wins)
        contrib = np.einsum("nohw,ocij->nchwij", gs, ws)
        dxp = np.zeros(xp.shape)
        oh, ow = g.shape[2:]
        for i in range(3):
            for j in range(3):
                dxp[:, :, i:i + oh, j:j + ow] += contrib[..., i, j]
        out.append((dxp[:, :, pad:xp.shape[2] - pad, pad:xp.shape[3] - pad], dw))
    return out


@pytest.mark.parametrize("shape,out_ch,pad",
                         [((2, 16, 12, 12), 16, 1), ((3, 8, 10, 9), 24, 1), ((2, 12, 14, 14), 8, 0)])
def test_forward_and_gradients_round_once(shape, out_ch, pad):
    x, xn = bf16_values(RNG, shape)
    w, wn = bf16_values(RNG, (out_ch, shape[1], 3, 3))
    b, bn = bf16_values(RNG, (out_ch,))
    x.requires_grad_(True)
    w.requires_grad_(True)
    y = F.conv2d(x, w, b, padding=pad)
    ref, terms = conv_ref(xn, wn, pad)
    check(y, ref + bn[None, :, None, None], terms + np.abs(bn)[None, :, None, None], shape[1] * 9 + 1)
    g, gn = bf16_values(RNG, tuple(y.shape))
    y.backward(g)
    (dx, dw), (dx_terms, dw_terms) = grads_ref(xn, wn, gn, pad)
    check(x.grad, dx, dx_terms, out_ch * 9)
    check(w.grad, dw, dw_terms, shape[0] * y.shape[2] * y.shape[3])


def test_conv_transpose_stride_1():
    # conv_transpose2d (3x3, stride 1) is conv2d's input gradient: the adjoint Winograd problem
    x, xn = bf16_values(RNG, (2, 16, 11, 11))
    w, wn = bf16_values(RNG, (16, 8, 3, 3))  # (in, out, kh, kw)
    y = F.conv_transpose2d(x, w, padding=1)
    (dx, _), (dx_terms, _) = grads_ref(np.zeros((2, 8, 11, 11)), wn, xn, 1)
    check(y, dx, dx_terms, 16 * 9)


def test_non_finite_input_keeps_the_direct_pattern():
    x, xn = bf16_values(RNG, (2, 16, 12, 12))
    w, wn = bf16_values(RNG, (16, 16, 3, 3))
    x[1, 3, 5, 7] = float("nan")
    x[0, 0, 0, 0] = float("inf")
    xn = x.float().numpy().astype(np.float64)
    y = F.conv2d(x, w, padding=1)
    with np.errstate(invalid="ignore"):
        ref, terms = conv_ref(xn, wn, 1)
    got = y.float().numpy()
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    assert np.array_equal(np.isinf(got), np.isinf(ref))
    finite = np.isfinite(ref)
    err = np.abs(got[finite] - ref[finite])
    assert np.all(err <= 2.0**-8 * terms[finite] + 1e-6)
