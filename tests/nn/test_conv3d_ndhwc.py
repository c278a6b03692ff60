"""The native channels_last_3d (NDHWC) paths: conv3d (core/csrc/kernels/cpu/conv_ndhwc.cpp) forward and backward,
conv_transpose3d, max/avg pool3d and batch norm 3d on NDHWC input, against plain NumPy references written here.
Outputs and input gradients must come back channels_last_3d, and equal the NCDHW results."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

CL3 = ember.channels_last_3d


def _cl3(a, dtype=None, grad=True):
    t = ember.tensor(a, dtype=dtype).contiguous(memory_format=CL3)
    assert t.is_contiguous(memory_format=CL3) and not t.is_contiguous()
    return t.requires_grad_(grad)


def _taps(k):
    return [(a, b, c) for a in range(k[0]) for b in range(k[1]) for c in range(k[2])]


def _window(xp, tap, out, stride, dil):
    """xp[..., tap*dil + o*stride] for every output position o (the values one kernel tap sees)."""
    return xp[(...,) + tuple(slice(t * d, t * d + (o - 1) * s + 1, s) for t, o, s, d in zip(tap, out, stride, dil))]


def conv3d_ref(x, w, b, stride, pad, dil, groups):
    """Direct convolution: y[n, o] = b[o] + sum over its group's channels and the taps of x_pad * w."""
    n, c = x.shape[:2]
    k = w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = [(xp.shape[2 + i] - dil[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(3)]
    og, cg = w.shape[0] // groups, c // groups
    y = np.zeros((n, w.shape[0], *out))
    for tap in _taps(k):
        xs = _window(xp, tap, out, stride, dil)
        for g in range(groups):
            y[:, g * og:(g + 1) * og] += np.einsum("ncdhw,oc->nodhw", xs[:, g * cg:(g + 1) * cg],
                                                    w[g * og:(g + 1) * og, :, tap[0], tap[1], tap[2]])
    return y + (0 if b is None else b[None, :, None, None, None])


def conv3d_grads_ref(x, w, u, stride, pad, dil, groups):
    """The gradients of <u, conv3d(x, w)> for x and w: the adjoint scatter and the tap-wise correlation."""
    c = x.shape[1]
    k = w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    gxp = np.zeros_like(xp)
    gw = np.zeros_like(w)
    out = u.shape[2:]
    og, cg = w.shape[0] // groups, c // groups
    for tap in _taps(k):
        xs = _window(xp, tap, out, stride, dil)
        gs = _window(gxp, tap, out, stride, dil)  # a view: adding to it adds into gxp
        for g in range(groups):
            ug, ch = u[:, g * og:(g + 1) * og], slice(g * cg, (g + 1) * cg)
            gs[:, ch] += np.einsum("nodhw,oc->ncdhw", ug, w[g * og:(g + 1) * og, :, tap[0], tap[1], tap[2]])
            gw[g * og:(g + 1) * og, :, tap[0], tap[1], tap[2]] = np.einsum("ncdhw,nodhw->oc", xs[:, ch], ug)
    crop = (slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(pad, x.shape[2:]))
    return gxp[crop], gw


def conv_transpose3d_ref(x, w, stride, pad, opad, dil, groups):
    """The transposed convolution written as its scatter: every input position adds x * w into the output."""
    n, cin = x.shape[:2]
    k = w.shape[2:]
    cog, cig = w.shape[1], cin // groups
    size = [(x.shape[2 + i] - 1) * stride[i] - 2 * pad[i] + dil[i] * (k[i] - 1) + 1 + opad[i] for i in range(3)]
    yp = np.zeros((n, cog * groups, *[s + 2 * p for s, p in zip(size, pad)]))
    for tap in _taps(k):
        ys = _window(yp, tap, x.shape[2:], stride, dil)
        for g in range(groups):
            ys[:, g * cog:(g + 1) * cog] += np.einsum("ncdhw,co->nodhw", x[:, g * cig:(g + 1) * cig],
                                                      w[g * cig:(g + 1) * cig, :, tap[0], tap[1], tap[2]])
    return yp[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(pad, size))]


def _tuple3(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * 3


CONV_CASES = [
    dict(shape=(2, 4, 5, 6, 7), out=6, k=3, padding=1),
    dict(shape=(1, 3, 7, 6, 9), out=5, k=(3, 2, 3), stride=2, bias=True),
    dict(shape=(2, 6, 5, 5, 6), out=4, k=(2, 3, 2), groups=2, dilation=(1, 2, 1), padding=(1, 0, 2)),
    dict(shape=(2, 8, 4, 5, 5), out=8, k=1, bias=True),
    dict(shape=(1, 5, 6, 5, 8), out=3, k=(1, 3, 3), stride=(1, 2, 3), padding=(0, 1, 1), dilation=(2, 1, 1)),
    # depthwise (a loop along the channels per tap), stride 1 (its input gradient gathers) and 2 (scatters)
    dict(shape=(2, 6, 5, 6, 7), out=6, k=3, groups=6, padding=1, bias=True),
    dict(shape=(2, 5, 5, 6, 7), out=5, k=(2, 3, 3), groups=5, stride=(2, 1, 2), dilation=(1, 2, 1)),
]


@pytest.mark.parametrize("dtype", [ember.float64, ember.float32])
@pytest.mark.parametrize("case", CONV_CASES)
def test_conv3d_forward_and_backward_match_numpy(case, dtype):
    rng = np.random.default_rng(0)
    stride, pad, dil = (_tuple3(case.get(key, dv)) for key, dv in (("stride", 1), ("padding", 0), ("dilation", 1)))
    groups, k = case.get("groups", 1), _tuple3(case["k"])
    a = rng.standard_normal(case["shape"])
    w = rng.standard_normal((case["out"], case["shape"][1] // groups, *k)) * 0.3
    b = rng.standard_normal(case["out"]) if case.get("bias") else None
    want = conv3d_ref(a, w, b, stride, pad, dil, groups)
    x = _cl3(a, dtype)
    wt = ember.tensor(w, dtype=dtype, requires_grad=True)
    bt = ember.tensor(b, dtype=dtype, requires_grad=True) if b is not None else None
    y = F.conv3d(x, wt, bt, stride=stride, padding=pad, dilation=dil, groups=groups)
    assert y.is_contiguous(memory_format=CL3), y.stride()
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == ember.float64 else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(y.detach().numpy(), want, **tol)
    u = rng.standard_normal(want.shape)
    (y * ember.tensor(u, dtype=dtype)).sum().backward()
    gx, gw = conv3d_grads_ref(a, w, u, stride, pad, dil, groups)
    assert x.grad.is_contiguous(memory_format=CL3), x.grad.stride()
    np.testing.assert_allclose(x.grad.numpy(), gx, **tol)
    np.testing.assert_allclose(wt.grad.numpy(), gw, **tol)
    if bt is not None:
        np.testing.assert_allclose(bt.grad.numpy(), u.sum(axis=(0, 2, 3, 4)), **tol)


def test_conv3d_with_a_channels_last_3d_weight_only_and_its_weight_gradient():
    # PyTorch's rule: a channels_last_3d weight alone makes the convolution run (and return) channels_last_3d.
    rng = np.random.default_rng(1)
    a, w = rng.standard_normal((2, 3, 4, 5, 6)), rng.standard_normal((4, 3, 2, 3, 2))
    x = ember.tensor(a, requires_grad=True)
    wt = _cl3(w)
    y = F.conv3d(x, wt, padding=1)
    assert y.is_contiguous(memory_format=CL3)
    want = conv3d_ref(a, w, None, (1, 1, 1), (1, 1, 1), (1, 1, 1), 1)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-10, atol=1e-10)
    u = rng.standard_normal(want.shape)
    (y * ember.tensor(u)).sum().backward()
    gx, gw = conv3d_grads_ref(a, w, u, (1, 1, 1), (1, 1, 1), (1, 1, 1), 1)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kw", [dict(stride=2), dict(stride=1, padding=1),
                                dict(stride=(2, 1, 3), output_padding=(1, 0, 2)),
                                dict(groups=2, dilation=2, padding=1),
                                dict(stride=1, dilation=2, output_padding=1), dict(groups=4, stride=(1, 2, 2)),
                                dict(groups=4, padding=1)])
def test_conv_transpose3d_matches_numpy(kw):
    rng = np.random.default_rng(2)
    groups = kw.get("groups", 1)
    a = rng.standard_normal((2, 4, 3, 4, 5))
    w = rng.standard_normal((4, {1: 3, 2: 3, 4: 1}[groups], 3, 2, 3)) * 0.3
    x = _cl3(a)
    y = F.conv_transpose3d(x, ember.tensor(w), **kw)
    want = conv_transpose3d_ref(a, w, _tuple3(kw.get("stride", 1)), _tuple3(kw.get("padding", 0)),
                                _tuple3(kw.get("output_padding", 0)), _tuple3(kw.get("dilation", 1)), groups)
    assert y.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-10, atol=1e-10)
    # its input gradient is the forward convolution of the upstream gradient: <u, convT(x)> = <conv(u), x>
    # (stride 1 with dilation 2 and output_padding 1 once failed on a size mismatch, in NCDHW as well)
    u = rng.standard_normal(want.shape)
    (y * ember.tensor(u)).sum().backward()
    pad = _tuple3(kw.get("padding", 0))
    up = conv3d_ref(u, w, None, _tuple3(kw.get("stride", 1)), pad, _tuple3(kw.get("dilation", 1)), groups)
    up = up[:, :, :3, :4, :5]  # with output_padding it reaches past the input: those positions have none
    assert x.grad.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(x.grad.numpy(), up, rtol=1e-10, atol=1e-10)


