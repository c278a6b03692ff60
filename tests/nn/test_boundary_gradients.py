"""Gradients at boundary values (issue 29, item 5): inputs of exactly 0 or 1, +-inf, saturated
sigmoids and softmaxes, zero distances and kinks. The expected values are written out from the
analytic formulas under PyTorch's documented conventions (its BCE gradient divides by
max(x (1 - x), 1e-12); norms and distances take the subgradient 0 at 0; floors that PyTorch applies
in place without recording pass the gradient through). The bug class: NaN where PyTorch is finite."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

EPS = 1e-12
INF = math.inf


def leaf(values, dtype=ember.float64):
    return ember.tensor(values, dtype=dtype, requires_grad=True)


def const(values, dtype=ember.float64):
    return ember.tensor(values, dtype=dtype)


def grads(out, *inputs):
    return [g.numpy() for g in ember.autograd.grad(out.sum(), inputs)]


def close(actual, expected, rtol=1e-7, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol)


def bce_grad(x, t, w=1.0, scale=1.0):
    x, t = np.asarray(x, np.float64), np.asarray(t, np.float64)
    return w * (x - t) / np.maximum(x * (1 - x), EPS) * scale


# ---- binary_cross_entropy ------------------------------------------------------------------------
def test_bce_issue_example_float32():
    x = leaf([1.0, 0.0, 1.0, 0.5], ember.float32)
    t = const([0.0, 1.0, 1.0, 1.0], ember.float32)
    loss = F.binary_cross_entropy(x, t)
    close(loss.item(), (100 + 100 + 0 + math.log(2)) / 4, rtol=1e-6)  # logs clamped at -100
    loss.backward()
    assert np.isfinite(x.grad.numpy()).all()
    close(x.grad.numpy(), [2.5e11, -2.5e11, 0.0, -0.5], rtol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bce_boundary_gradient_with_weight(reduction):
    xv, tv, wv = [1.0, 0.0, 0.0, 1.0, 0.3], [0.0, 1.0, 0.0, 1.0, 0.2], [2.0, 3.0, 4.0, 5.0, 6.0]
    x = leaf(xv)
    out = F.binary_cross_entropy(x, const(tv), weight=const(wv), reduction=reduction)
    (g,) = grads(out, x)
    close(g, bce_grad(xv, tv, np.array(wv), 1 / 5 if reduction == "mean" else 1.0))


def test_bce_saturated_sigmoid_float32():
    # sigmoid(40) is exactly 1 and sigmoid(-120) exactly 0 in float32: the BCE gradient is finite
    # there and the sigmoid's own derivative (0) makes the logits' gradient 0
    z = leaf([40.0, -120.0, 3.0], ember.float32)
    loss = F.binary_cross_entropy(ember.sigmoid(z), const([0.0, 1.0, 1.0], ember.float32))
    (g,) = grads(loss, z)
    s3 = 1 / (1 + math.exp(-3.0))
    close(g, [0.0, 0.0, (s3 - 1) / 3], rtol=1e-5)


def test_bce_target_gradient_is_minus_logit():
    x, t = leaf([0.25, 0.9, 0.5]), leaf([0.0, 1.0, 0.3])
    gx, gt = grads(F.binary_cross_entropy(x, t, reduction="sum"), x, t)
    xv = np.array([0.25, 0.9, 0.5])
    close(gt, -np.log(xv / (1 - xv)), atol=1e-15)
    close(gx, bce_grad(xv, [0.0, 1.0, 0.3]))


def test_bce_second_derivative_at_the_boundary():
    # PyTorch's: d2/dx2 = (x^2 - 2 x t + t) / ((x + eps)^2 (1 - x + eps)^2) grad, and the first
    # gradient's derivative in t is -grad / max(x (1 - x), eps)
    x, t = leaf([1.0, 0.5, 0.0]), leaf([0.0, 1.0, 1.0])
    (gx,) = ember.autograd.grad(F.binary_cross_entropy(x, t, reduction="sum"), [x], create_graph=True)
    dxx, dxt = grads(gx, x, t)
    xv, tv = np.array([1.0, 0.5, 0.0]), np.array([0.0, 1.0, 1.0])
    close(dxx, (xv * xv - 2 * xv * tv + tv) / ((xv + EPS) ** 2 * ((1 - xv) + EPS) ** 2))
    close(dxt, -1 / np.maximum(xv * (1 - xv), EPS))


def test_bce_grad_output_derivative_for_the_mean():
    x = leaf([1.0, 0.3])
    go = leaf(1.0)
    out = F.binary_cross_entropy(x, const([0.0, 0.2]))
    (gx,) = ember.autograd.grad(out, [x], go, create_graph=True)
    (dgo,) = grads((gx * const([0.7, 0.4])).sum(), go)
    xv, tv, v = np.array([1.0, 0.3]), np.array([0.0, 0.2]), np.array([0.7, 0.4])
    close(dgo, ((xv - tv) / ((xv + EPS) * ((1 - xv) + EPS)) * v).sum() / 2)


def test_bce_gradcheck_inside_the_interval():
    w = const([1.0, 2.0, 0.5, 3.0])
    for reduction in ("none", "mean", "sum"):
        fn = lambda x, t_: F.binary_cross_entropy(x, t_, weight=w, reduction=reduction)
        args = (leaf([0.2, 0.7, 0.45, 0.6]), leaf([0.1, 0.9, 0.5, 0.3]))
        assert gradcheck(fn, args)
        assert gradgradcheck(fn, args)


def test_bce_rejects_out_of_range_values_and_a_weight_that_requires_grad():
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(const([0.5, math.nan]), const([0.5, 0.5]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(const([0.5, 0.5]), const([0.5, 1.5]))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.binary_cross_entropy(leaf([0.5]), const([0.5]), weight=leaf([1.0]))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        F.binary_cross_entropy(const([0.5], ember.float32), const([0.5]))


# ---- elementwise formulas at their singular points -----------------------------------------------
def test_atan2_at_the_origin_std_of_a_constant_and_fmax_with_nan():
    a, b = leaf([0.0, 1.0]), leaf([0.0, 1.0])
    ga, gb = grads(ember.atan2(a, b), a, b)
    close(ga, [0.0, 0.5])
    close(gb, [0.0, -0.5])
    c = leaf([2.0, 2.0, 2.0])
    close(grads(ember.std(c), c)[0], [0.0, 0.0, 0.0])
    one = leaf([5.0])
    close(grads(ember.std(one, correction=0), one)[0], [0.0])
    p, q = leaf([1.0, math.nan]), leaf([1.0, 3.0])
    gp, gq = grads(ember.fmax(p, q), p, q)
    close(gp, [1.0, 0.0])
    close(gq, [0.0, 1.0])  # fmax(nan, 3) is 3: its gradient goes to the 3
    gp, gq = grads(ember.fmin(p, q), p, q)
    close(gq, [0.0, 1.0])


def test_hardswish_at_its_joints():
    x = leaf([-3.0, 3.0, 0.0, 4.0, -4.0])
    close(grads(F.hardswish(x), x)[0], [0.0, 1.0, 0.5, 1.0, 0.0])


def test_softplus_logsigmoid_and_bce_with_logits_at_large_and_infinite_inputs():
    x = leaf([1e4, -1e4, 0.0, INF, -INF])
    close(grads(F.softplus(x), x)[0], [1.0, 0.0, 0.5, 1.0, 0.0])
    x = leaf([1e4, -1e4, 0.0, -INF])
    close(grads(F.logsigmoid(x), x)[0], [0.0, 1.0, 0.5, 1.0])
    x = leaf([1e4, -1e4, 0.0])
    (g,) = grads(F.binary_cross_entropy_with_logits(x, const([0.0, 1.0, 0.5])), x)
    close(g, np.array([1.0, -1.0, 0.0]) / 3)  # (sigmoid(x) - t) / N


def test_cross_entropy_with_saturated_softmax_and_label_smoothing_over_an_ignored_row():
    x = leaf([[0.0, -200.0], [100.0, -100.0]], ember.float32)
    (g,) = grads(F.cross_entropy(x, const([1, 1], ember.int64)), x)
    close(g, [[0.5, -0.5], [0.5, -0.5]], rtol=1e-6)  # (softmax - onehot) / N
    x = leaf([[0.0, 1.0, 2.0], [-INF, 0.0, 1.0]])
    ls = 0.1
    loss = F.cross_entropy(x, const([2, 0], ember.int64), ignore_index=0, label_smoothing=ls)
    row = np.array([0.0, 1.0, 2.0])
    logp = row - np.log(np.exp(row).sum())
    close(loss.item(), -(1 - ls) * logp[2] - ls / 3 * logp.sum())  # the ignored row's -inf counts for nothing
    (g,) = grads(loss, x)
    want = np.exp(logp) - ((1 - ls) * np.array([0.0, 0.0, 1.0]) + ls / 3)
    close(g, [want, [0.0, 0.0, 0.0]], atol=1e-15)


# ---- norms and distances at zero -------------------------------------------------------------
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, INF])
def test_norms_at_zero_take_the_zero_subgradient(p):
    a = leaf([[0.0, 0.0], [0.0, 0.0]])
    close(grads(ember.norm(a, p=p), a)[0], np.zeros((2, 2)))
    b = leaf([[0.0, 0.0], [3.0, 4.0]])
    (g,) = grads(ember.linalg.vector_norm(b, ord=p, dim=1), b)
    assert np.isfinite(g).all() and (g[0] == 0).all()


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.5])
def test_pairwise_distance_at_equal_points(p):
    a, b = leaf([[1.0, 2.0], [3.0, 4.0]]), leaf([[1.0, 2.0], [0.0, 4.0]])
    ga, gb = grads(F.pairwise_distance(a, b, p=p, eps=0.0), a, b)
    close(ga, [[0.0, 0.0], [1.0, 0.0]])  # row 1: |d| = (3, 0), the norm's gradient sign(d) |d|^(p-1) / r^(p-1)
    close(gb, -ga)


def cdist_grad_reference(x1, x2, p):
    """d/dx1 of sum_ij ||x1_i - x2_j||_p: sign(d) |d|^(p-1) / r^(p-1), 0 where d or r is 0; for
    p = inf, sign(d) at every coordinate reaching the maximum."""
    g = np.zeros_like(x1)
    for i in range(len(x1)):
        for j in range(len(x2)):
            d = x1[i] - x2[j]
            if math.isinf(p):
                r = np.abs(d).max()
                if r > 0:
                    g[i] += np.sign(d) * (np.abs(d) == r)
                continue
            r = (np.abs(d) ** p).sum() ** (1 / p)
            if r == 0:
                continue
            with np.errstate(divide="ignore"):
                term = np.sign(d) * np.where(d != 0, np.abs(d), 1.0) ** (p - 1) / r ** (p - 1)
            g[i] += np.where(d != 0, term, 0.0)
    return g


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.5, INF])
def test_cdist_at_coincident_points_and_zero_coordinates(p):
    x1v, x2v = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [0.0, 4.0], [3.0, 4.0]])
    a, b = leaf(x1v), leaf(x2v)
    ga, gb = grads(F.cdist(a, b, p=p), a, b)
    close(ga, cdist_grad_reference(x1v, x2v, p), atol=1e-12)
    close(gb, cdist_grad_reference(x2v, x1v, p), atol=1e-12)


def test_cdist_p0_counts_and_has_a_zero_gradient():
    a, b = leaf([[1.0, 2.0]]), leaf([[1.0, 5.0]])
    out = F.cdist(a, b, p=0)
    close(out.detach().numpy(), [[1.0]])
    ga, gb = grads(out, a, b)
    close(ga, [[0.0, 0.0]])
    close(gb, [[0.0, 0.0]])


def test_cosine_similarity_with_zero_and_tiny_vectors():
    eps = 1e-8
    a, b = leaf([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]), leaf([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    ga, gb = grads(F.cosine_similarity(a, b), a, b)
    v = np.array([1.0, 2.0, 3.0])
    close(ga, [v / (eps * np.linalg.norm(v)), [0.0, 0.0, 0.0]])  # the zero vector's norm is floored at eps
    close(gb, [[0.0, 0.0, 0.0], v / (eps * np.linalg.norm(v))])
    # |a| = 1e-10 < eps: a is divided by eps, but the gradient still goes through |a| (PyTorch's
    # unrecorded floor): d/da (a / n_eps) . bh = bh / eps - (a . bh) / eps^2 * a / |a|
    a, b = leaf([[1e-10, 0.0]]), leaf([[1.0, 1.0]])
    (ga,) = grads(F.cosine_similarity(a, b), a)
    bh = np.array([1.0, 1.0]) / math.sqrt(2)
    close(ga, [bh / eps - (1e-10 * bh[0]) / eps ** 2 * np.array([1.0, 0.0])])


def test_normalize_of_a_zero_vector():
    a = leaf([[0.0, 0.0], [3.0, 4.0]])
    (g,) = grads(F.normalize(a, dim=1), a)
    close(g[0], [1e12, 1e12])  # x / max(|x|, 1e-12): the recorded floor, so 1 / eps
    xv = np.array([3.0, 4.0])
    close(g[1], 1 / 5.0 - xv.sum() * xv / 125.0)  # d/dx sum(x / |x|) = 1 / |x| - sum(x) x / |x|^3


# ---- losses at kinks and floors ------------------------------------------------------------
def test_smooth_l1_and_huber_at_zero_difference():
    x = leaf([1.0, 2.0, 3.0])
    y = const([1.0, 1.0, 4.0])
    close(grads(F.smooth_l1_loss(x, y, beta=0.0), x)[0], np.array([0.0, 1.0, -1.0]) / 3)
    close(grads(F.smooth_l1_loss(x, y), x)[0], np.array([0.0, 1.0, -1.0]) / 3)
    close(grads(F.huber_loss(x, y), x)[0], np.array([0.0, 1.0, -1.0]) / 3)


def test_margin_losses_have_zero_gradient_at_the_kink():
    x = leaf([[1.0, 0.0, 0.0]])  # margin - x[y] + x[i] = 0 for both i != y
    close(grads(F.multi_margin_loss(x, const([0], ember.int64)), x)[0], [[0.0, 0.0, 0.0]])
    x = leaf([[1.0, 0.0, 0.0]])
    close(grads(F.multilabel_margin_loss(x, const([[0, -1, 1]], ember.int64)), x)[0], [[0.0, 0.0, 0.0]])


def test_gaussian_nll_loss_var_below_eps_still_gets_a_gradient():
    eps = 1e-6
    x, v = leaf([1.0, 2.0, 3.0]), leaf([0.0, 1e-8, 1.0])
    target = np.array([1.0, 2.5, 2.0])
    gx, gv = grads(F.gaussian_nll_loss(x, const(target), v, reduction="sum"), x, v)
    d = np.array([1.0, 2.0, 3.0]) - target
    vc = np.maximum([0.0, 1e-8, 1.0], eps)  # the value is floored; the gradient passes as if it were not
    close(gx, d / vc)
    close(gv, 0.5 * (1 / vc - d * d / vc ** 2))


def test_kl_div_with_zero_targets():
    x = leaf([-1.0, -2.0, 0.0])
    t = const([0.0, 0.5, 1.0])
    loss = F.kl_div(x, t, reduction="sum")
    close(loss.item(), 0.5 * (math.log(0.5) + 2.0) + 1.0 * (0.0 - 0.0))
    close(grads(loss, x)[0], [0.0, -0.5, -1.0])
    # PyTorch's xlogy(t, t) - t x: 0 * -inf is NaN in the loss, the input's gradient stays -t
    x = leaf([-INF, -1.0])
    out = F.kl_div(x, const([0.0, 1.0]), reduction="none")
    assert math.isnan(out[0].item()) and out[1].item() == 1.0
    close(grads(out, x)[0], [0.0, -1.0])


def test_ctc_with_no_possible_alignment_keeps_a_graph():
    lp = leaf([[[0.0, -INF, -INF]], [[0.0, -INF, -INF]]])  # only the blank has probability
    loss = F.ctc_loss(lp, const([[1, 1]], ember.int64), [2], [2], reduction="sum")
    assert loss.item() == INF
    (g,) = grads(loss, lp)
    assert np.isfinite(g).all()  # backward must work (it raised before); PyTorch's is NaN here, ours 0
    lp = leaf([[[0.0, -INF, -INF]], [[0.0, -INF, -INF]]])
    loss = F.ctc_loss(lp, const([[1, 1]], ember.int64), [2], [2], reduction="sum", zero_infinity=True)
    assert loss.item() == 0.0
    close(grads(loss, lp)[0], np.zeros((2, 1, 3)))


def test_lp_pool_over_a_zero_window():
    x = leaf([[[0.0, 0.0, 1.0, 2.0]]])
    (g,) = grads(F.lp_pool1d(x, 2.0, 2), x)
    r = math.sqrt(5.0)
    close(g, [[[0.0, 0.0, 1 / r, 2 / r]]])  # the zero window's 1/p power gets 0 through the relu
