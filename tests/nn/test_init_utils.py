"""ember.nn.init (gains, fan-based bounds and stds checked statistically with fixed seeds, exact
fills, errors) and ember.nn.utils (clip_grad_norm_/clip_grad_value_, parameters_to_vector and
vector_to_parameters) against NumPy."""
import math

import numpy as np
import pytest
from scipy import stats

import ember
import ember.nn as nn
from ember.nn import init
from ember.nn.utils import (clip_grad_norm_, clip_grad_value_, get_total_norm, parameters_to_vector,
                            vector_to_parameters)


def npy(t):
    return np.array(t.detach().numpy(), copy=True)


# ---- calculate_gain -----------------------------------------------------------------------------
@pytest.mark.parametrize("name, param, gain", [
    ("linear", None, 1.0), ("conv1d", None, 1.0), ("conv2d", None, 1.0), ("conv3d", None, 1.0),
    ("conv_transpose1d", None, 1.0), ("conv_transpose2d", None, 1.0), ("conv_transpose3d", None, 1.0),
    ("sigmoid", None, 1.0), ("tanh", None, 5.0 / 3), ("relu", None, math.sqrt(2.0)),
    ("leaky_relu", None, math.sqrt(2.0 / (1 + 0.01 ** 2))), ("leaky_relu", 0.2, math.sqrt(2.0 / 1.04)),
    ("leaky_relu", 0, math.sqrt(2.0)), ("leaky_relu", math.sqrt(5), math.sqrt(1.0 / 3)), ("selu", None, 0.75),
])
def test_calculate_gain(name, param, gain):
    assert init.calculate_gain(name, param) == pytest.approx(gain, rel=1e-15)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError):
        init.calculate_gain("leaky_relu", "0.1")


# ---- random initializers ------------------------------------------------------------------------
def _sample(fill, shape, seed=0, dtype=ember.float64):
    ember.manual_seed(seed)
    t = ember.empty(*shape, dtype=dtype)
    out = fill(t)
    assert out is t  # in place, the tensor returned
    return npy(t)


@pytest.mark.parametrize("shape, mode, nonlinearity, a", [
    ((300, 400), "fan_in", "leaky_relu", 0),
    ((300, 400), "fan_out", "relu", 0),
    ((64, 16, 3, 3), "fan_in", "leaky_relu", math.sqrt(5)),
    ((64, 16, 3, 3), "fan_out", "leaky_relu", 0.1),
])
def test_kaiming(shape, mode, nonlinearity, a):
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    fan = shape[1] * receptive if mode == "fan_in" else shape[0] * receptive
    slope = a if nonlinearity == "leaky_relu" else 0
    std = math.sqrt(2.0 / (1 + slope ** 2)) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    u = _sample(lambda t: init.kaiming_uniform_(t, a=a, mode=mode, nonlinearity=nonlinearity), shape)
    assert np.abs(u).max() <= bound
    assert np.abs(u).max() > 0.99 * bound  # fills the whole range
    assert u.std() == pytest.approx(std, rel=0.02) and abs(u.mean()) < 0.05 * std
    n = _sample(lambda t: init.kaiming_normal_(t, a=a, mode=mode, nonlinearity=nonlinearity), shape, seed=1)
    assert n.std() == pytest.approx(std, rel=0.02) and abs(n.mean()) < 0.05 * std
    assert stats.kstest(n.reshape(-1)[:20000] / std, "norm").pvalue > 1e-4


@pytest.mark.parametrize("shape", [(200, 300), (32, 8, 5, 5)])
@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_xavier(shape, gain):
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    u = _sample(lambda t: init.xavier_uniform_(t, gain=gain), shape)
    assert np.abs(u).max() <= bound and np.abs(u).max() > 0.99 * bound
    assert u.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    n = _sample(lambda t: init.xavier_normal_(t, gain=gain), shape, seed=2)
    assert n.std() == pytest.approx(std, rel=0.02) and abs(n.mean()) < 0.05 * std


def test_uniform_normal():
    u = _sample(lambda t: init.uniform_(t, -2.0, 3.0), (100_000,))
    assert u.min() >= -2.0 and u.max() <= 3.0
    assert u.mean() == pytest.approx(0.5, abs=0.03) and u.std() == pytest.approx(5 / math.sqrt(12), rel=0.01)
    n = _sample(lambda t: init.normal_(t, 1.5, 0.3), (100_000,))
    assert n.mean() == pytest.approx(1.5, abs=0.005) and n.std() == pytest.approx(0.3, rel=0.01)


