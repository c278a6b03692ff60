"""channels_last_3d (NDHWC) through conv3d, conv_transpose3d, max_pool3d and batch_norm: the results and gradients
equal the NCDHW ones, and the outputs and input gradients keep channels_last_3d, as PyTorch 2.13 gives them (its
strides for these shapes are written out here)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import nn

CL3 = ember.channels_last_3d


def _pair(rng, *shape):
    """The same values as an NCDHW tensor and as a channels_last_3d one, both leaves requiring grad."""
    a = rng.standard_normal(shape)
    plain = ember.tensor(a, requires_grad=True)
    cl = ember.tensor(a).contiguous(memory_format=CL3).requires_grad_()
    assert cl.is_contiguous(memory_format=CL3) and not cl.is_contiguous()
    return plain, cl


def _check_same(plain_out, cl_out, plain_in, cl_in, want_stride=None):
    assert cl_out.is_contiguous(memory_format=CL3), cl_out.stride()
    if want_stride is not None:
        assert cl_out.stride() == want_stride
    np.testing.assert_allclose(cl_out.detach().numpy(), plain_out.detach().numpy(), rtol=1e-12, atol=1e-12)
    up = ember.tensor(np.random.default_rng(9).standard_normal(tuple(plain_out.shape)))
    (plain_out * up).sum().backward()
    (cl_out * up).sum().backward()
    assert cl_in.grad.is_contiguous(memory_format=CL3)
    np.testing.assert_allclose(cl_in.grad.numpy(), plain_in.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kw", [dict(padding=1), dict(stride=2, bias=True), dict(groups=3, dilation=(1, 2, 1))])
def test_conv3d_keeps_channels_last_3d(kw):
    rng = np.random.default_rng(0)
    x, xc = _pair(rng, 2, 3, 5, 6, 7)
    weight = ember.tensor(rng.standard_normal((6, 3 // kw.get("groups", 1), 3, 2, 3)), requires_grad=True)
    bias = ember.tensor(rng.standard_normal(6)) if kw.pop("bias", False) else None
    _check_same(F.conv3d(x, weight, bias, **kw), F.conv3d(xc, weight, bias, **kw), x, xc)


def test_conv3d_stride_layout_is_pytorchs():
    x = ember.zeros(2, 3, 4, 5, 6).contiguous(memory_format=CL3)
    assert F.conv3d(x, ember.zeros(4, 3, 3, 3, 3), padding=1).stride() == (480, 1, 120, 24, 4)
    # a channels_last_3d weight alone also makes the output channels_last_3d
    out = F.conv3d(ember.zeros(2, 3, 4, 5, 6), ember.zeros(4, 3, 3, 3, 3).contiguous(memory_format=CL3))
    assert out.stride() == (96, 1, 48, 16, 4)
    assert F.conv3d(ember.zeros(2, 3, 4, 5, 6), ember.zeros(4, 3, 3, 3, 3)).is_contiguous()


def test_conv_transpose3d_keeps_channels_last_3d():
    rng = np.random.default_rng(1)
    x, xc = _pair(rng, 2, 3, 4, 5, 6)
    weight = ember.tensor(rng.standard_normal((3, 2, 2, 2, 2)))
    _check_same(F.conv_transpose3d(x, weight, stride=2), F.conv_transpose3d(xc, weight, stride=2), x, xc)
    assert F.conv_transpose3d(xc.detach(), weight).stride() == (420, 1, 84, 14, 2)


def test_max_pool3d_keeps_channels_last_3d():
    rng = np.random.default_rng(2)
    x, xc = _pair(rng, 2, 3, 4, 6, 6)
    out, idx = F.max_pool3d(x, 2, return_indices=True)
    out_c, idx_c = F.max_pool3d(xc, 2, return_indices=True)
    np.testing.assert_array_equal(idx_c.numpy(), idx.numpy())
    _check_same(out, out_c, x, xc, want_stride=(54, 1, 27, 9, 3))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_keeps_channels_last_3d(training):
    rng = np.random.default_rng(3)
    x, xc = _pair(rng, 2, 3, 4, 5, 6)
    stats = [(ember.tensor(rng.standard_normal(3)), ember.tensor(rng.uniform(0.5, 2, 3))) for _ in range(2)]
    stats[1] = (stats[0][0].clone(), stats[0][1].clone())
    weight, bias = ember.tensor(rng.uniform(0.5, 1.5, 3)), ember.tensor(rng.standard_normal(3))
    out = F.batch_norm(x, *stats[0], weight, bias, training=training)
    out_c = F.batch_norm(xc, *stats[1], weight, bias, training=training)
    _check_same(out, out_c, x, xc, want_stride=(360, 1, 90, 18, 3))
    for a, b in zip(stats[0], stats[1]):  # the running statistics update alike
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-12)


def test_a_3d_network_in_channels_last_3d_matches_ncdhw():
    ember.manual_seed(0)
    net = nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(), nn.MaxPool3d(2),
                        nn.Conv3d(4, 3, 2), nn.Flatten(), nn.Linear(24, 2)).double()
    rng = np.random.default_rng(4)
    x, xc = _pair(rng, 3, 2, 6, 6, 6)
    params = list(net.parameters())
    out = net(x)
    out.sum().backward()
    grads = [p.grad.clone() for p in params]
    net.zero_grad()
    hidden = net[:4](xc)
    assert hidden.is_contiguous(memory_format=CL3)  # activations stay channels_last_3d
    out_c = net[4:](hidden)
    out_c.sum().backward()
    np.testing.assert_allclose(out_c.detach().numpy(), out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(xc.grad.numpy(), x.grad.numpy(), rtol=1e-10, atol=1e-12)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-10, atol=1e-12)
