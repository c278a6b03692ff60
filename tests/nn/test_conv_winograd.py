"""3x3 stride-1 float32 convolutions with 8 or more channels on each side take the F(4x4, 3x3)
Winograd path (forward, input gradient, weight gradient). Checked here against float64 NumPy
references, with shapes that leave partial tiles at the edges, every padding the path takes, groups,
transposed convolutions, bias and 16-bit inputs; and EMBER_CONV_WINOGRAD=0 turning it off."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.nn.functional as F


def conv_ref(x, w, pad, groups=1):
    """float64 cross-correlation, (n, c, h, w) x (k, c/groups, 3, 3) -> (n, k, oh, ow)."""
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    win = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))
    cg, kg = x.shape[1] // groups, w.shape[0] // groups
    outs = [np.einsum("nchwab,kcab->nkhw", win[:, g * cg:(g + 1) * cg], w[g * kg:(g + 1) * kg]) for g in range(groups)]
    return np.concatenate(outs, axis=1)


def grads_ref(x, w, g, pad, groups=1):
    """The input and weight gradients of conv_ref for output gradient g."""
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    cg, kg = c // groups, w.shape[0] // groups
    gw = np.concatenate([np.einsum("nchwab,nkhw->kcab", win[:, i * cg:(i + 1) * cg], g[:, i * kg:(i + 1) * kg])
                         for i in range(groups)])
    gxp = np.zeros_like(xp)
    oh, ow = g.shape[2:]
    for i in range(groups):
        for a in range(3):
            for b in range(3):
                gxp[:, i * cg:(i + 1) * cg, a:a + oh, b:b + ow] += np.einsum(
                    "nkhw,kc->nchw", g[:, i * kg:(i + 1) * kg], w[i * kg:(i + 1) * kg, :, a, b])
    return gxp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd], gw


def rel_err(a, b):
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)


CASES = [
    # n, c, k, h, w, padding, groups
    (2, 8, 8, 9, 11, (1, 1), 1),
    (3, 16, 24, 13, 6, (0, 2), 1),
    (2, 33, 17, 7, 7, (2, 0), 1),
    (1, 64, 64, 30, 30, (1, 1), 1),
    (2, 32, 16, 10, 9, (1, 1), 2),
    (9, 8, 12, 6, 7, (0, 0), 1),
    (2, 16, 8, 10, 10, (0, 0), 1),   # outputs a whole number of tiles: the output gradient is read in place
    (2, 16, 16, 8, 8, (1, 1), 2),    # the same with groups (images not back to back: copied)
    # few tiles next to many channels: the kernel-major schedule, with partial blocks of kernel
    # rows and of input channels (136 = 128 + 8), and with groups
    (4, 136, 200, 7, 7, (1, 1), 1),
    (4, 96, 96, 6, 6, (1, 1), 2),
]


@pytest.mark.parametrize("n,c,k,h,w,pad,groups", CASES)
def test_forward_and_gradients_match_numpy(n, c, k, h, w, pad, groups):
    rng = np.random.default_rng(n * 100 + c)
    x = rng.standard_normal((n, c, h, w))
    wt = rng.standard_normal((k, c // groups, 3, 3)) * 0.1
    bias = rng.standard_normal(k)
    xe = ember.tensor(x.astype(np.float32), requires_grad=True)
    we = ember.tensor(wt.astype(np.float32), requires_grad=True)
    be = ember.tensor(bias.astype(np.float32), requires_grad=True)
    y = F.conv2d(xe, we, be, padding=pad, groups=groups)
    ref = conv_ref(x, wt, pad, groups) + bias[None, :, None, None]
    assert y.shape == ref.shape and y.dtype == ember.float32
    assert rel_err(y.detach().numpy(), ref) < 3e-5
    g = rng.standard_normal(ref.shape)
    y.backward(ember.tensor(g.astype(np.float32)))
    gx, gw = grads_ref(x, wt, g, pad, groups)
    assert rel_err(xe.grad.numpy(), gx) < 3e-5
    assert rel_err(we.grad.numpy(), gw) < 3e-5
    np.testing.assert_allclose(be.grad.numpy(), g.sum(axis=(0, 2, 3)), rtol=1e-4, atol=1e-3)


def test_strided_input_and_batch_of_one_image_per_thread():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 20, 16, 12)).astype(np.float32)
    wt = (rng.standard_normal((10, 10, 3, 3)) * 0.1).astype(np.float32)
    xe = ember.tensor(x)[:, ::2, :, :]  # every other channel: not contiguous
    y = F.conv2d(xe, ember.tensor(wt), padding=1)
    assert rel_err(y.numpy(), conv_ref(x[:, ::2].astype(np.float64), wt.astype(np.float64), (1, 1))) < 3e-5


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_transposed_convolution_matches_the_adjoint(pad):
    # conv_transpose2d(y, w) is the input gradient of conv2d(., w): <conv(x), y> = <x, convT(y)>.
    rng = np.random.default_rng(pad)
    x = rng.standard_normal((2, 12, 11, 10))
    wt = rng.standard_normal((16, 12, 3, 3)) * 0.1
    yshape = conv_ref(x, wt, (pad, pad)).shape
    gy = rng.standard_normal(yshape)
    out = F.conv_transpose2d(ember.tensor(gy.astype(np.float32)), ember.tensor(wt.astype(np.float32)), padding=pad)
    gx, _ = grads_ref(x, wt, gy, (pad, pad))
    assert out.shape == x.shape
    assert rel_err(out.numpy(), gx) < 3e-5


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_16_bit_inputs_compute_in_float32(dtype):
    rng = np.random.default_rng(1)
    x = ember.tensor(rng.standard_normal((2, 8, 9, 9)).astype(np.float32)).to(dtype)
    w = ember.tensor((rng.standard_normal((8, 8, 3, 3)) * 0.1).astype(np.float32)).to(dtype)
    y = F.conv2d(x, w, padding=1)
    assert y.dtype == dtype
    ref = conv_ref(x.float().numpy().astype(np.float64), w.float().numpy().astype(np.float64), (1, 1))
    assert rel_err(y.float().numpy(), ref) < (1e-2 if dtype == ember.float16 else 2e-2)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("n,c,size,at", [
    (1, 8, 16, (0, 2, 2)),
    (1, 8, 16, (0, 15, 15)),   # the plane's last corner: a tile clipped on two sides
    (4, 64, 8, (3, 0, 7)),     # few tiles, many channels: the kernel-major schedule
])
def test_non_finite_values_reach_only_the_windows_that_see_them(bad, n, c, size, at):
    # A transform would spread a NaN or infinity over its whole tile; such inputs take the direct
    # path, so outputs whose 3x3 window misses the value stay finite, as in PyTorch.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((n, c, size, size))
    img, r, col = at
    x[img, 3, r, col] = bad
    wt = rng.standard_normal((c, c, 3, 3)) * 0.1
    xe = ember.tensor(x.astype(np.float32), requires_grad=True)
    we = ember.tensor(wt.astype(np.float32), requires_grad=True)
    ye = F.conv2d(xe, we, padding=1)
    y = ye.detach().numpy()
    seen = np.zeros((size, size), bool)  # the outputs whose window holds the bad value
    seen[max(0, r - 1):r + 2, max(0, col - 1):col + 2] = True
    assert not np.isfinite(y[img][:, seen]).any()
    ref = conv_ref(np.nan_to_num(x, nan=0.0, posinf=0.0), wt, (1, 1))
    assert rel_err(y[img][:, ~seen], ref[img][:, ~seen]) < 3e-5
    others = [i for i in range(n) if i != img]
    if others:
        assert rel_err(y[others], ref[others]) < 3e-5
    # The input gradient with a non-finite weight, and the weight gradient with a non-finite input.
    g = np.ones(y.shape, np.float32)
    ye.backward(ember.tensor(g))
    assert np.isfinite(xe.grad.numpy()).all()
    assert not np.isfinite(we.grad.numpy()[:, 3]).all() and np.isfinite(we.grad.numpy()[:, 4:]).all()
    wt_bad = wt.copy()
    wt_bad[0, 0, 1, 1] = bad
    gx = F.conv_transpose2d(ember.tensor(np.ones((n, c, size, size), np.float32)),
                            ember.tensor(wt_bad.astype(np.float32)), padding=1).numpy()
    assert not np.isfinite(gx[:, 0]).any() and np.isfinite(gx[:, 1:]).all()


@pytest.mark.parametrize("layout", ["", ".contiguous(memory_format=ember.channels_last)"])
def test_can_be_turned_off(layout):
    # With EMBER_CONV_WINOGRAD=0 the direct path runs: its float32 rounding error is smaller. The
    # switch holds for the NCHW and the NHWC (channels_last) Winograd alike.
    code = (
        "import numpy as np, ember, ember.nn.functional as F\n"
        "rng = np.random.default_rng(0)\n"
        "x = rng.standard_normal((2, 64, 20, 20)); w = rng.standard_normal((64, 64, 3, 3))\n"
        f"y = F.conv2d(ember.tensor(x.astype(np.float32)){layout}, ember.tensor(w.astype(np.float32)), padding=1)\n"
        "xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))\n"
        "win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))\n"
        "ref = np.einsum('nchwab,kcab->nkhw', win, w)\n"
        "print(np.abs(y.numpy() - ref).max() / np.abs(ref).max())\n")
    errs = {}
    for flag in ("1", "0"):
        env = dict(os.environ, EMBER_CONV_WINOGRAD=flag)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        errs[flag] = float(out.stdout)
    assert errs["0"] < 1e-6 < errs["1"] < 3e-5


def test_huge_finite_values_take_the_direct_path():
    # The transforms scale values by up to about 100: near float32's limit they would overflow.
    rng = np.random.default_rng(3)
    x = rng.choice([-1.0, 1.0], (1, 16, 12, 12)) * 1e37
    wt = rng.standard_normal((16, 16, 3, 3)) * 0.01
    y = F.conv2d(ember.tensor(x.astype(np.float32)), ember.tensor(wt.astype(np.float32)), padding=1).numpy()
    assert np.isfinite(y).all()
    assert rel_err(y.astype(np.float64), conv_ref(x, wt, (1, 1))) < 1e-5


def test_depth_one_conv3d_with_depth_padding_is_not_a_2d_convolution():
    # A 3-D convolution of depth 1 looks 2-D, but with depth padding its output sees only zeros.
    rng = np.random.default_rng(4)
    x = ember.tensor(rng.standard_normal((1, 8, 1, 8, 8)).astype(np.float32), requires_grad=True)
    w = ember.tensor(rng.standard_normal((8, 8, 1, 3, 3)).astype(np.float32), requires_grad=True)
    y = F.conv3d(x, w, padding=(1, 1, 1), stride=(3, 1, 1))
    assert y.shape == (1, 8, 1, 8, 8)
    assert np.abs(y.detach().numpy()).max() == 0
    y.backward(ember.ones_like(y))
    assert np.abs(w.grad.numpy()).max() == 0
    z = F.conv_transpose3d(x, w, padding=(1, 1, 1), output_padding=(2, 0, 0), stride=(3, 1, 1))
    assert np.abs(z.detach().numpy()).max() == 0
    # Without depth padding it is the 2-D convolution.
    y2 = F.conv3d(x, w, padding=(0, 1, 1)).detach().numpy()[:, :, 0]
    ref = conv_ref(x.detach().numpy()[:, :, 0].astype(np.float64), w.detach().numpy()[:, :, 0].astype(np.float64),
                   (1, 1))
    assert rel_err(y2, ref) < 3e-5