@pytest.mark.parametrize("mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0), (0.0, 1.0, 0.5, 4.0)])
def test_trunc_normal(mean, std, a, b):
    x = _sample(lambda t: init.trunc_normal_(t, mean, std, a, b), (100_000,))
    assert x.min() >= a and x.max() <= b
    law = stats.truncnorm((a - mean) / std, (b - mean) / std, loc=mean, scale=std)
    assert x.mean() == pytest.approx(law.mean(), abs=0.02 * std)
    assert x.std() == pytest.approx(law.std(), rel=0.02)
    assert stats.kstest(x[:20000], law.cdf).pvalue > 1e-4
    x32 = _sample(lambda t: init.trunc_normal_(t, mean, std, a, b), (50_000,), dtype=ember.float32)
    assert x32.min() >= a and x32.max() <= b


def test_generator_reproducible():
    g1, g2 = ember.Generator().manual_seed(9), ember.Generator().manual_seed(9)
    t1, t2 = ember.empty(4, 5), ember.empty(4, 5)
    init.kaiming_uniform_(t1, generator=g1)
    init.kaiming_uniform_(t2, generator=g2)
    np.testing.assert_array_equal(npy(t1), npy(t2))


def test_init_on_parameters_is_not_recorded():
    p = nn.Parameter(ember.empty(3, 4))
    for fill in (init.xavier_uniform_, init.kaiming_normal_, init.zeros_, lambda t: init.trunc_normal_(t),
                 lambda t: init.constant_(t, 2.0), init.eye_):
        fill(p)
        assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_zero_size_kaiming_is_noop():
    t = ember.empty(0, 3)
    assert init.kaiming_uniform_(t) is t and init.kaiming_normal_(t) is t


# ---- exact fills --------------------------------------------------------------------------------
def test_constant_ones_zeros_eye():
    t = ember.empty(3, 4)
    np.testing.assert_array_equal(npy(init.constant_(t, 0.25)), np.full((3, 4), 0.25))
    np.testing.assert_array_equal(npy(init.ones_(t)), np.ones((3, 4)))
    np.testing.assert_array_equal(npy(init.zeros_(t)), np.zeros((3, 4)))
    np.testing.assert_array_equal(npy(init.eye_(t)), np.eye(3, 4))
    np.testing.assert_array_equal(npy(init.eye_(ember.empty(4, 2, dtype=ember.float64))), np.eye(4, 2))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.eye_(ember.empty(2, 2, 2))


def np_dirac(shape, groups=1):
    w = np.zeros(shape)
    per = shape[0] // groups
    center = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for k in range(min(per, shape[1])):
            w[(g * per + k, k) + center] = 1
    return w


@pytest.mark.parametrize("shape, groups", [((4, 4, 3), 1), ((6, 3, 5), 1), ((2, 5, 3, 3), 1), ((4, 2, 3, 4), 2),
                                           ((3, 3, 3, 3, 3), 1), ((6, 2, 1, 3, 2), 3)])
def test_dirac(shape, groups):
    t = ember.full(shape, 7.0)
    init.dirac_(t, groups)
    np.testing.assert_array_equal(npy(t), np_dirac(shape, groups))


def test_dirac_errors_and_sparse():
    with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
        init.dirac_(ember.empty(3, 3))
    with pytest.raises(ValueError):
        init.dirac_(ember.empty(5, 2, 3), groups=2)
    ember.manual_seed(4)
    t = init.sparse_(ember.empty(10, 6), 0.35, std=0.5)
    zeros_per_column = (npy(t) == 0).sum(axis=0)
    np.testing.assert_array_equal(zeros_per_column, np.full(6, math.ceil(0.35 * 10)))


@pytest.mark.parametrize("fill", [init.xavier_uniform_, init.xavier_normal_, init.kaiming_uniform_,
                                  init.kaiming_normal_])
def test_fan_errors_below_2d(fill):
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        fill(ember.empty(5))


def test_bad_mode():
    with pytest.raises(ValueError, match="fan_avg"):
        init.kaiming_uniform_(ember.empty(3, 3), mode="fan_avg")


# ---- the layers' default init -------------------------------------------------------------------
def test_linear_default_init_bounds():
    ember.manual_seed(0)
    lin = nn.Linear(50, 400)
    bound = 1 / math.sqrt(50)
    w, b = npy(lin.weight), npy(lin.bias)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.9 * bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.03)  # uniform(-bound, bound)
    lin.reset_parameters()
    assert not np.array_equal(npy(lin.weight), w) and np.abs(npy(lin.weight)).max() <= bound


# ---- clip_grad ----------------------------------------------------------------------------------
def _params_with_grads(grads):
    ps = []
    for g in grads:
        p = nn.Parameter(ember.zeros(*np.shape(g), dtype=ember.float64))
        p.grad = ember.tensor(np.asarray(g, np.float64))
        ps.append(p)
    return ps


