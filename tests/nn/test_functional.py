"""ember.nn.functional (and the layers over it) against NumPy: linear, bilinear, the activations
(and their in-place forms), glu, prelu, softmax family with the implicit dim, dropout variants
(statistics with a fixed seed), one_hot, normalize, cosine_similarity, pairwise_distance."""
import math

import numpy as np
import pytest
from scipy.special import erf, expit, log_softmax as np_log_softmax, softmax as np_softmax

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

RNG = np.random.default_rng(7)


def T(a, dtype=ember.float64, requires_grad=False):
    return ember.tensor(np.asarray(a), dtype=dtype, requires_grad=requires_grad)


def npy(t):
    return np.array(t.detach().numpy(), copy=True)


# ---- linear / bilinear --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3,), (5, 3), (2, 4, 3), (2, 1, 2, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear(shape, bias):
    x, w, b = RNG.standard_normal(shape), RNG.standard_normal((4, 3)), RNG.standard_normal(4)
    out = F.linear(T(x), T(w), T(b) if bias else None)
    ref = x @ w.T + (b if bias else 0)
    assert tuple(out.shape) == shape[:-1] + (4,)
    np.testing.assert_allclose(npy(out), ref, rtol=1e-12)
    assert gradcheck(lambda a, ww, bb: F.linear(a, ww, bb),
                     (T(x, requires_grad=True), T(w, requires_grad=True), T(b, requires_grad=bias)))


def test_linear_1d_weight():
    x, w = RNG.standard_normal((5, 3)), RNG.standard_normal(3)
    np.testing.assert_allclose(npy(F.linear(T(x), T(w))), x @ w, rtol=1e-12)


def test_linear_shape_mismatch_message():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        F.linear(T(np.ones((2, 3))), T(np.ones((5, 4))))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x3 and 4x5\)"):
        F.linear(T(np.ones((2, 3, 3))), T(np.ones((5, 4))))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        nn.Linear(4, 5)(ember.ones(2, 3))


def test_linear_module():
    ember.manual_seed(3)
    lin = nn.Linear(3, 4)
    assert lin.weight.shape == (4, 3) and lin.bias.shape == (4,)
    x = ember.randn(7, 3)
    ref = npy(x) @ npy(lin.weight).T + npy(lin.bias)
    np.testing.assert_allclose(npy(lin(x)), ref, rtol=1e-5, atol=1e-6)
    nb = nn.Linear(3, 4, bias=False, dtype=ember.float64)
    assert nb.bias is None and nb.weight.dtype == ember.float64
    assert [n for n, _ in nb.named_parameters()] == ["weight"]
    lazy = nn.LazyLinear(2)
    out = lazy(ember.randn(5, 6))
    assert out.shape == (5, 2) and lazy.weight.shape == (2, 6) and lazy.in_features == 6
    assert isinstance(lazy, nn.Linear)


def test_bilinear():
    x1, x2 = RNG.standard_normal((5, 2)), RNG.standard_normal((5, 3))
    w, b = RNG.standard_normal((4, 2, 3)), RNG.standard_normal(4)
    ref = np.einsum("ni,oij,nj->no", x1, w, x2) + b
    np.testing.assert_allclose(npy(F.bilinear(T(x1), T(x2), T(w), T(b))), ref, rtol=1e-12)
    np.testing.assert_allclose(npy(F.bilinear(T(x1), T(x2), T(w))), ref - b, rtol=1e-12)
    # extra batch dims
    y1, y2 = RNG.standard_normal((2, 5, 2)), RNG.standard_normal((2, 5, 3))
    np.testing.assert_allclose(npy(F.bilinear(T(y1), T(y2), T(w), T(b))),
                               np.einsum("bni,oij,bnj->bno", y1, w, y2) + b, rtol=1e-12)
    assert gradcheck(F.bilinear, tuple(T(a, requires_grad=True) for a in (x1, x2, w, b)))
    with pytest.raises(RuntimeError):
        F.bilinear(T(x1), T(x2), T(w[:, :, :2]))
    m = nn.Bilinear(2, 3, 4)
    assert m.weight.shape == (4, 2, 3) and m(ember.randn(5, 2), ember.randn(5, 3)).shape == (5, 4)
    bound = 1 / math.sqrt(2)
    assert np.abs(npy(m.weight)).max() <= bound and np.abs(npy(m.bias)).max() <= bound


