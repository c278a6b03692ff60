"""PyTorch's top-level forms of nn.functional's ops (ember.conv2d, ember.dropout(input, p, train),
ember.batch_norm(input, weight, bias, running_mean, running_var, ...), ember.pdist...), checked against
nn.functional with the argument mapping PyTorch's native signatures have, or against NumPy."""
import itertools

import numpy as np
import pytest

import ember
import ember.nn.functional as F

SAME = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "avg_pool1d",
        "adaptive_avg_pool1d", "bilinear", "cosine_similarity", "pairwise_distance", "prelu", "pixel_shuffle",
        "pixel_unshuffle", "rms_norm"]


@pytest.mark.parametrize("name", SAME)
def test_same_callable_as_nn_functional(name):
    assert getattr(ember, name) is getattr(F, name)


def _rand(*shape, seed=0):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape))


def test_pools_take_the_native_defaults():
    x = _rand(2, 3, 9)
    assert ember.max_pool1d(x, 3).tolist() == F.max_pool1d(x, 3).tolist()
    values, indices = ember.max_pool1d_with_indices(x, 2, [], 1)
    ref_v, ref_i = F.max_pool1d(x, 2, None, 1, return_indices=True)
    assert values.tolist() == ref_v.tolist() and indices.tolist() == ref_i.tolist()
    x2 = _rand(1, 2, 6, 6)
    assert ember.max_pool2d(x2, 2, 1, 0, 1, True).tolist() == F.max_pool2d(x2, 2, 1, 0, 1, True).tolist()
    x3 = _rand(1, 1, 4, 4, 4)
    assert ember.max_pool3d(x3, 2).tolist() == F.max_pool3d(x3, 2).tolist()
    v, i = ember.adaptive_max_pool1d(x, 4)
    rv, ri = F.adaptive_max_pool1d(x, 4, return_indices=True)
    assert v.tolist() == rv.tolist() and i.tolist() == ri.tolist()


def test_norms_with_native_argument_order():
    x = _rand(4, 3, 5)
    w, b = _rand(3, seed=1), _rand(3, seed=2)
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    out = ember.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5, True)
    mean = np.zeros(3)
    ref = (x.numpy() - mean[:, None]) / np.sqrt(1 + 1e-5) * w.numpy()[:, None] + b.numpy()[:, None]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10)
    out = ember.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False)
    xn = x.numpy()
    ref = (xn - xn.mean(-1, keepdims=True)) / np.sqrt(xn.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.numpy(), ref * w.numpy()[:, None] + b.numpy()[:, None], rtol=1e-9, atol=1e-12)
    out = ember.layer_norm(x, [5], None, None, 1e-5, True)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-9, atol=1e-12)
    g = ember.group_norm(x, 3, None, None, 1e-5, True)
    np.testing.assert_allclose(g.numpy(), ref, rtol=1e-9, atol=1e-12)


def test_dropout_family_positional_train():
    x = ember.ones(50, 40)
    assert ember.dropout(x, 0.3, False) is x
    ember.manual_seed(0)
    y = ember.dropout(x, 0.5, True)
    assert set(np.unique(y.numpy())) <= {0.0, 2.0}
    z = ember.ones(10)
    assert ember.dropout_(z, 1.0, True) is z and z.tolist() == [0.0] * 10
    assert ember.alpha_dropout(x, 0.5, False) is x
    a = ember.ones(6, 6)
    assert ember.alpha_dropout_(a, 0.0, True) is a
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        ember.dropout(x, 1.5, True)
    with pytest.raises(TypeError):
        ember.dropout(x, 0.5)  # train is required, as in PyTorch's native signature


def test_feature_dropout_zeroes_whole_channels():
    ember.manual_seed(1)
    x = ember.ones(8, 6, 5)
    y = ember.feature_dropout(x, 0.5, True).numpy()
    per_channel = y.reshape(8, 6, 5)
    assert all(len(set(c.ravel())) == 1 and c.ravel()[0] in (0.0, 2.0) for row in per_channel for c in row)
    assert ember.feature_alpha_dropout(x, 0.5, False) is x
    z = ember.ones(3, 4)
    assert ember.feature_dropout_(z, 1.0, True) is z and z.sum().item() == 0
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        ember.feature_dropout(ember.ones(3), 0.5, True)


def test_embedding_weight_first_and_renorm():
    w = _rand(5, 3)
    idx = ember.tensor([[0, 4], [2, 2]])
    np.testing.assert_array_equal(ember.embedding(w, idx).numpy(), w.numpy()[idx.numpy()])
    w = ember.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    assert ember.embedding_renorm_(w, ember.tensor([0, 1, 0]), 1.0, 2.0) is w
    np.testing.assert_allclose(w.numpy(), [[3 / (5 + 1e-7), 4 / (5 + 1e-7)], [0.3, 0.4], [6.0, 8.0]], rtol=1e-6)


def test_selu_rrelu():
    x = ember.tensor([-1.0, 2.0])
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    np.testing.assert_allclose(ember.selu(x).numpy(), [scale * alpha * (np.exp(-1) - 1), 2 * scale])
    y = x.clone()
    assert ember.selu_(y) is y
    np.testing.assert_allclose(ember.rrelu(x).numpy(), [-(1 / 8 + 1 / 3) / 2, 2.0])
    g = ember.Generator().manual_seed(3)
    out = ember.rrelu(ember.full([100], -1.0), 0.1, 0.3, True, g)
    assert ((out <= -0.1) & (out >= -0.3)).all()
    z = ember.tensor([-2.0])
    assert ember.rrelu_(z, 0.5, 0.5) is z and z.tolist() == [-1.0]


