"""bfloat16 Winograd convolutions read and write bfloat16 directly (no float32 copies of the operands):
their results must stay bit for bit the float32 Winograd convolution of the same (bf16-exact) values,
rounded once to bfloat16 -- forward (with and without bias, edge tiles of every padding), input
gradient, weight gradient (output gradient read as it is and padded), the kernel-major schedule,
groups, strided operands and 1 or 2 threads; non-finite values still fall back to the direct path.
One case is also checked against a float64 NumPy reference, rounded once."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from bf16_reference import bf16_values, check

RNG = np.random.default_rng(2026)


def bits(t):
    return t.contiguous().view(ember.int16).numpy()


def run(x, w, b, g, pad, groups, dtype):
    """conv2d of the operands in dtype, its gradients for output gradient g, all rounded to bfloat16."""
    xx = x.detach().to(dtype).requires_grad_(True)
    ww = w.detach().to(dtype).requires_grad_(True)
    y = F.conv2d(xx, ww, None if b is None else b.to(dtype), padding=pad, groups=groups)
    y.backward(g.to(dtype))
    return [t.to(ember.bfloat16) for t in (y, xx.grad, ww.grad)]


def assert_round_once(shape, out_ch, pad, bias=True, groups=1, scale=1.0):
    x, _ = bf16_values(RNG, shape, scale)
    w, _ = bf16_values(RNG, (out_ch, shape[1] // groups, 3, 3), 0.2)
    b = bf16_values(RNG, (out_ch,))[0] if bias else None
    out_hw = (shape[2] + 2 * pad - 2, shape[3] + 2 * pad - 2)
    g, _ = bf16_values(RNG, (shape[0], out_ch) + out_hw)
    got = run(x, w, b, g, pad, groups, ember.bfloat16)
    want = run(x, w, b, g, pad, groups, ember.float32)
    for name, a, e in zip(("output", "input grad", "weight grad"), got, want):
        assert a.dtype == ember.bfloat16
        np.testing.assert_array_equal(bits(a), bits(e), err_msg=name)


@pytest.mark.parametrize("shape,out_ch,pad", [
    ((2, 16, 13, 11), 24, 1),  # partial tiles on both edges, dy padded for the weight gradient
    ((2, 16, 16, 16), 16, 1),  # whole tiles: dy read as it is
    ((3, 8, 10, 9), 16, 2),    # padding 2: the transposed problem pads 0
    ((2, 24, 14, 18), 8, 0),   # padding 0: the transposed problem pads 2
    ((8, 64, 20, 20), 64, 1),
])
def test_bitwise_the_float32_winograd_rounded_once(shape, out_ch, pad):
    assert_round_once(shape, out_ch, pad)


def test_without_bias_and_large_values():
    assert_round_once((2, 32, 12, 12), 32, 1, bias=False, scale=1000.0)


def test_kernel_major_schedule():
    # many channels at 7x7: the kernel-major schedule (conv_winograd_kernel_major.cpp)
    assert_round_once((8, 256, 7, 7), 256, 1, bias=False)


def test_groups():
    assert_round_once((2, 32, 12, 12), 32, 1, groups=2)


@pytest.mark.parametrize("threads", [1, 2])
def test_thread_counts(threads):
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        assert_round_once((4, 16, 15, 15), 16, 1)
    finally:
        ember.set_num_threads(before)


def test_strided_operands_and_conv_transpose():
    x, _ = bf16_values(RNG, (2, 12, 16, 32))
    w, _ = bf16_values(RNG, (16, 12, 3, 3), 0.2)
    xs = x[:, :, :, ::2]  # not contiguous
    got = F.conv2d(xs, w, padding=1)
    want = F.conv2d(xs.float(), w.float(), padding=1).to(ember.bfloat16)
    np.testing.assert_array_equal(bits(got), bits(want))
    # conv_transpose2d, 3x3 stride 1, is the adjoint problem, with a bias added before the rounding
    wt, _ = bf16_values(RNG, (12, 16, 3, 3), 0.2)
    bt, _ = bf16_values(RNG, (16,))
    got = F.conv_transpose2d(xs, wt, bt, padding=1)
    want = F.conv_transpose2d(xs.float(), wt.float(), bt.float(), padding=1).to(ember.bfloat16)
    np.testing.assert_array_equal(bits(got), bits(want))


def test_non_finite_values_fall_back_to_the_direct_path():
    x, _ = bf16_values(RNG, (2, 16, 12, 12))
    w, _ = bf16_values(RNG, (16, 16, 3, 3), 0.2)
    x[1, 3, 5, 7] = float("inf")
    got = F.conv2d(x, w, padding=1)
    want = F.conv2d(x.float(), w.float(), padding=1).to(ember.bfloat16)
    np.testing.assert_array_equal(bits(got), bits(want))
    assert np.isinf(got.float().numpy()).sum() > 0 and not np.isnan(got[0].float().numpy()).any()
    # a NaN in the output gradient: the weight gradient falls back too (every entry sees it)
    xg = x.clone()
    xg[1, 3, 5, 7] = 1.0
    g, _ = bf16_values(RNG, (2, 16, 12, 12))
    g[0, 2, 4, 4] = float("nan")
    results = []
    for dtype in (ember.bfloat16, ember.float32):
        ww = w.detach().to(dtype).requires_grad_(True)
        F.conv2d(xg.to(dtype), ww, padding=1).backward(g.to(dtype))
        results.append(ww.grad.to(ember.bfloat16))
    np.testing.assert_array_equal(bits(results[0]), bits(results[1]))


def test_against_float64_numpy():
    x, xn = bf16_values(RNG, (2, 16, 13, 11))
    w, wn = bf16_values(RNG, (24, 16, 3, 3))
    y = F.conv2d(x, w, padding=1)
    xp = np.pad(xn, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    ref = np.einsum("nchwij,ocij->nohw", win, wn)
    terms = np.einsum("nchwij,ocij->nohw", np.abs(win), np.abs(wn))
    check(y, ref, terms, 16 * 9)