# ---- activations --------------------------------------------------------------------------------
SA, SS = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def np_softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def relu6(x):
    return np.clip(x, 0, 6)


ACTIVATIONS = [
    # (name, module, functional, reference)
    ("relu", nn.ReLU(), F.relu, lambda x: np.maximum(x, 0)),
    ("relu6", nn.ReLU6(), F.relu6, relu6),
    ("leaky_relu", nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    ("elu", nn.ELU(0.7), lambda x: F.elu(x, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    ("selu", nn.SELU(), F.selu, lambda x: SS * np.where(x > 0, x, SA * np.expm1(x))),
    ("celu", nn.CELU(1.5), lambda x: F.celu(x, 1.5),
     lambda x: np.maximum(x, 0) + np.minimum(0, 1.5 * np.expm1(x / 1.5))),
    ("gelu", nn.GELU(), F.gelu, lambda x: x * 0.5 * (1 + erf(x / np.sqrt(2)))),
    ("gelu_tanh", nn.GELU("tanh"), lambda x: F.gelu(x, approximate="tanh"),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ("silu", nn.SiLU(), F.silu, lambda x: x * expit(x)),
    ("mish", nn.Mish(), F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    ("softplus", nn.Softplus(2.0, 3.0), lambda x: F.softplus(x, 2.0, 3.0), lambda x: np_softplus(x, 2.0, 3.0)),
    ("softsign", nn.Softsign(), F.softsign, lambda x: x / (1 + np.abs(x))),
    ("hardtanh", nn.Hardtanh(-0.5, 1.5), lambda x: F.hardtanh(x, -0.5, 1.5), lambda x: np.clip(x, -0.5, 1.5)),
    ("hardsigmoid", nn.Hardsigmoid(), F.hardsigmoid, lambda x: relu6(x + 3) / 6),
    ("hardswish", nn.Hardswish(), F.hardswish, lambda x: x * relu6(x + 3) / 6),
    ("logsigmoid", nn.LogSigmoid(), F.logsigmoid, lambda x: -np.log1p(np.exp(-x))),
    ("tanhshrink", nn.Tanhshrink(), F.tanhshrink, lambda x: x - np.tanh(x)),
    ("threshold", nn.Threshold(0.3, -2.0), lambda x: F.threshold(x, 0.3, -2.0), lambda x: np.where(x > 0.3, x, -2.0)),
    ("softshrink", nn.Softshrink(0.4), lambda x: F.softshrink(x, 0.4),
     lambda x: np.where(x > 0.4, x - 0.4, np.where(x < -0.4, x + 0.4, 0))),
    ("hardshrink", nn.Hardshrink(0.4), lambda x: F.hardshrink(x, 0.4), lambda x: np.where(np.abs(x) > 0.4, x, 0)),
    ("sigmoid", nn.Sigmoid(), F.sigmoid, expit),
    ("tanh", nn.Tanh(), F.tanh, np.tanh),
    ("rrelu_eval", nn.RReLU(0.1, 0.3).eval(), lambda x: F.rrelu(x, 0.1, 0.3), lambda x: np.where(x >= 0, x, 0.2 * x)),
]
X_ACT = np.concatenate([np.linspace(-5, 5, 41), [-0.3001, 0.2999, 10.0, -10.0]]).reshape(5, 9)


@pytest.mark.parametrize("name, module, fn, ref", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation(name, module, fn, ref):
    expected = ref(X_ACT)
    np.testing.assert_allclose(npy(fn(T(X_ACT))), expected, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(npy(module(T(X_ACT))), expected, rtol=1e-7, atol=1e-12)
    f32 = module(T(X_ACT, ember.float32))
    assert f32.dtype == ember.float32
    np.testing.assert_allclose(npy(f32), expected, rtol=2e-5, atol=2e-6)


INPLACE = [
    ("relu", lambda x: F.relu(x, inplace=True), lambda x: np.maximum(x, 0)),
    ("relu_", F.relu_, lambda x: np.maximum(x, 0)),
    ("relu6", lambda x: nn.ReLU6(inplace=True)(x), relu6),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.1, inplace=True), lambda x: np.where(x > 0, x, 0.1 * x)),
    ("leaky_relu_", lambda x: F.leaky_relu_(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    ("elu", lambda x: nn.ELU(inplace=True)(x), lambda x: np.where(x > 0, x, np.expm1(x))),
    ("elu_", F.elu_, lambda x: np.where(x > 0, x, np.expm1(x))),
    ("selu", lambda x: F.selu(x, inplace=True), lambda x: SS * np.where(x > 0, x, SA * np.expm1(x))),
    ("selu_", F.selu_, lambda x: SS * np.where(x > 0, x, SA * np.expm1(x))),
    ("celu", lambda x: F.celu(x, 2.0, inplace=True), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * np.expm1(x / 2))),
    ("silu", lambda x: nn.SiLU(inplace=True)(x), lambda x: x * expit(x)),
    ("mish", lambda x: F.mish(x, inplace=True), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    ("hardtanh_", F.hardtanh_, lambda x: np.clip(x, -1, 1)),
    ("hardsigmoid", lambda x: F.hardsigmoid(x, inplace=True), lambda x: relu6(x + 3) / 6),
    ("hardswish", lambda x: F.hardswish(x, inplace=True), lambda x: x * relu6(x + 3) / 6),
    ("threshold_", lambda x: F.threshold_(x, 0.5, 9.0), lambda x: np.where(x > 0.5, x, 9.0)),
]


@pytest.mark.parametrize("name, fn, ref", INPLACE, ids=[a[0] for a in INPLACE])
def test_activation_inplace(name, fn, ref):
    x = T(X_ACT)
    out = fn(x)
    np.testing.assert_allclose(npy(x), ref(X_ACT), rtol=1e-7, atol=1e-12)  # x itself changed
    np.testing.assert_allclose(npy(out), ref(X_ACT), rtol=1e-7, atol=1e-12)


def test_activation_gradients():
    x = T(X_ACT[:, :4] + 0.013, requires_grad=True)  # away from the kinks
    for fn in (F.elu, F.selu, lambda t: F.celu(t, 0.5), F.gelu, F.silu, F.mish, F.softplus, F.logsigmoid,
               lambda t: F.leaky_relu(t, 0.3), F.hardswish, F.softsign):
        assert gradcheck(fn, (x,))


def test_activation_errors():
    with pytest.raises(ValueError):
        F.hardtanh(T([1.0]), 2.0, 1.0)
    with pytest.raises(ValueError):
        nn.Hardtanh(2.0, 1.0)
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):  # PyTorch's kernel check
        F.celu(T([1.0]), alpha=0.0)


def test_rrelu_training_slopes_in_range():
    ember.manual_seed(0)
    x = -ember.ones(10000, dtype=ember.float64)
    out = npy(F.rrelu(x, 0.1, 0.3, training=True))
    slopes = -out
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005
    np.testing.assert_array_equal(npy(F.rrelu(T([2.0, 0.0]), training=True)), [2.0, 0.0])


# ---- glu / prelu --------------------------------------------------------------------------------
def test_glu():
    x = RNG.standard_normal((3, 6, 2))
    np.testing.assert_allclose(npy(F.glu(T(x))), x[..., :1] * expit(x[..., 1:]), rtol=1e-12)
    np.testing.assert_allclose(npy(F.glu(T(x), dim=1)), x[:, :3] * expit(x[:, 3:]), rtol=1e-12)
    np.testing.assert_allclose(npy(nn.GLU(1)(T(x))), x[:, :3] * expit(x[:, 3:]), rtol=1e-12)
    assert gradcheck(lambda t: F.glu(t, 1), (T(x, requires_grad=True),))
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is size 3"):
        F.glu(T(x), dim=0)
    with pytest.raises(RuntimeError):
        F.glu(T(1.0))


def test_prelu():
    x = RNG.standard_normal((2, 3, 4, 5))
    w = np.array([0.1, -0.5, 2.0])
    ref = np.where(x > 0, x, w.reshape(1, 3, 1, 1) * x)
    np.testing.assert_allclose(npy(F.prelu(T(x), T(w))), ref, rtol=1e-12)
    np.testing.assert_allclose(npy(F.prelu(T(x), T([0.3]))), np.where(x > 0, x, 0.3 * x), rtol=1e-12)
    x2 = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(npy(F.prelu(T(x2), T(w))), np.where(x2 > 0, x2, w * x2), rtol=1e-12)
    assert gradcheck(F.prelu, (T(x, requires_grad=True), T(w, requires_grad=True)))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(T(x), T([0.1, 0.2]))
    m = nn.PReLU(3, init=0.1)
    np.testing.assert_array_equal(npy(m.weight), np.full(3, 0.1, np.float32))
    x32 = T(x, ember.float32)
    np.testing.assert_allclose(npy(m(x32)), np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    assert nn.PReLU().weight.shape == (1,) and float(npy(nn.PReLU().weight)[0]) == 0.25


# ---- softmax family -----------------------------------------------------------------------------
@pytest.mark.parametrize("ndim, implicit", [(0, 0), (1, 0), (2, 1), (3, 0), (4, 1)])
def test_softmax_implicit_dim(ndim, implicit):
    x = RNG.standard_normal((2, 3, 4, 5)[:ndim])
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(T(x))
    np.testing.assert_allclose(npy(out), np_softmax(x, axis=implicit if ndim else None), rtol=1e-12)
    with pytest.warns(UserWarning, match="log_softmax"):
        out = F.log_softmax(T(x))
    if ndim:
        np.testing.assert_allclose(npy(out), np_log_softmax(x, axis=implicit), rtol=1e-12, atol=1e-14)
    with pytest.warns(UserWarning, match="softmin"):
        out = F.softmin(T(x))
    np.testing.assert_allclose(npy(out), np_softmax(-x, axis=implicit if ndim else None), rtol=1e-12)
    with pytest.warns(UserWarning):
        nn.Softmax()(T(x))


def test_softmax_explicit_dim_and_dtype():
    x = RNG.standard_normal((3, 4, 5))
    for dim in (0, 1, 2, -1):
        np.testing.assert_allclose(npy(F.softmax(T(x), dim)), np_softmax(x, axis=dim), rtol=1e-12)
        np.testing.assert_allclose(npy(F.log_softmax(T(x), dim)), np_log_softmax(x, axis=dim), rtol=1e-12)
        np.testing.assert_allclose(npy(F.softmin(T(x), dim)), np_softmax(-x, axis=dim), rtol=1e-12)
        np.testing.assert_allclose(npy(nn.LogSoftmax(dim)(T(x))), np_log_softmax(x, axis=dim), rtol=1e-12)
        np.testing.assert_allclose(npy(nn.Softmin(dim)(T(x))), np_softmax(-x, axis=dim), rtol=1e-12)
    out = F.softmax(T(x, ember.float32), 1, dtype=ember.float64)
    assert out.dtype == ember.float64
    out = F.softmin(T(x, ember.float32), 1, dtype=ember.float64)
    assert out.dtype == ember.float64


# ---- dropout ------------------------------------------------------------------------------------
def test_dropout_identity_cases():
    x = ember.randn(50, 20)
    np.testing.assert_array_equal(npy(F.dropout(x, 0.0)), npy(x))
    np.testing.assert_array_equal(npy(F.dropout(x, 0.7, training=False)), npy(x))
    np.testing.assert_array_equal(npy(F.dropout(x, 1.0)), np.zeros((50, 20), np.float32))
    d = nn.Dropout(0.5).eval()
    np.testing.assert_array_equal(npy(d(x)), npy(x))
    for fn in (F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            fn(ember.ones(2, 2, 2, 2), -0.1)
        with pytest.raises(ValueError):
            fn(ember.ones(2, 2, 2, 2), 1.5)
    with pytest.raises(ValueError):
        nn.Dropout(p=1.2)


def test_dropout_statistics_fixed_seed():
    ember.manual_seed(1234)
    n, p = 200_000, 0.3
    out = npy(F.dropout(ember.ones(n), p))
    zero = out == 0
    assert abs(zero.mean() - p) < 0.005
    np.testing.assert_allclose(out[~zero], 1 / (1 - p), rtol=1e-6)
    assert abs(out.mean() - 1.0) < 0.01  # the mean is preserved
    # the same seed gives the same mask; the module in training mode draws too
    ember.manual_seed(1234)
    np.testing.assert_array_equal(npy(F.dropout(ember.ones(n), p)), out)
    ember.manual_seed(1234)
    np.testing.assert_array_equal(npy(nn.Dropout(p)(ember.ones(n))), out)


def test_dropout_inplace_and_gradient():
    ember.manual_seed(5)
    x = ember.ones(1000)
    out = F.dropout(x, 0.5, inplace=True)
    np.testing.assert_array_equal(npy(x), npy(out))
    assert set(np.unique(npy(x))) == {0.0, 2.0}
    ember.manual_seed(6)
    leaf = ember.full((1000,), 3.0, requires_grad=True)
    y = F.dropout(leaf, 0.25)
    y.sum().backward()
    np.testing.assert_allclose(npy(leaf.grad), npy(y) / 3.0, rtol=1e-6)  # mask / (1 - p)


def _channels_constant(out, nd):
    """Each channel (the trailing nd dims) entirely 0 or entirely 1/(1-p); returns the zero fraction."""
    flat = out.reshape(-1, int(np.prod(out.shape[-nd:])))
    assert np.all(flat == flat[:, :1])
    return float((flat[:, 0] == 0).mean())


def test_dropout2d_zeroes_whole_channels():
    ember.manual_seed(11)
    out = npy(F.dropout2d(ember.ones(8, 32, 3, 3), 0.5))
    frac = _channels_constant(out, 2)
    assert 0.35 < frac < 0.65
    assert set(np.unique(out)) == {0.0, 2.0}
    # unbatched (C, H, W)... is read as (N, C, L) by PyTorch's dropout2d, with a warning
    ember.manual_seed(12)
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        out3 = npy(F.dropout2d(ember.ones(16, 8, 5), 0.5))
    _channels_constant(out3, 1)
    assert len(np.unique(out3[:, :, 0].reshape(-1))) == 2  # (N, C) entries differ: not one mask per n
    np.testing.assert_array_equal(npy(nn.Dropout2d(0.5).eval()(ember.ones(2, 3, 4, 4))), np.ones((2, 3, 4, 4)))
    with pytest.warns(UserWarning, match="Received a 5-D input to dropout2d"):  # PyTorch 2.13 warns, then runs
        F.dropout2d(ember.ones(2, 3, 4, 5, 6), 0.5)


def test_dropout1d_and_3d_channels():
    ember.manual_seed(13)
    out = npy(F.dropout1d(ember.ones(8, 16, 7), 0.4))
    assert 0.2 < _channels_constant(out, 1) < 0.6
    out = npy(F.dropout1d(ember.ones(16, 7), 0.4))  # unbatched (C, L)
    _channels_constant(out, 1)
    out = npy(F.dropout3d(ember.ones(4, 16, 2, 3, 2), 0.5))
    assert 0.3 < _channels_constant(out, 3) < 0.7
    out = npy(F.dropout3d(ember.ones(16, 2, 3, 2), 0.5))  # unbatched (C, D, H, W)
    _channels_constant(out, 3)
    np.testing.assert_array_equal(npy(F.dropout3d(ember.ones(4, 16, 2, 3, 2), 1.0)), np.zeros((4, 16, 2, 3, 2)))
    with pytest.raises(RuntimeError):
        F.dropout1d(ember.ones(2, 3, 4, 5), 0.5)


def test_alpha_dropout():
    alpha = SA * SS
    p = 0.2
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    ember.manual_seed(21)
    x = np.asarray(RNG.standard_normal(100_000))
    out = npy(F.alpha_dropout(T(x), p, training=True))
    kept = np.isclose(out, x * a + alpha * a * p, rtol=1e-12, atol=1e-12)
    dropped = np.isclose(out, -alpha * a + alpha * a * p, rtol=1e-12, atol=1e-12)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - p) < 0.01
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02  # self-normalizing
    np.testing.assert_array_equal(npy(F.alpha_dropout(T(x), p)), x)  # training=False by default
    np.testing.assert_array_equal(npy(nn.AlphaDropout(p).eval()(T(x))), x)
    ember.manual_seed(22)
    fa = npy(F.feature_alpha_dropout(T(np.zeros((10, 20, 3))), 0.5, training=True))
    assert np.all(fa == fa[:, :, :1])  # one draw per channel


# ---- one_hot / normalize / distances ------------------------------------------------------------
def test_one_hot():
    idx = np.array([[0, 2], [1, 4]])
    out = F.one_hot(T(idx, ember.int64))
    assert out.dtype == ember.int64 and out.shape == (2, 2, 5)
    np.testing.assert_array_equal(npy(out), np.eye(5, dtype=np.int64)[idx])
    np.testing.assert_array_equal(npy(F.one_hot(T(idx, ember.int64), num_classes=7)), np.eye(7, dtype=np.int64)[idx])
    np.testing.assert_array_equal(npy(F.one_hot(T(3, ember.int64), 4)), [0, 0, 0, 1])
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(T(idx, ember.int64), num_classes=3)
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(T([-1, 0], ember.int64), 3)
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(T([0.0, 1.0]))


@pytest.mark.parametrize("p, dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize(p, dim):
    x = RNG.standard_normal((4, 5, 3))
    x[1, :, :] = 0.0  # a zero slice along several dims stays zero (eps)
    n = np.linalg.norm(x, ord=p, axis=dim, keepdims=True) if p != float("inf") else \
        np.abs(x).max(axis=dim, keepdims=True)
    ref = x / np.maximum(n, 1e-12)
    out = F.normalize(T(x), p=p, dim=dim)
    np.testing.assert_allclose(npy(out), ref, rtol=1e-12, atol=1e-15)
    assert not np.isnan(npy(out)).any()


def test_normalize_grad_and_out():
    x = RNG.standard_normal((3, 4))
    assert gradcheck(lambda t: F.normalize(t, dim=1), (T(x, requires_grad=True),))
    buf = T(np.zeros((3, 4)))
    F.normalize(T(x), out=buf)
    np.testing.assert_allclose(npy(buf), x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-12)


def np_cos(a, b, axis, eps=1e-8):
    a, b = np.broadcast_arrays(a, b)
    na = np.maximum(np.linalg.norm(a, axis=axis), eps)
    nb = np.maximum(np.linalg.norm(b, axis=axis), eps)
    return (a * b).sum(axis) / (na * nb)


def test_cosine_similarity():
    a, b = RNG.standard_normal((6, 4)), RNG.standard_normal((6, 4))
    np.testing.assert_allclose(npy(F.cosine_similarity(T(a), T(b))), np_cos(a, b, 1), rtol=1e-12)
    np.testing.assert_allclose(npy(F.cosine_similarity(T(a), T(b), dim=0)), np_cos(a, b, 0), rtol=1e-12)
    np.testing.assert_allclose(npy(F.cosine_similarity(T(a[0]), T(b[0]), dim=0)), np_cos(a[0], b[0], 0), rtol=1e-12)
    # broadcasting, including along the reduced dim
    np.testing.assert_allclose(npy(F.cosine_similarity(T(a[:1]), T(b))), np_cos(a[:1], b, 1), rtol=1e-12)
    c = RNG.standard_normal((6, 1))
    np.testing.assert_allclose(npy(F.cosine_similarity(T(c), T(b))), np_cos(c, b, 1), rtol=1e-12)
    # a zero vector: 0, not nan
    z = a.copy()
    z[2] = 0
    out = npy(F.cosine_similarity(T(z), T(b)))
    assert out[2] == 0 and not np.isnan(out).any()
    np.testing.assert_allclose(out, np_cos(z, b, 1), rtol=1e-12)
    assert gradcheck(F.cosine_similarity, (T(a, requires_grad=True), T(b, requires_grad=True)))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_pairwise_distance(p):
    a, b = RNG.standard_normal((5, 4)), RNG.standard_normal((5, 4))

    def ref(x, y, keepdims=False):
        d = x - y + 1e-6
        return np.linalg.norm(d, ord=p, axis=-1, keepdims=keepdims) if d.ndim else np.abs(d)

    np.testing.assert_allclose(npy(F.pairwise_distance(T(a), T(b), p=p)), ref(a, b), rtol=1e-12)
    out = F.pairwise_distance(T(a), T(b), p=p, keepdim=True)
    assert out.shape == (5, 1)
    np.testing.assert_allclose(npy(out), ref(a, b, True), rtol=1e-12)
    np.testing.assert_allclose(npy(F.pairwise_distance(T(a[0]), T(b[0]), p=p)), ref(a[0], b[0]), rtol=1e-12)
    np.testing.assert_allclose(npy(F.pairwise_distance(T(a[:1]), T(b), p=p)), ref(a[:1], b), rtol=1e-12)
    if p != float("inf"):
        assert gradcheck(lambda x, y: F.pairwise_distance(x, y, p=p), (T(a, requires_grad=True), T(b)))


def test_flatten_unflatten_identity():
    x = ember.randn(2, 3, 4, 5)
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 2)(x).shape == (24, 5)
    np.testing.assert_array_equal(npy(nn.Flatten()(x)), npy(x).reshape(2, 60))
    assert nn.Unflatten(1, (3, 20))(nn.Flatten()(x)).shape == (2, 3, 20)
    assert nn.Identity(54, unused="x")(x) is x
    with pytest.raises(TypeError):
        nn.Unflatten(1, 3)