def test_constant_pad_conv_tbc_channel_shuffle():
    x = ember.tensor([[1.0, 2.0]])
    assert ember.constant_pad_nd(x, [1, 2], 9.0).tolist() == [[9.0, 1.0, 2.0, 9.0, 9.0]]
    rng = np.random.default_rng(0)
    inp, wt, bias = rng.standard_normal((6, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    out = ember.conv_tbc(ember.tensor(inp), ember.tensor(wt), ember.tensor(bias), 1).numpy()
    padded = np.pad(inp, ((1, 1), (0, 0), (0, 0)))
    ref = np.stack([sum(padded[t + k] @ wt[k] for k in range(3)) + bias for t in range(6)])
    np.testing.assert_allclose(out, ref, rtol=1e-10)
    with pytest.raises(RuntimeError, match=r"Bias size must equal dim 2 in the weight tensor \(output channels\)."):
        ember.conv_tbc(ember.tensor(inp), ember.tensor(wt), ember.zeros(3), 1)
    c = ember.arange(6.0).reshape(1, 6, 1)
    assert ember.channel_shuffle(c, 2).flatten().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got 6 channels and 4"):
        ember.channel_shuffle(c, 4)
    with pytest.raises(RuntimeError, match="channel_shuffle expects input with > 2 dims"):
        ember.channel_shuffle(ember.ones(5), 1)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.5, float("inf")])
def test_pdist_against_numpy(p):
    x = np.random.default_rng(2).standard_normal((5, 3))
    ref = [np.linalg.norm(x[i] - x[j], ord=p) if p != 0 else np.count_nonzero(x[i] - x[j])
           for i, j in itertools.combinations(range(5), 2)]
    np.testing.assert_allclose(ember.pdist(ember.tensor(x), p).numpy(), ref, rtol=1e-10)


def test_pdist_gradient_and_errors():
    x = ember.tensor(np.random.default_rng(3).standard_normal((4, 2)), requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.pdist(t), (x,))
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        ember.pdist(ember.ones(3))
    with pytest.raises(RuntimeError, match="pdist only supports non-negative p values"):
        ember.pdist(ember.ones(3, 2), -1)
    assert ember.pdist(ember.ones(1, 2)).shape == (0,)


def test_cdist_compute_mode_none_and_rsub():
    a, b = _rand(3, 2), _rand(4, 2, seed=1)
    ref = np.linalg.norm(a.numpy()[:, None] - b.numpy()[None], axis=-1)
    np.testing.assert_allclose(ember.cdist(a, b).numpy(), ref, rtol=1e-10)
    assert ember.rsub(ember.tensor([1.0, 2.0]), 10, alpha=2).tolist() == [8.0, 6.0]
    assert ember.rsub(ember.tensor([1, 2]), ember.tensor([5, 5])).tolist() == [4, 3]


REDUCTION = {0: "none", 1: "mean", 2: "sum"}


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses_take_reduction_as_an_int(reduction):
    r = REDUCTION[reduction]
    x, y = _rand(4, 3), _rand(4, 3, seed=1)
    t = ember.tensor([1.0, -1.0, 1.0, -1.0])
    pairs = [
        (ember.binary_cross_entropy_with_logits(x, y.sigmoid(), None, None, reduction),
         F.binary_cross_entropy_with_logits(x, y.sigmoid(), reduction=r)),
        (ember.cosine_embedding_loss(x, y, t, 0.1, reduction), F.cosine_embedding_loss(x, y, t, 0.1, reduction=r)),
        (ember.hinge_embedding_loss(x, x.sign(), 1.0, reduction), F.hinge_embedding_loss(x, x.sign(), reduction=r)),
        (ember.kl_div(x, y, reduction, log_target=True), F.kl_div(x, y, reduction=r, log_target=True)),
        (ember.margin_ranking_loss(x[:, 0], y[:, 0], t, 0.2, reduction),
         F.margin_ranking_loss(x[:, 0], y[:, 0], t, 0.2, reduction=r)),
        (ember.poisson_nll_loss(x, y.abs(), True, False, 1e-8, reduction), F.poisson_nll_loss(x, y.abs(), reduction=r)),
        (ember.triplet_margin_loss(x, y, x * 2, 1.0, 2, 1e-6, False, reduction),
         F.triplet_margin_loss(x, y, x * 2, reduction=r)),
    ]
    for got, ref in pairs:
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-12)


def test_loss_reduction_must_be_an_int():
    x = _rand(2, 2)
    with pytest.raises(TypeError, match=r"kl_div\(\): argument 'reduction' must be int, not str"):
        ember.kl_div(x, x, reduction="mean")


def test_ctc_loss_native_form():
    rng = np.random.default_rng(4)
    log_probs = ember.tensor(rng.standard_normal((6, 2, 4))).log_softmax(2)
    targets = ember.tensor([[1, 2], [3, 3]])
    il, tl = [6, 5], [2, 2]
    for reduction in (0, 1, 2):
        got = ember.ctc_loss(log_probs, targets, il, tl, 0, reduction, False)
        ref = F.ctc_loss(log_probs, targets, ember.tensor(il), ember.tensor(tl), 0, REDUCTION[reduction], False)
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-12)