def test_conv3d_bfloat16_and_float16_compute_in_float32():
    rng = np.random.default_rng(3)
    a, w = rng.standard_normal((1, 8, 4, 4, 4)), rng.standard_normal((8, 8, 3, 3, 3)) * 0.2
    for dt in (ember.bfloat16, ember.float16):
        x, wt = _cl3(a, dt, grad=False), ember.tensor(w, dtype=dt)
        y = F.conv3d(x, wt, padding=1)
        assert y.dtype == dt and y.is_contiguous(memory_format=CL3)
        # the reference on the operands as rounded to dt
        want = conv3d_ref(x.float().numpy().astype(np.float64), wt.float().numpy().astype(np.float64), None,
                          (1, 1, 1), (1, 1, 1), (1, 1, 1), 1)
        np.testing.assert_allclose(y.float().numpy(), want, rtol=2e-2, atol=5e-2)


def test_conv3d_threads_give_the_same_result():
    rng = np.random.default_rng(4)
    x = _cl3(rng.standard_normal((2, 5, 6, 7, 8)), ember.float32, grad=False)
    w = ember.tensor(rng.standard_normal((7, 5, 3, 3, 3)), dtype=ember.float32)
    before = ember.get_num_threads()
    try:
        outs = []
        for n in (1, 2, 3):
            ember.set_num_threads(n)
            outs.append(F.conv3d(x, w, padding=1, stride=(1, 2, 1)).numpy())
    finally:
        ember.set_num_threads(before)
    np.testing.assert_array_equal(outs[1], outs[0])
    np.testing.assert_array_equal(outs[2], outs[0])


