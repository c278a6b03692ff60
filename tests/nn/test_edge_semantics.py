"""Edge cases where PyTorch's nn has a precise rule: pool output sizes by floor division, empty and
NaN windows, nearest-neighbour indices in float32, RMSNorm's default eps, EmbeddingBag max with
padding, InstanceNorm with momentum=None, attention rows masked everywhere, parametrize's train
mode and removal, weight_norm on a vector. References are NumPy."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.nn.utils import parametrize


def test_pool_output_size_floors_a_negative_numerator():
    # (2 - 3) / 2 truncates to 0 in C but floors to -1: the output would be empty, which must raise
    x = ember.zeros(1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="too small"):
        F.max_pool2d(x, 3, stride=2)
    with pytest.raises(RuntimeError, match="too small"):
        F.avg_pool1d(ember.zeros(1, 1, 2), 3, stride=2)


def test_max_pool_window_that_misses_the_input_gives_minus_inf():
    # depth 1, kernel 2, dilation 2, padding 1: the window's depth positions are -1 and 1, both outside
    x = ember.tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 1, 4, 4))
    out, idx = F.max_pool3d(x, (2, 1, 1), stride=1, padding=(1, 0, 0), dilation=(2, 1, 1), return_indices=True)
    assert out.shape == (1, 1, 1, 4, 4)
    assert np.all(np.isneginf(out.numpy()))


def test_max_pool_keeps_the_last_nan_of_a_window():
    a = np.array([[1.0, np.nan], [np.nan, 4.0]], dtype=np.float32).reshape(1, 1, 2, 2)
    out, idx = F.max_pool2d(ember.tensor(a), 2, return_indices=True)
    assert np.isnan(out.item()) and idx.item() == 2
    out3, idx3 = F.max_pool3d(ember.tensor(a.reshape(1, 1, 1, 2, 2)), (1, 2, 2), return_indices=True)
    assert np.isnan(out3.item()) and idx3.item() == 2


def _nearest_reference(n, out, scale, exact):
    if not exact and out == n:
        return np.arange(out)
    if not exact and out == 2 * n:
        return np.arange(out) // 2
    pos = (np.arange(out, dtype=np.float32) + np.float32(0.5 if exact else 0.0)) * np.float32(scale)
    return np.minimum(np.floor(pos).astype(np.int64), n - 1)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_nearest_indices_follow_float32_scales(mode):
    for n in range(1, 40):
        x = ember.tensor(np.arange(n, dtype=np.float64).reshape(1, 1, n))
        for out in range(1, 3 * n + 2):
            got = F.interpolate(x, size=out, mode=mode).numpy().reshape(-1)
            np.testing.assert_array_equal(got, _nearest_reference(n, out, n / out, mode == "nearest-exact"))
    for factor in (0.3, 1.7, 2.0, 2.9):
        x = ember.tensor(np.arange(23, dtype=np.float64).reshape(1, 1, 23))
        got = F.interpolate(x, scale_factor=factor, mode=mode).numpy().reshape(-1)
        out = int(np.floor(23 * factor))
        np.testing.assert_array_equal(got, _nearest_reference(23, out, 1.0 / factor, mode == "nearest-exact"))


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    a = np.full((2, 4), 1e-4, dtype=np.float32)
    want = a / np.sqrt((a * a).mean(-1, keepdims=True) + np.finfo(np.float32).eps)
    np.testing.assert_allclose(F.rms_norm(ember.tensor(a), [4]).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(nn.RMSNorm(4)(ember.tensor(a)).detach().numpy(), want, rtol=1e-5)


def test_embedding_bag_max_skips_padding():
    w = np.array([[-5.0, -6.0], [-1.0, -2.0], [-3.0, 1.0]], dtype=np.float32)
    inp = ember.tensor([1, 0, 2, 0, 0], dtype=ember.int64)
    offsets = ember.tensor([0, 3], dtype=ember.int64)
    got = F.embedding_bag(inp, ember.tensor(w), offsets, mode="max", padding_idx=0).numpy()
    want = np.stack([np.maximum(w[1], w[2]), np.zeros(2, np.float32)])  # the second bag holds padding only
    np.testing.assert_array_equal(got, want)


def test_instance_norm_momentum_none_leaves_running_stats():
    m = nn.InstanceNorm1d(3, momentum=None, track_running_stats=True)
    m(ember.randn(2, 3, 5) * 4 + 2)
    np.testing.assert_array_equal(m.running_mean.numpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(m.running_var.numpy(), np.ones(3, np.float32))


def test_instance_norm_without_affine_only_warns_on_channels():
    m = nn.InstanceNorm1d(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = m(ember.randn(2, 3, 5))
    assert out.shape == (2, 3, 5) and any("num_features" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="channels"):
        nn.InstanceNorm1d(4, affine=True)(ember.randn(2, 3, 5))


def test_attention_row_masked_everywhere_gives_zeros():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False  # query 1 may attend nowhere
    qt, kt, vt = (ember.tensor(a, requires_grad=True) for a in (q, k, v))
    out = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=ember.tensor(mask))
    s = q @ k.transpose(0, 2, 1) / 2.0
    s = np.where(mask, s, -np.inf)
    with np.errstate(invalid="ignore"):
        p = np.exp(s - s.max(-1, keepdims=True))
        p = np.nan_to_num(p / p.sum(-1, keepdims=True))
    np.testing.assert_allclose(out.detach().numpy(), p @ v, rtol=1e-10, atol=1e-12)
    out.sum().backward()
    assert np.all(np.isfinite(qt.grad.numpy())) and np.all(qt.grad.numpy()[:, 1] == 0)


def test_multihead_attention_is_causal_needs_a_mask():
    m = nn.MultiheadAttention(4, 2)
    x = ember.randn(3, 1, 4)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)


class _Double(nn.Module):
    def forward(self, x):
        return x * 2


def test_parametrization_follows_the_module_training_mode():
    m = nn.Linear(2, 2).eval()
    p = _Double()
    assert p.training
    parametrize.register_parametrization(m, "weight", p)
    assert not p.training


@pytest.mark.parametrize("as_buffer", [False, True])
def test_remove_parametrizations_keeps_the_original_object(as_buffer):
    m = nn.Linear(2, 2)
    if as_buffer:
        w = m.weight.detach().clone()
        del m._parameters["weight"]
        m.register_buffer("weight", w)
    before = m.weight.detach().numpy().copy()
    parametrize.register_parametrization(m, "weight", _Double())
    original = m.parametrizations.weight.original
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=True)
    assert m.weight is original
    np.testing.assert_array_equal(m.weight.detach().numpy(), before * 2)
    assert ("weight" in m._buffers) == as_buffer and ("weight" in m._parameters) != as_buffer


def test_weight_norm_of_a_vector_is_elementwise():
    m = nn.Linear(3, 1)
    b = np.array([-2.0, 0.5, 3.0], dtype=np.float32)
    m.register_parameter("extra", nn.Parameter(ember.tensor(b)))
    nn.utils.weight_norm(m, "extra", dim=0)
    np.testing.assert_array_equal(m.extra_g.detach().numpy(), np.abs(b))
    np.testing.assert_allclose(m.extra.detach().numpy(), b)


def test_max_pool_backward_rejects_bad_indices_and_shapes():
    g = ember.ones(1, 1, 2)
    with pytest.raises(IndexError, match="index 5 is out of bounds for a plane of 4"):
        ember._C._nn.max_pool_backward(g, ember.tensor([[[0, 5]]]), [1, 1, 4])
    # several bad indices over many planes (split across threads): the first in flat order is named
    idx = np.zeros((4, 16, 2), dtype=np.int64)
    idx[1, 3, 1], idx[2, 0, 0], idx[3, 15, 1] = -7, 9, 11
    with pytest.raises(IndexError, match="index -7 is out"):
        ember._C._nn.max_pool_backward(ember.ones(4, 16, 2), ember.tensor(idx), [4, 16, 4])
    with pytest.raises(RuntimeError, match="same shape"):
        ember._C._nn.max_pool_backward(g, ember.tensor([[[0, 1, 2]]]), [1, 1, 4])
    with pytest.raises(RuntimeError, match="int64"):
        ember._C._nn.max_pool_backward(g, ember.tensor([[[0, 1]]], dtype=ember.int32), [1, 1, 4])
    with pytest.raises(RuntimeError, match="do not fit"):
        ember._C._nn.max_pool_backward(g, ember.tensor([[[0, 1]]]), [1, 2, 4])