G = [np.array([[3.0, -4.0], [1.0, 2.0]]), np.array([0.5, -7.0, 2.0])]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_clip_grad_norm(norm_type):
    flat = np.concatenate([g.reshape(-1) for g in G])
    total = np.abs(flat).max() if norm_type == float("inf") else np.sum(np.abs(flat) ** norm_type) ** (1 / norm_type)
    ps = _params_with_grads(G)
    ret = clip_grad_norm_(ps, max_norm=1.0, norm_type=norm_type)
    assert float(ret) == pytest.approx(total, rel=1e-12)
    coef = 1.0 / (total + 1e-6)
    for p, g in zip(ps, G):
        np.testing.assert_allclose(npy(p.grad), g * coef, rtol=1e-12)
    # a larger max_norm leaves the gradients alone
    ps = _params_with_grads(G)
    ret = clip_grad_norm_(iter(ps), max_norm=1e3, norm_type=norm_type)
    assert float(ret) == pytest.approx(total, rel=1e-12)
    for p, g in zip(ps, G):
        np.testing.assert_array_equal(npy(p.grad), g)


def test_clip_grad_norm_edge_cases():
    ps = _params_with_grads(G)
    ps.append(nn.Parameter(ember.ones(3, dtype=ember.float64)))  # grad None: skipped
    total = float(clip_grad_norm_(ps, 5.0))
    assert total == pytest.approx(np.sqrt(sum((g ** 2).sum() for g in G)), rel=1e-12)
    assert ps[-1].grad is None
    single = _params_with_grads([np.array([6.0, 8.0])])[0]
    assert float(clip_grad_norm_(single, 5.0)) == pytest.approx(10.0)  # a lone tensor is accepted
    np.testing.assert_allclose(npy(single.grad), np.array([6.0, 8.0]) * 5 / (10 + 1e-6), rtol=1e-12)
    assert float(clip_grad_norm_([], 1.0)) == 0.0
    bad = _params_with_grads([np.array([1.0, np.nan])])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    # without the error, the gradients are scaled by the non-finite norm anyway (PyTorch: to nan)
    bad = _params_with_grads([np.array([1.0, np.nan]), np.array([2.0])])
    assert np.isnan(float(clip_grad_norm_(bad, 1.0)))
    assert all(np.isnan(npy(p.grad)).all() for p in bad)
    f32 = nn.Parameter(ember.zeros(2))
    f32.grad = ember.tensor([3.0, 4.0])
    assert clip_grad_norm_([f32], 1.0).dtype == ember.float32
    assert float(get_total_norm([ember.tensor([3.0, 4.0]), ember.tensor([12.0])])) == pytest.approx(13.0)


def test_clip_grad_value():
    ps = _params_with_grads(G)
    clip_grad_value_(ps, 2.5)
    for p, g in zip(ps, G):
        np.testing.assert_array_equal(npy(p.grad), np.clip(g, -2.5, 2.5))


def test_clip_grad_after_backward():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    m(ember.randn(16, 4, dtype=ember.float64)).pow(2).sum().backward()
    grads = [npy(p.grad) for p in m.parameters()]
    total = np.sqrt(sum((g ** 2).sum() for g in grads))
    ret = clip_grad_norm_(m.parameters(), total / 4)
    assert float(ret) == pytest.approx(total, rel=1e-12)
    after = np.sqrt(sum((npy(p.grad) ** 2).sum() for p in m.parameters()))
    assert after == pytest.approx(total / 4, rel=1e-5)


# ---- parameters_to_vector / vector_to_parameters ------------------------------------------------
def test_parameters_vector_roundtrip():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    vec = parameters_to_vector(m.parameters())
    expected = np.concatenate([npy(p).reshape(-1) for p in m.parameters()])
    assert vec.shape == (3 * 4 + 4 + 4 * 2 + 2,)
    np.testing.assert_array_equal(npy(vec), expected)
    new = np.arange(vec.numel(), dtype=np.float32)
    vector_to_parameters(ember.tensor(new), m.parameters())
    off = 0
    for p in m.parameters():
        assert isinstance(p, nn.Parameter) and p.requires_grad
        np.testing.assert_array_equal(npy(p), new[off:off + p.numel()].reshape(tuple(p.shape)))
        off += p.numel()
    np.testing.assert_array_equal(npy(parameters_to_vector(m.parameters())), new)
    # the model computes with the new values
    x = ember.randn(2, 3)
    W1, b1, W2, b2 = (npy(p) for p in m.parameters())
    np.testing.assert_allclose(npy(m(x)), (npy(x) @ W1.T + b1) @ W2.T + b2, rtol=1e-5)


def test_parameters_to_vector_is_differentiable_and_errors():
    p = nn.Parameter(ember.ones(2, 2))
    q = nn.Parameter(ember.ones(3))
    v = parameters_to_vector([p, q])
    (v * ember.arange(7.0)).sum().backward()
    np.testing.assert_array_equal(npy(p.grad), [[0, 1], [2, 3]])
    np.testing.assert_array_equal(npy(q.grad), [4, 5, 6])
    with pytest.raises(TypeError):
        vector_to_parameters([1.0, 2.0], [p])
    with pytest.raises(RuntimeError):
        vector_to_parameters(ember.zeros(5), [p, q])
