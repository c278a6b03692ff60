"""conv2d, pooling, batch_norm and interpolate on channels_last tensors: outputs and gradients equal
the NCHW results and NumPy references, outputs and input gradients stay channels_last, float64
gradients pass gradcheck, and a ResNet-18 in channels_last gives the NCHW forward and backward."""
import sys
import pathlib

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

CL = ember.channels_last


def as_cl(t):
    return t.to(memory_format=CL)


def is_cl(t):
    return t.is_contiguous(memory_format=CL) and not t.is_contiguous()


def conv2d_ref(x, w, b, stride, pad, dil, groups):
    """Direct convolution in NumPy (float64): a sum over kernel taps of strided window slices."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                win = xs[:, :, i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                         j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", win, w[g * og:(g + 1) * og, :, i, j])
    return y + (0 if b is None else b[None, :, None, None])


CONV_CASES = [
    dict(stride=(1, 1), pad=(1, 1), dil=(1, 1), groups=1, k=3),
    dict(stride=(2, 2), pad=(1, 1), dil=(1, 1), groups=1, k=3),
    dict(stride=(1, 1), pad=(2, 2), dil=(2, 2), groups=1, k=3),
    dict(stride=(1, 2), pad=(0, 1), dil=(1, 1), groups=2, k=3),
    dict(stride=(2, 1), pad=(0, 0), dil=(1, 1), groups=1, k=1),
    dict(stride=(3, 3), pad=(2, 1), dil=(2, 1), groups=1, k=3),
    dict(stride=(1, 1), pad=(3, 3), dil=(1, 1), groups=3, k=7),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("weight_cl", [False, True])
def test_conv2d_channels_last_matches_nchw_and_numpy(case, dtype, weight_cl):
    rng = np.random.default_rng(0)
    n, c, o = 2, 6, 6
    xa = rng.standard_normal((n, c, 9, 11))
    wa = rng.standard_normal((o, c // case["groups"], case["k"], case["k"]))
    ba = rng.standard_normal(o)
    args = (case["stride"], case["pad"], case["dil"], case["groups"])
    ref = conv2d_ref(xa, wa, ba, *args)
    x = ember.tensor(xa, dtype=dtype)
    w = ember.tensor(wa, dtype=dtype)
    b = ember.tensor(ba, dtype=dtype)
    xc = as_cl(x).requires_grad_()
    wc = (as_cl(w) if weight_cl else w.clone()).requires_grad_()
    bc = b.clone().requires_grad_()
    xn, wn, bn = x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()
    yc, yn = F.conv2d(xc, wc, bc, *args), F.conv2d(xn, wn, bn, *args)
    assert is_cl(yc) and yn.is_contiguous()
    tol = 1e-4 if dtype == ember.float32 else 1e-10
    np.testing.assert_allclose(yc.detach().numpy(), ref, rtol=tol, atol=tol)
    g = ember.tensor(rng.standard_normal(ref.shape), dtype=dtype)
    yc.backward(as_cl(g))
    yn.backward(g)
    assert is_cl(xc.grad)
    for a, bb in ((xc.grad, xn.grad), (wc.grad, wn.grad), (bc.grad, bn.grad)):
        np.testing.assert_allclose(a.numpy(), bb.numpy(), rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("pad,size", [(1, (18, 21)), (0, (19, 16)), (2, (17, 17))])
def test_conv2d_channels_last_winograd_path(pad, size):
    """3x3 stride-1 float32 with channels in multiples of 8: the NHWC F(4x4, 3x3) path, all three passes."""
    rng = np.random.default_rng(7)
    xa, wa, ba = rng.standard_normal((3, 16, *size)), rng.standard_normal((24, 16, 3, 3)), rng.standard_normal(24)
    ref = conv2d_ref(xa, wa, ba, (1, 1), (pad, pad), (1, 1), 1)
    x = as_cl(ember.tensor(xa, dtype=ember.float32)).requires_grad_()
    w = as_cl(ember.tensor(wa, dtype=ember.float32)).requires_grad_()
    b = ember.tensor(ba, dtype=ember.float32, requires_grad=True)
    y = F.conv2d(x, w, b, padding=pad)
    assert is_cl(y)
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-4, atol=1e-3)
    ga = rng.standard_normal(ref.shape)
    y.backward(as_cl(ember.tensor(ga, dtype=ember.float32)))
    xd, wd = ember.tensor(xa, requires_grad=True), ember.tensor(wa, requires_grad=True)
    F.conv2d(xd, wd, None, padding=pad).backward(ember.tensor(ga))
    assert is_cl(x.grad) and w.grad.is_contiguous(memory_format=CL)
    np.testing.assert_allclose(x.grad.numpy(), xd.grad.numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(w.grad.numpy(), wd.grad.numpy(), rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(b.grad.numpy(), ga.sum(axis=(0, 2, 3)), rtol=1e-4, atol=1e-3)


def test_conv2d_channels_last_winograd_keeps_non_finite_values_local():
    """A NaN or infinity would spread over a whole Winograd tile: those inputs take the direct path."""
    x = ember.randn(1, 8, 16, 16)
    w = ember.randn(8, 8, 3, 3)
    x[0, 3, 5, 5] = float("inf")
    y = F.conv2d(as_cl(x), w, padding=1)
    expect = F.conv2d(x, w, padding=1)
    assert np.array_equal(np.isfinite(y.numpy()), np.isfinite(expect.numpy()))
    assert np.isfinite(y.numpy()).sum() == y.numel() - 8 * 9


def test_conv2d_channels_last_half_types_compute_in_float32():
    rng = np.random.default_rng(1)
    x = ember.tensor(rng.standard_normal((2, 4, 6, 6)), dtype=ember.float32)
    w = ember.tensor(rng.standard_normal((3, 4, 3, 3)), dtype=ember.float32)
    for dt in (ember.bfloat16, ember.float16):
        xh, wh = x.to(dt), w.to(dt)
        y = F.conv2d(as_cl(xh), wh, padding=1)
        assert y.dtype == dt and is_cl(y)
        # float32 sums of the rounded inputs, rounded once: within one rounding step of the reference
        ref = conv2d_ref(xh.double().numpy(), wh.double().numpy(), None, (1, 1), (1, 1), (1, 1), 1)
        np.testing.assert_allclose(y.double().numpy(), ref, rtol=1e-2, atol=1e-2)


def test_conv_transpose2d_channels_last():
    rng = np.random.default_rng(2)
    x = ember.tensor(rng.standard_normal((2, 4, 5, 6)))
    w = ember.tensor(rng.standard_normal((4, 3, 3, 3)))
    for stride, pad, opad in (((1, 1), (1, 1), (0, 0)), ((2, 2), (1, 0), (1, 0)), ((1, 1), (3, 3), (0, 0))):
        yc = F.conv_transpose2d(as_cl(x), w, None, stride, pad, opad)
        yn = F.conv_transpose2d(x, w, None, stride, pad, opad)
        assert is_cl(yc)
        np.testing.assert_allclose(yc.numpy(), yn.numpy(), rtol=1e-10, atol=1e-10)


def test_conv2d_channels_last_gradcheck():
    rng = np.random.default_rng(3)
    x = as_cl(ember.tensor(rng.standard_normal((2, 4, 5, 5)))).requires_grad_()
    w = ember.tensor(rng.standard_normal((4, 2, 3, 3)), requires_grad=True)
    b = ember.tensor(rng.standard_normal(4), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, (2, 1), 1, 1, 2), (x, w, b))


def max_pool_ref(x, k, s, p):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(k):
        for j in range(k):
            out = np.maximum(out, xp[:, :, i:i + s * (oh - 1) + 1:s, j:j + s * (ow - 1) + 1:s])
    return out


def avg_pool_ref(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(k):
        for j in range(k):
            out += x[:, :, i:i + s * (oh - 1) + 1:s, j:j + s * (ow - 1) + 1:s]
    return out / (k * k)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_pooling_channels_last(dtype):
    rng = np.random.default_rng(4)
    xa = rng.standard_normal((2, 5, 9, 8))
    x = ember.tensor(xa, dtype=dtype)
    tol = 1e-6 if dtype == ember.float32 else 1e-12
    cases = [
        (lambda t: F.max_pool2d(t, 3, 2, 1), max_pool_ref(xa, 3, 2, 1)),
        (lambda t: F.max_pool2d(t, 2), max_pool_ref(xa, 2, 2, 0)),
        (lambda t: F.avg_pool2d(t, 3, 2), avg_pool_ref(xa, 3, 2)),
        (lambda t: F.adaptive_avg_pool2d(t, 1), xa.mean(axis=(2, 3), keepdims=True)),
        (lambda t: F.adaptive_avg_pool2d(t, (3, 4)), None),
        (lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), None),
        (lambda t: F.max_pool2d(t, 3, 1, 1, dilation=2), None),
    ]
    for fn, ref in cases:
        xc, xn = as_cl(x).requires_grad_(), x.clone().requires_grad_()
        yc, yn = fn(xc), fn(xn)
        assert yc.is_contiguous(memory_format=CL)
        np.testing.assert_allclose(yc.detach().numpy(), yn.detach().numpy(), rtol=tol, atol=tol)
        if ref is not None:
            np.testing.assert_allclose(yc.detach().numpy(), ref, rtol=tol, atol=tol)
        g = ember.tensor(rng.standard_normal(tuple(yn.shape)), dtype=dtype)
        yc.backward(as_cl(g))
        yn.backward(g)
        assert xc.grad.is_contiguous(memory_format=CL)
        np.testing.assert_allclose(xc.grad.numpy(), xn.grad.numpy(), rtol=tol, atol=tol)


def test_max_pool_channels_last_indices_and_nan():
    x = ember.randn(2, 3, 6, 6)
    x[0, 1, 2, 3] = float("nan")
    vc, ic = F.max_pool2d(as_cl(x), 2, return_indices=True)
    vn, i_n = F.max_pool2d(x, 2, return_indices=True)
    assert ic.is_contiguous(memory_format=CL)
    np.testing.assert_array_equal(ic.numpy(), i_n.numpy())
    np.testing.assert_array_equal(vc.numpy(), vn.numpy())  # NaN where NCHW has it
    assert np.isnan(vc[0, 1, 1, 1].item())


def test_pooling_channels_last_3d():
    x = ember.randn(2, 3, 4, 6, 6, dtype=ember.float64)
    xc = x.to(memory_format=ember.channels_last_3d)
    for fn in (lambda t: F.max_pool3d(t, 2), lambda t: F.avg_pool3d(t, 2), lambda t: F.adaptive_avg_pool3d(t, 2)):
        yc = fn(xc)
        assert yc.is_contiguous(memory_format=ember.channels_last_3d)
        np.testing.assert_allclose(yc.numpy(), fn(x).numpy(), rtol=1e-12)


def test_pool_gradcheck_channels_last():
    x = as_cl(ember.randn(2, 3, 5, 5, dtype=ember.float64)).requires_grad_()
    assert gradcheck(lambda t: F.avg_pool2d(t, 3, 2, 1), (x,))
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, (2, 3)), (x,))
    assert gradcheck(lambda t: F.max_pool2d(t, 2), (x,))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_channels_last(training):
    rng = np.random.default_rng(5)
    xa = rng.standard_normal((3, 5, 4, 6)) * 2 + 1
    x = ember.tensor(xa)
    w, b = ember.tensor(rng.standard_normal(5)), ember.tensor(rng.standard_normal(5))
    rm, rv = ember.tensor(rng.standard_normal(5)), ember.tensor(rng.random(5) + 0.5)
    outs = []
    for inp in (as_cl(x), x.clone()):
        inp.requires_grad_()
        wg, bg = w.clone().requires_grad_(), b.clone().requires_grad_()
        rmc, rvc = rm.clone(), rv.clone()
        y = F.batch_norm(inp, rmc, rvc, wg, bg, training, 0.1, 1e-5)
        y.backward(ember.tensor(np.cos(np.arange(xa.size)).reshape(xa.shape)))
        outs.append((y, inp.grad, wg.grad, bg.grad, rmc, rvc))
    (yc, gc, *rest_c), (yn, gn, *rest_n) = outs
    assert is_cl(yc) and is_cl(gc)
    if training:
        mean, var = xa.mean(axis=(0, 2, 3)), xa.var(axis=(0, 2, 3))
    else:
        mean, var = rm.numpy(), rv.numpy()
    ref = (xa - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) * w.numpy()[None, :, None, None] \
        + b.numpy()[None, :, None, None]
    np.testing.assert_allclose(yc.detach().numpy(), ref, rtol=1e-10, atol=1e-10)
    for a, bb in zip((yc, gc, *rest_c), (yn, gn, *rest_n)):
        np.testing.assert_allclose(a.detach().numpy(), bb.detach().numpy(), rtol=1e-10, atol=1e-10)


def test_batch_norm_channels_last_gradcheck_and_thread_independence():
    x = as_cl(ember.randn(2, 3, 4, 4, dtype=ember.float64)).requires_grad_()
    w = ember.randn(3, dtype=ember.float64, requires_grad=True)
    b = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, True), (x, w, b))
    big = as_cl(ember.randn(4, 16, 40, 40))
    threads = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = F.batch_norm(big, None, None, training=True)
        ember.set_num_threads(2)
        two = F.batch_norm(big, None, None, training=True)
    finally:
        ember.set_num_threads(threads)
    np.testing.assert_array_equal(one.numpy(), two.numpy())


@pytest.mark.parametrize("mode,kw", [("nearest", {}), ("bilinear", {"align_corners": False}),
                                     ("bilinear", {"align_corners": True}), ("bicubic", {"align_corners": False})])
def test_interpolate_channels_last(mode, kw):
    x = ember.randn(2, 3, 5, 7, dtype=ember.float64)
    xc, xn = as_cl(x).requires_grad_(), x.clone().requires_grad_()
    yc, yn = F.interpolate(xc, size=(9, 4), mode=mode, **kw), F.interpolate(xn, size=(9, 4), mode=mode, **kw)
    assert is_cl(yc)
    np.testing.assert_allclose(yc.detach().numpy(), yn.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = ember.randn(2, 3, 9, 4, dtype=ember.float64)
    yc.backward(as_cl(g))
    yn.backward(g)
    assert is_cl(xc.grad)
    np.testing.assert_allclose(xc.grad.numpy(), xn.grad.numpy(), rtol=1e-12, atol=1e-12)
    same = F.interpolate(as_cl(x), size=(5, 7), mode="bilinear")
    assert same.data_ptr() != x.data_ptr() and is_cl(same)


def _resnet18():
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
    from tools.bench.nn_conv import _resnet18 as build
    return build(ember, nn, F)


def test_resnet18_channels_last_forward_backward_equals_nchw():
    ember.manual_seed(0)
    m = _resnet18().double()
    mc = _resnet18().double()
    mc.load_state_dict(m.state_dict())
    mc.to(memory_format=CL)
    x = ember.randn(2, 3, 64, 64, dtype=ember.float64)
    layouts = []
    for mod in mc.modules():
        if isinstance(mod, (nn.Conv2d, nn.BatchNorm2d, nn.MaxPool2d, nn.ReLU, nn.AdaptiveAvgPool2d)):
            mod.register_forward_hook(lambda mod, i, o: layouts.append(o.is_contiguous(memory_format=CL)))
    y, yc = m(x), mc(as_cl(x))
    assert len(layouts) > 40 and all(layouts)
    np.testing.assert_allclose(yc.detach().numpy(), y.detach().numpy(), rtol=1e-9, atol=1e-9)
    y.sum().backward()
    yc.sum().backward()
    for (name, p), q in zip(m.named_parameters(), mc.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-8, atol=1e-9, err_msg=name)


def test_leaf_gradients_keep_their_leaf_layout():
    """PyTorch's layout contract for .grad: a dense leaf's gradient has the leaf's strides."""
    x = ember.randn(2, 3, 8, 8, requires_grad=True)
    w = as_cl(ember.randn(4, 3, 3, 3)).requires_grad_()
    F.conv2d(x, w).sum().backward()
    assert x.grad.stride() == (192, 64, 8, 1) and w.grad.stride() == (27, 1, 9, 3)
    x = as_cl(ember.randn(2, 3, 8, 8)).requires_grad_()
    w = ember.randn(4, 3, 3, 3, requires_grad=True)
    F.conv2d(x, w).sum().backward()
    assert x.grad.stride() == (192, 1, 24, 3) and w.grad.stride() == (27, 9, 3, 1)
    t = ember.randn(3, 4).t().requires_grad_()
    (t * ember.arange(12.0).reshape(4, 3)).sum().backward()
    assert t.grad.stride() == (1, 4)
    np.testing.assert_array_equal(t.grad.numpy(), np.arange(12.0).reshape(4, 3))