def _pool_ref(x, k, stride, pad, fill):
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad], constant_values=fill)
    out = [(xp.shape[2 + i] - k[i]) // stride[i] + 1 for i in range(3)]
    return np.stack([_window(xp, tap, out, stride, (1, 1, 1)) for tap in _taps(k)]), xp.shape


def test_max_pool3d_on_channels_last_3d_matches_numpy_with_indices_and_gradient():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 5, 6, 7))
    k, s, p = (2, 3, 2), (2, 2, 1), (1, 1, 0)
    x = _cl3(a)
    y, idx = F.max_pool3d(x, k, s, p, return_indices=True)
    wins, _ = _pool_ref(a, k, s, p, -np.inf)
    assert y.is_contiguous(memory_format=CL3)
    np.testing.assert_array_equal(y.detach().numpy(), wins.max(0))
    # indices: flat within each (D, H, W) plane of the input, at the window's maximum
    flat = a.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.numpy().reshape(2, 3, -1), 2).reshape(y.shape),
                                  wins.max(0))
    u = rng.standard_normal(tuple(y.shape))
    (y * ember.tensor(u)).sum().backward()
    want = np.zeros_like(flat)
    for n in range(2):
        for c in range(3):
            np.add.at(want[n, c], idx.numpy()[n, c].ravel(), u[n, c].ravel())
    assert x.grad.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(x.grad.numpy(), want.reshape(a.shape), rtol=1e-12)


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool3d_on_channels_last_3d_matches_numpy(count_include_pad):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 4, 5, 6, 6))
    k, s, p = (3, 2, 3), (2, 2, 2), (1, 1, 1)
    x = _cl3(a)
    y = F.avg_pool3d(x, k, s, p, count_include_pad=count_include_pad)
    wins, _ = _pool_ref(a, k, s, p, 0.0)
    ones, _ = _pool_ref(np.ones_like(a), k, s, p, 0.0)
    want = wins.sum(0) / (np.prod(k) if count_include_pad else ones.sum(0))
    assert y.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-12)
    # gradient: each output's upstream value spread evenly over its window (the adjoint)
    u = rng.standard_normal(want.shape)
    (y * ember.tensor(u)).sum().backward()
    share = u / (np.prod(k) if count_include_pad else ones.sum(0))
    gp = np.zeros((2, 4) + tuple(n + 2 * q for n, q in zip(a.shape[2:], p)))
    for tap in _taps(k):
        _window(gp, tap, want.shape[2:], s, (1, 1, 1))[...] += share
    assert x.grad.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(x.grad.numpy(), gp[:, :, 1:-1, 1:-1, 1:-1], rtol=1e-10, atol=1e-12)


