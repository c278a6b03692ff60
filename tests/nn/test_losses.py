"""The losses of ember.nn.functional (and their layers) against NumPy references written from
PyTorch's documented formulas: every reduction, class weights, ignore_index, label smoothing,
probability targets, unbatched and (N, C, d1, d2) inputs; gradcheck in float64; bad inputs."""
import numpy as np
import pytest
from scipy.special import expit, log_softmax, xlogy

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

REDUCTIONS = ["none", "mean", "sum"]


def T(a, dtype=ember.float64, requires_grad=False):
    return ember.tensor(np.asarray(a), dtype=dtype, requires_grad=requires_grad)


def npy(t):
    return np.array(t.detach().numpy(), copy=True)


def reduce_np(loss, reduction):
    return {"none": loss, "mean": np.mean(loss), "sum": np.sum(loss)}[reduction]


def check(out, ref, rtol=1e-10, atol=1e-12):
    out = npy(out)
    assert out.shape == np.shape(ref), (out.shape, np.shape(ref))
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)


# ---- references ---------------------------------------------------------------------------------
def ref_nll_from_logp(logp, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Class-index targets, logp (N, C, d...) or (C,). PyTorch: l = -w[y] logp[y]; "mean" divides by
    the sum of w[y] over non-ignored targets; label smoothing mixes in eps/C * -sum_c w_c logp_c."""
    logp, target = np.asarray(logp, np.float64), np.asarray(target)
    unbatched = logp.ndim == 1
    if unbatched:
        logp, target = logp[None], target[None]
    C = logp.shape[1]
    lp = np.moveaxis(logp, 1, -1).reshape(-1, C)
    t = target.reshape(-1)
    w = np.ones(C) if weight is None else np.asarray(weight, np.float64)
    valid = t != ignore_index
    tt = np.where(valid, t, 0)
    wy = w[tt] * valid
    nll = -lp[np.arange(len(tt)), tt] * wy
    smooth = -(lp * w).sum(-1) * valid
    loss = (1 - label_smoothing) * nll + label_smoothing / C * smooth
    if reduction == "none":
        return loss.reshape(target.shape)[0] if unbatched else loss.reshape(target.shape)
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wy.sum()


def ref_cross_entropy(x, target, **kw):
    x = np.asarray(x, np.float64)
    return ref_nll_from_logp(log_softmax(x, axis=1 if x.ndim >= 2 else 0), target, **kw)


def ref_cross_entropy_probs(x, probs, weight=None, reduction="mean", label_smoothing=0.0):
    """Probability targets: l = -sum_c w_c y_c logp_c; "mean" divides by the number of
    distributions (numel / C), the weights not entering the denominator."""
    x = np.asarray(x, np.float64)
    cdim = 1 if x.ndim >= 2 else 0
    C = x.shape[cdim]
    y = np.asarray(probs, np.float64) * (1 - label_smoothing) + label_smoothing / C
    w = np.ones(C) if weight is None else np.asarray(weight, np.float64)
    wshape = [1] * x.ndim
    wshape[cdim] = C
    loss = -(log_softmax(x, axis=cdim) * y * w.reshape(wshape)).sum(cdim)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / (x.size / C)


# ---- data ---------------------------------------------------------------------------------------
RNG = np.random.default_rng(1234)
X2 = RNG.standard_normal((6, 4))
Y2 = np.array([0, 3, 1, 1, 2, 3])
X4 = RNG.standard_normal((2, 3, 4, 5))
Y4 = RNG.integers(0, 3, (2, 4, 5))
W4 = np.array([0.3, 1.0, 2.5, 0.7])
W3 = np.array([0.5, 2.0, 1.5])


# ---- cross_entropy / nll_loss -------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_2d(reduction, weighted, smoothing):
    w = W4 if weighted else None
    out = F.cross_entropy(T(X2), T(Y2, ember.int64), weight=None if w is None else T(w), reduction=reduction,
                          label_smoothing=smoothing)
    check(out, ref_cross_entropy(X2, Y2, weight=w, reduction=reduction, label_smoothing=smoothing))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_ignore_index(reduction, weighted, smoothing):
    y = Y2.copy()
    y[[1, 4]] = -100
    w = W4 if weighted else None
    out = F.cross_entropy(T(X2), T(y, ember.int64), weight=None if w is None else T(w), reduction=reduction,
                          label_smoothing=smoothing)
    check(out, ref_cross_entropy(X2, y, weight=w, reduction=reduction, label_smoothing=smoothing))
    # a custom ignore_index
    y2 = Y2.copy()
    y2[0] = 7
    out = F.cross_entropy(T(X2), T(y2, ember.int64), ignore_index=7, reduction=reduction)
    check(out, ref_cross_entropy(X2, y2, ignore_index=7, reduction=reduction))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_spatial(reduction, smoothing):
    y = Y4.copy()
    y[0, 1, 2] = -100
    for w in (None, W3):
        out = F.cross_entropy(T(X4), T(y, ember.int64), weight=None if w is None else T(w), reduction=reduction,
                              label_smoothing=smoothing)
        check(out, ref_cross_entropy(X4, y, weight=w, reduction=reduction, label_smoothing=smoothing))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_unbatched(reduction):
    x = RNG.standard_normal(5)
    for smoothing in (0.0, 0.25):
        out = F.cross_entropy(T(x), T(3, ember.int64), reduction=reduction, label_smoothing=smoothing)
        check(out, ref_cross_entropy(x, np.array(3), reduction=reduction, label_smoothing=smoothing))
        w = np.linspace(0.5, 1.5, 5)
        out = F.cross_entropy(T(x), T(1, ember.int64), weight=T(w), reduction=reduction,
                              label_smoothing=smoothing)
        check(out, ref_cross_entropy(x, np.array(1), weight=w, reduction=reduction, label_smoothing=smoothing))
    assert F.cross_entropy(T(x), T(3, ember.int64), reduction="none").shape == ()


def _probs(shape, axis):
    p = RNG.random(shape) + 0.05
    return p / p.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.15])
def test_cross_entropy_probability_targets(reduction, weighted, smoothing):
    p2 = _probs(X2.shape, 1)
    w = W4 if weighted else None
    out = F.cross_entropy(T(X2), T(p2), weight=None if w is None else T(w), reduction=reduction,
                          label_smoothing=smoothing)
    check(out, ref_cross_entropy_probs(X2, p2, weight=w, reduction=reduction, label_smoothing=smoothing))
    # (N, C, d1, d2): "mean" averages over N * d1 * d2 distributions
    p4 = _probs(X4.shape, 1)
    w = W3 if weighted else None
    out = F.cross_entropy(T(X4), T(p4), weight=None if w is None else T(w), reduction=reduction,
                          label_smoothing=smoothing)
    check(out, ref_cross_entropy_probs(X4, p4, weight=w, reduction=reduction, label_smoothing=smoothing))
    # unbatched (C,)
    x1, p1 = RNG.standard_normal(4), _probs((4,), 0)
    out = F.cross_entropy(T(x1), T(p1), reduction=reduction, label_smoothing=smoothing)
    check(out, ref_cross_entropy_probs(x1, p1, reduction=reduction, label_smoothing=smoothing))


def test_cross_entropy_probability_targets_with_nothing_to_average():
    # No classes or no samples: the mean is NaN, as in PyTorch; the sum is 0.
    for x, t in [(ember.randn(3, 0), ember.empty(3, 0)), (ember.randn(0, 4), ember.empty(0, 4))]:
        assert np.isnan(F.cross_entropy(x, t).item())
        assert F.cross_entropy(x, t, reduction="sum").item() == 0.0
        assert tuple(F.cross_entropy(x, t, reduction="none").shape) == (x.shape[0],)


def test_cross_entropy_one_hot_probs_equal_indices():
    onehot = np.eye(4)[Y2]
    check(F.cross_entropy(T(X2), T(onehot)), ref_cross_entropy(X2, Y2))
    a = F.cross_entropy(T(X2), T(onehot), label_smoothing=0.2)
    b = F.cross_entropy(T(X2), T(Y2, ember.int64), label_smoothing=0.2)
    np.testing.assert_allclose(npy(a), npy(b), rtol=1e-12)


def test_cross_entropy_float32():
    x, y = X2.astype(np.float32), Y2
    out = F.cross_entropy(T(x, ember.float32), T(y, ember.int64), weight=T(W4, ember.float32), label_smoothing=0.1)
    assert out.dtype == ember.float32
    np.testing.assert_allclose(npy(out), ref_cross_entropy(x, y, weight=W4, label_smoothing=0.1), rtol=1e-5)


def test_cross_entropy_all_ignored_mean_is_nan():
    y = np.full(6, -100)
    assert np.isnan(npy(F.cross_entropy(T(X2), T(y, ember.int64))))
    assert npy(F.cross_entropy(T(X2), T(y, ember.int64), reduction="sum")) == 0


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    logp = log_softmax(X2, axis=1)
    y = Y2.copy()
    y[2] = -100
    check(F.nll_loss(T(logp), T(y, ember.int64), reduction=reduction), ref_nll_from_logp(logp, y, reduction=reduction))
    check(F.nll_loss(T(logp), T(y, ember.int64), weight=T(W4), reduction=reduction),
          ref_nll_from_logp(logp, y, weight=W4, reduction=reduction))
    # nll_loss takes any input, not only log-probabilities
    check(F.nll_loss(T(X4), T(Y4, ember.int64), weight=T(W3), reduction=reduction),
          ref_nll_from_logp(X4, Y4, weight=W3, reduction=reduction))
    check(F.nll_loss(T(X2[0]), T(2, ember.int64), reduction=reduction),
          ref_nll_from_logp(X2[0], np.array(2), reduction=reduction))


def test_loss_layers_cross_entropy_and_nll():
    ce = nn.CrossEntropyLoss(weight=T(W4), ignore_index=1, label_smoothing=0.05)
    assert list(ce.state_dict()) == ["weight"]  # the weight is a buffer
    check(ce(T(X2), T(Y2, ember.int64)), ref_cross_entropy(X2, Y2, weight=W4, ignore_index=1, label_smoothing=0.05))
    nl = nn.NLLLoss(reduction="sum")
    assert list(nl.state_dict()) == []
    check(nl(T(X2), T(Y2, ember.int64)), ref_nll_from_logp(X2, Y2, reduction="sum"))
    # the legacy size_average / reduce arguments
    assert nn.NLLLoss(size_average=False).reduction == "sum"
    assert nn.NLLLoss(reduce=False).reduction == "none"
    assert nn.CrossEntropyLoss(size_average=True, reduce=True).reduction == "mean"


# ---- binary cross entropy -----------------------------------------------------------------------
P = RNG.uniform(0.05, 0.95, (4, 3))
TGT = RNG.uniform(0, 1, (4, 3))
BW = RNG.uniform(0.5, 2.0, (4, 3))


def ref_bce(x, t, w=None):
    loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    return loss if w is None else loss * w


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    check(F.binary_cross_entropy(T(P), T(TGT), reduction=reduction), reduce_np(ref_bce(P, TGT), reduction))
    check(F.binary_cross_entropy(T(P), T(TGT), weight=T(BW), reduction=reduction),
          reduce_np(ref_bce(P, TGT, BW), reduction))
    w_row = BW[0]  # broadcast weight
    check(F.binary_cross_entropy(T(P), T(TGT), weight=T(w_row), reduction=reduction),
          reduce_np(ref_bce(P, TGT, w_row), reduction))
    layer = nn.BCELoss(weight=T(BW), reduction=reduction)
    check(layer(T(P), T(TGT)), reduce_np(ref_bce(P, TGT, BW), reduction))


def test_binary_cross_entropy_log_clamp():
    x = np.array([0.0, 1.0, 0.5])
    t = np.array([1.0, 0.0, 1.0])
    check(F.binary_cross_entropy(T(x), T(t), reduction="none"), [100.0, 100.0, np.log(2.0)])


def test_binary_cross_entropy_errors():
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(T([0.5, 1.5]), T([1.0, 0.0]))
    with pytest.raises(ValueError, match="target size"):
        F.binary_cross_entropy(T(P), T(TGT[:, :2]))


def ref_bce_logits(x, t, w=None, pw=None):
    log_sig = -np.logaddexp(0, -x)
    log_one_minus = -np.logaddexp(0, x)
    pw = 1.0 if pw is None else pw
    loss = -(pw * t * log_sig + (1 - t) * log_one_minus)
    return loss if w is None else loss * w


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(reduction):
    x = RNG.standard_normal((4, 3)) * 4
    x[0, 0], x[0, 1] = 60.0, -60.0  # stable at large |x|
    pw = np.array([0.5, 2.0, 3.0])
    check(F.binary_cross_entropy_with_logits(T(x), T(TGT), reduction=reduction),
          reduce_np(ref_bce_logits(x, TGT), reduction))
    check(F.binary_cross_entropy_with_logits(T(x), T(TGT), weight=T(BW), reduction=reduction),
          reduce_np(ref_bce_logits(x, TGT, w=BW), reduction))
    check(F.binary_cross_entropy_with_logits(T(x), T(TGT), pos_weight=T(pw), reduction=reduction),
          reduce_np(ref_bce_logits(x, TGT, pw=pw), reduction))
    check(F.binary_cross_entropy_with_logits(T(x), T(TGT), weight=T(BW), pos_weight=T(pw), reduction=reduction),
          reduce_np(ref_bce_logits(x, TGT, w=BW, pw=pw), reduction))
    layer = nn.BCEWithLogitsLoss(weight=T(BW), pos_weight=T(pw), reduction=reduction)
    assert sorted(layer.state_dict()) == ["pos_weight", "weight"]
    check(layer(T(x), T(TGT)), reduce_np(ref_bce_logits(x, TGT, w=BW, pw=pw), reduction))
    # sigmoid then BCE agrees where the probabilities are not clamped
    xs = RNG.standard_normal((4, 3))
    check(F.binary_cross_entropy_with_logits(T(xs), T(TGT), reduction=reduction),
          reduce_np(ref_bce(expit(xs), TGT), reduction), rtol=1e-9)
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(T(xs), T(TGT[:2]))


# ---- kl_div -------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
def test_kl_div(reduction):
    logq = log_softmax(RNG.standard_normal((3, 5)), axis=1)
    p = _probs((3, 5), 1)
    p[0, 2] = 0.0  # 0 * log 0 = 0
    pointwise = xlogy(p, p) - p * logq
    ref = pointwise.sum() / 3 if reduction == "batchmean" else reduce_np(pointwise, reduction)
    check(F.kl_div(T(logq), T(p), reduction=reduction), ref)
    logp = np.log(_probs((3, 5), 1))
    pointwise = np.exp(logp) * (logp - logq)
    ref = pointwise.sum() / 3 if reduction == "batchmean" else reduce_np(pointwise, reduction)
    check(F.kl_div(T(logq), T(logp), reduction=reduction, log_target=True), ref)
    layer = nn.KLDivLoss(reduction=reduction, log_target=True)
    check(layer(T(logq), T(logp)), ref)


def test_kl_div_batchmean_is_true_kl():
    q = _probs((4, 6), 1)
    p = _probs((4, 6), 1)
    kl = (p * np.log(p / q)).sum(1).mean()
    check(F.kl_div(T(np.log(q)), T(p), reduction="batchmean"), kl)


# ---- regression losses --------------------------------------------------------------------------
A = RNG.standard_normal((5, 4)) * 2
B = RNG.standard_normal((5, 4)) * 2


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_l1(reduction):
    check(F.mse_loss(T(A), T(B), reduction=reduction), reduce_np((A - B) ** 2, reduction))
    check(F.l1_loss(T(A), T(B), reduction=reduction), reduce_np(np.abs(A - B), reduction))
    check(nn.MSELoss(reduction=reduction)(T(A), T(B)), reduce_np((A - B) ** 2, reduction))
    check(nn.L1Loss(reduction=reduction)(T(A), T(B)), reduce_np(np.abs(A - B), reduction))


def ref_smooth_l1(a, b, beta):
    d = np.abs(a - b)
    return d if beta == 0 else np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta)


def ref_huber(a, b, delta):
    d = np.abs(a - b)
    return np.where(d < delta, 0.5 * d ** 2, delta * (d - 0.5 * delta))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.5, 0.0])
def test_smooth_l1(reduction, beta):
    check(F.smooth_l1_loss(T(A), T(B), reduction=reduction, beta=beta),
          reduce_np(ref_smooth_l1(A, B, beta), reduction))
    check(nn.SmoothL1Loss(reduction=reduction, beta=beta)(T(A), T(B)),
          reduce_np(ref_smooth_l1(A, B, beta), reduction))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.3, 3.0])
def test_huber(reduction, delta):
    check(F.huber_loss(T(A), T(B), reduction=reduction, delta=delta), reduce_np(ref_huber(A, B, delta), reduction))
    check(nn.HuberLoss(reduction=reduction, delta=delta)(T(A), T(B)), reduce_np(ref_huber(A, B, delta), reduction))
    # huber = delta * smooth_l1 with beta = delta
    np.testing.assert_allclose(npy(F.huber_loss(T(A), T(B), reduction="none", delta=delta)),
                               delta * ref_smooth_l1(A, B, delta), rtol=1e-12)


def test_smooth_l1_huber_bad_parameters():
    with pytest.raises(RuntimeError):
        F.smooth_l1_loss(T(A), T(B), beta=-1.0)
    with pytest.raises(RuntimeError):
        F.huber_loss(T(A), T(B), delta=0.0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin(reduction):
    y = np.where(RNG.random((5, 4)) > 0.5, 1.0, -1.0)
    ref = np.log1p(np.exp(-y * A))
    check(F.soft_margin_loss(T(A), T(y), reduction=reduction), reduce_np(ref, reduction))
    check(nn.SoftMarginLoss(reduction=reduction)(T(A), T(y)), reduce_np(ref, reduction))


def test_pointwise_loss_broadcast_warns():
    with pytest.warns(UserWarning, match="target size"):
        out = F.mse_loss(T(A), T(B[0]))
    check(out, np.mean((A - B[0]) ** 2))


# ---- gradients ----------------------------------------------------------------------------------
def _leaf(a):
    return T(a, requires_grad=True)


PROBS2 = _probs(X2.shape, 1)  # fixed targets: gradcheck calls the function many times

GRAD_CASES = {
    "cross_entropy": lambda x: F.cross_entropy(x, T(Y2, ember.int64), weight=T(W4), label_smoothing=0.1),
    "cross_entropy_ignore": lambda x: F.cross_entropy(x, T(np.where(Y2 == 1, -100, Y2), ember.int64)),
    "cross_entropy_probs": lambda x: F.cross_entropy(x, T(PROBS2), weight=T(W4), label_smoothing=0.2),
    "nll_loss": lambda x: F.nll_loss(x, T(Y2, ember.int64), weight=T(W4), reduction="sum"),
    "mse_loss": lambda x: F.mse_loss(x, T(X2 * 0.5)),
    "l1_loss": lambda x: F.l1_loss(x, T(X2 + 0.3)),
    "smooth_l1_loss": lambda x: F.smooth_l1_loss(x, T(X2 * 0.2), beta=0.7),
    "huber_loss": lambda x: F.huber_loss(x, T(X2 * 0.2), delta=0.7, reduction="sum"),
    "soft_margin_loss": lambda x: F.soft_margin_loss(x, T(np.sign(X2[::-1].copy()))),
    "bce_with_logits": lambda x: F.binary_cross_entropy_with_logits(
        x, T(expit(X2[::-1].copy())), weight=T(np.linspace(0.5, 1.5, 4)), pos_weight=T(np.array([1., 2., 3., .5]))),
    "kl_div": lambda x: F.kl_div(x, T(PROBS2), reduction="batchmean"),
    "kl_div_log_target": lambda x: F.kl_div(x, T(np.log(PROBS2)), log_target=True),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck(name):
    fn = GRAD_CASES[name]
    assert gradcheck(fn, (_leaf(X2),))


def test_gradcheck_bce_and_targets():
    assert gradcheck(lambda x: F.binary_cross_entropy(x, T(TGT), weight=T(BW)), (_leaf(P),))
    # gradients with respect to the targets too
    assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction="sum"), (_leaf(A), _leaf(B)))
    assert gradcheck(lambda q, p: F.kl_div(q, p, reduction="sum"), (_leaf(np.log(_probs((2, 3), 1))),
                                                                     _leaf(_probs((2, 3), 1))))
    assert gradcheck(lambda x, t: F.binary_cross_entropy_with_logits(x, t), (_leaf(A), _leaf(expit(B))))
    assert gradcheck(lambda x, t: F.cross_entropy(x, t), (_leaf(X2), _leaf(_probs(X2.shape, 1))))


def test_cross_entropy_gradient_analytic():
    # d/dx mean CE = (softmax(x) - onehot(y)) / N
    x = _leaf(X2)
    F.cross_entropy(x, T(Y2, ember.int64)).backward()
    sm = np.exp(log_softmax(X2, axis=1))
    np.testing.assert_allclose(npy(x.grad), (sm - np.eye(4)[Y2]) / 6, rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32])
def test_small_integer_targets_with_weights_and_smoothing(dtype):
    # the smoothing term's weights are picked by class index: any integer dtype is an index, never a mask
    w = np.linspace(0.5, 2.0, 4)
    got = F.cross_entropy(T(X2), ember.tensor(Y2.astype(dtype)), weight=T(w), label_smoothing=0.3).item()
    assert got == pytest.approx(float(ref_cross_entropy(X2, Y2, weight=w, label_smoothing=0.3)), rel=1e-12)


def test_functional_losses_honour_the_legacy_reduction_arguments():
    # size_average / reduce map to reduction as in PyTorch: reduce=False gives per-element losses
    logp = log_softmax(X2, axis=1)
    picked = -logp[np.arange(6), Y2]
    np.testing.assert_allclose(npy(F.nll_loss(T(logp), T(Y2, ember.int64), size_average=False)), picked.sum())
    np.testing.assert_allclose(npy(F.nll_loss(T(logp), T(Y2, ember.int64), reduce=False)), picked)
    np.testing.assert_allclose(npy(F.mse_loss(T(X2), T(2 * X2), reduce=False)), X2 ** 2)
    np.testing.assert_allclose(npy(F.l1_loss(T(X2), T(0 * X2), size_average=False)), np.abs(X2).sum())


# ---- bad inputs ---------------------------------------------------------------------------------
def test_probability_targets_with_a_wrong_weight_raise():
    with pytest.raises(RuntimeError, match="for all 4 classes"):
        F.cross_entropy(T(X2), T(np.full((6, 4), 0.25)), weight=T([1.0, 2.0]))


def test_class_weight_and_target_shape_are_checked():
    with pytest.raises(RuntimeError, match="for all 4 classes or no classes"):
        F.nll_loss(T(X2), T(Y2, ember.int64), weight=T([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="for all 4 classes or no classes"):
        F.cross_entropy(T(X2), T(Y2, ember.int64), weight=T(np.ones((2, 2))), label_smoothing=0.1)
    with pytest.raises(ValueError, match=r"expected target of shape \[6\]"):
        F.nll_loss(T(X2), T(Y2[:5], ember.int64))
    with pytest.raises(ValueError, match="at least 1 dimension"):
        F.nll_loss(T(1.0), T(0, ember.int64))


def test_nll_loss_ops_reject_bad_arguments():
    x, t = T(X2), T(Y2, ember.int64)
    with pytest.raises(ValueError, match="reduction must be 0"):
        ember._C._nll_loss(x, t, None, 3, -100)
    with pytest.raises(RuntimeError, match="int64 target"):
        ember._C._nll_loss(x, T(Y2, ember.int32), None, 1, -100)
    total = ember._C._nll_loss(x, t, None, 1, -100)[1]
    with pytest.raises(RuntimeError, match="does not fit the loss"):
        ember._C._nll_loss_backward(T(np.ones(6)), x, t, None, 1, -100, total)
    with pytest.raises(RuntimeError, match="total_weight must hold one value"):
        ember._C._nll_loss_backward(T(1.0), x, t, None, 1, -100, T(np.ones(2)))


def test_zero_dim_input_and_bool_targets_raise():
    with pytest.raises(ValueError, match="at least 1 dimension"):
        F.cross_entropy(T(1.0), T(0, ember.int64))
    with pytest.raises(RuntimeError, match="integer dtype"):
        F.nll_loss(T(X2), T(Y2 > 1))


def test_target_out_of_range_raises_index_error():
    bad = Y2.copy()
    bad[3] = 4
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(T(X2), T(bad, ember.int64))
    bad[3] = -1
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.nll_loss(T(X2), T(bad, ember.int64))
    with pytest.raises(IndexError, match="Target 9"):
        F.nll_loss(T(X2[0]), T(9, ember.int64))
    with pytest.raises(IndexError, match="Target 3"):
        F.cross_entropy(T(X4), T(np.full((2, 4, 5), 3), ember.int64), label_smoothing=0.1)


def test_wrong_target_shape_raises():
    with pytest.raises((ValueError, RuntimeError)):
        F.cross_entropy(T(X2), T(Y2[:4], ember.int64))
    with pytest.raises((ValueError, RuntimeError)):
        F.nll_loss(T(X2), T(Y2.reshape(2, 3), ember.int64))
    with pytest.raises((ValueError, RuntimeError)):
        F.cross_entropy(T(X4), T(Y4[:, :2], ember.int64))
    with pytest.raises((ValueError, RuntimeError)):
        F.cross_entropy(T(X2), T(_probs((6, 3), 1)))  # probabilities of the wrong shape
    with pytest.raises((ValueError, RuntimeError)):
        F.nll_loss(T(X2), T(Y2.astype(np.float64)))  # class indices must be integers
    with pytest.raises(RuntimeError, match="weight"):
        F.cross_entropy(T(X2), T(Y2, ember.int64), weight=T(W3))


@pytest.mark.parametrize("call", [
    lambda r: F.cross_entropy(T(X2), T(Y2, ember.int64), reduction=r),
    lambda r: F.cross_entropy(T(X2), T(Y2, ember.int64), reduction=r, label_smoothing=0.1),
    lambda r: F.cross_entropy(T(X2), T(_probs(X2.shape, 1)), reduction=r),
    lambda r: F.nll_loss(T(X2), T(Y2, ember.int64), reduction=r),
    lambda r: F.mse_loss(T(A), T(B), reduction=r),
    lambda r: F.l1_loss(T(A), T(B), reduction=r),
    lambda r: F.smooth_l1_loss(T(A), T(B), reduction=r),
    lambda r: F.huber_loss(T(A), T(B), reduction=r),
    lambda r: F.soft_margin_loss(T(A), T(B), reduction=r),
    lambda r: F.binary_cross_entropy(T(P), T(TGT), reduction=r),
    lambda r: F.binary_cross_entropy_with_logits(T(A), T(B), reduction=r),
    lambda r: F.kl_div(T(A), T(B), reduction=r),
])
def test_invalid_reduction_raises_value_error(call):
    with pytest.raises(ValueError, match="elementwise_mean is not a valid value for reduction"):
        call("elementwise_mean")


def test_invalid_reduction_in_layers():
    with pytest.raises(ValueError):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError):  # batchmean belongs to KLDivLoss only
        nn.MSELoss(reduction="batchmean")(T(A), T(B))


def test_label_smoothing_range():
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(T(X2), T(Y2, ember.int64), label_smoothing=1.5)