def test_batch_norm_3d_training_on_channels_last_3d_matches_numpy():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4, 3, 5, 6)) * 2 + 1
    gamma, beta = rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)
    rm, rv = ember.zeros(4, dtype=ember.float64), ember.ones(4, dtype=ember.float64)
    x = _cl3(a)
    g, bt = ember.tensor(gamma, requires_grad=True), ember.tensor(beta, requires_grad=True)
    y = F.batch_norm(x, rm, rv, g, bt, training=True, momentum=0.1, eps=1e-5)
    axes = (0, 2, 3, 4)
    mean, var = a.mean(axes, keepdims=True), a.var(axes, keepdims=True)
    xhat = (a - mean) / np.sqrt(var + 1e-5)
    shape = (1, 4, 1, 1, 1)
    assert y.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(y.detach().numpy(), xhat * gamma.reshape(shape) + beta.reshape(shape), rtol=1e-10,
                               atol=1e-12)
    m = a.size // 4
    np.testing.assert_allclose(rm.numpy(), 0.1 * mean.ravel(), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * var.ravel() * m / (m - 1), rtol=1e-12)
    u = rng.standard_normal(a.shape)
    (y * ember.tensor(u)).sum().backward()
    gx = gamma.reshape(shape) / np.sqrt(var + 1e-5) * (
        u - u.mean(axes, keepdims=True) - xhat * (u * xhat).mean(axes, keepdims=True))
    assert x.grad.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(g.grad.numpy(), (u * xhat).sum(axes), rtol=1e-10)
    np.testing.assert_allclose(bt.grad.numpy(), u.sum(axes), rtol=1e-10)


def test_conv_transpose2d_backward_with_output_padding_past_the_input():
    # stride 1, dilation 2, output_padding 1: the input gradient's convolution reaches one position past the
    # input; the gradient is its first part (NCHW here: the fix is in the shared backward formula).
    rng = np.random.default_rng(8)
    a, w = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((3, 2, 3, 2))
    x = ember.tensor(a, requires_grad=True)
    y = F.conv_transpose2d(x, ember.tensor(w), dilation=2, output_padding=1)
    want = conv_transpose3d_ref(a[:, :, None], w[:, :, None], (1, 1, 1), (0, 0, 0), (0, 1, 1), (1, 2, 2), 1)[:, :, 0]
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-10, atol=1e-10)
    u = rng.standard_normal(want.shape)
    (y * ember.tensor(u)).sum().backward()
    up = conv3d_ref(u[:, :, None], w[:, :, None], None, (1, 1, 1), (0, 0, 0), (1, 2, 2), 1)[:, :, 0]
    np.testing.assert_allclose(x.grad.numpy(), up[:, :, :4, :5], rtol=1e-10, atol=1e-10)
