"""The margin, embedding and likelihood losses, cdist and pixel (un)shuffle against NumPy formulas
from PyTorch's documentation; gradcheck in float64; bad inputs."""
import numpy as np
import pytest
from scipy.spatial.distance import cdist as scipy_cdist

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

rng = np.random.default_rng(5)


def t(a, grad=False):
    return ember.tensor(np.asarray(a), requires_grad=grad)


def logsig(x):
    return -np.logaddexp(0, -x)


def test_margin_ranking_and_hinge_embedding():
    a, b = rng.standard_normal(6), rng.standard_normal(6)
    y = np.array([1.0, -1, 1, -1, 1, 1])
    for red, f in (("none", lambda v: v), ("mean", np.mean), ("sum", np.sum)):
        np.testing.assert_allclose(F.margin_ranking_loss(t(a), t(b), t(y), 0.3, reduction=red).numpy(),
                                   f(np.maximum(0, -y * (a - b) + 0.3)), rtol=1e-12)
        want = np.where(y == 1, a, np.maximum(0, 0.7 - a))
        np.testing.assert_allclose(F.hinge_embedding_loss(t(a), t(y), 0.7, reduction=red).numpy(), f(want), rtol=1e-12)


def test_multilabel_losses():
    x = np.array([[0.1, 0.2, 0.4, 0.8], [0.5, -0.3, 0.0, 1.0]])
    y = np.array([[3, 0, -1, 1], [2, -1, 0, 0]])
    # by the definition: targets up to the first -1
    want = []
    for xr, yr in zip(x, y):
        labels = []
        for v in yr:
            if v < 0:
                break
            labels.append(v)
        others = [i for i in range(4) if i not in labels]
        want.append(sum(max(0, 1 - (xr[j] - xr[i])) for j in labels for i in others) / 4)
    np.testing.assert_allclose(F.multilabel_margin_loss(t(x), t(y), reduction="none").numpy(), want, rtol=1e-12)
    assert np.isclose(F.multilabel_margin_loss(t(x[:1]), t(y[:1])).item(), 0.85)  # PyTorch's docs example
    yy = rng.integers(0, 2, (2, 4)).astype(float)
    w = np.array([1.0, 2.0, 0.5, 1.0])
    want = -(yy * logsig(x) + (1 - yy) * logsig(-x)) * w
    np.testing.assert_allclose(F.multilabel_soft_margin_loss(t(x), t(yy), t(w), reduction="none").numpy(),
                               want.mean(1), rtol=1e-12)


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin(p):
    x, y = rng.standard_normal((3, 4)), np.array([0, 3, 1])
    w = np.array([1.0, 0.5, 2.0, 1.5])
    want = []
    for xr, yr in zip(x, y):
        terms = [max(0, 0.8 - xr[yr] + xr[i]) ** p for i in range(4) if i != yr]
        want.append(w[yr] * sum(terms) / 4)
    got = F.multi_margin_loss(t(x), t(y), p=p, margin=0.8, weight=t(w), reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    with pytest.raises(IndexError, match="out of range"):
        F.multi_margin_loss(t(x), t(np.array([0, 4, 1])))


def test_cosine_embedding_and_triplet():
    a, b, c = rng.standard_normal((3, 5)), rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    y = np.array([1.0, -1.0, 1.0])
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    want = np.where(y == 1, 1 - cos, np.maximum(0, cos - 0.1))
    np.testing.assert_allclose(F.cosine_embedding_loss(t(a), t(b), t(y), 0.1, reduction="none").numpy(), want,
                               rtol=1e-10)
    d = lambda u, v: np.linalg.norm(u - v + 1e-6, axis=1)
    want = np.maximum(d(a, b) - np.minimum(d(a, c), d(b, c)) + 1.0, 0)
    np.testing.assert_allclose(F.triplet_margin_loss(t(a), t(b), t(c), swap=True, reduction="none").numpy(), want,
                               rtol=1e-10)


def test_poisson_and_gaussian_nll():
    x, y = rng.standard_normal(6), rng.integers(0, 5, 6).astype(float)
    st = np.where(y > 1, y * np.log(np.maximum(y, 1)) - y + 0.5 * np.log(2 * np.pi * np.maximum(y, 1)), 0)
    np.testing.assert_allclose(F.poisson_nll_loss(t(x), t(y), full=True, reduction="none").numpy(),
                               np.exp(x) - y * x + st, rtol=1e-12)
    xp = np.abs(x) + 0.1
    np.testing.assert_allclose(F.poisson_nll_loss(t(xp), t(y), log_input=False, reduction="none").numpy(),
                               xp - y * np.log(xp + 1e-8), rtol=1e-12)
    var = np.abs(rng.standard_normal(6)) + 0.01
    want = 0.5 * (np.log(var) + (x - y) ** 2 / var) + 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(F.gaussian_nll_loss(t(x), t(y), t(var), full=True, reduction="none").numpy(), want,
                               rtol=1e-12)
    with pytest.raises(ValueError, match="var has negative"):
        F.gaussian_nll_loss(t(x), t(y), t(-var))


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0, 3.0, float("inf")])
def test_cdist(p):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    metric = "chebyshev" if np.isinf(p) else "minkowski"
    kw = {} if np.isinf(p) else {"p": p}
    np.testing.assert_allclose(F.cdist(t(a), t(b), p).numpy(), scipy_cdist(a, b, metric, **kw), rtol=1e-10)
    if p >= 1 and not np.isinf(p):
        assert gradcheck(lambda u, v: F.cdist(u, v, p), (t(a, True), t(b, True)))


def test_pixel_shuffle_layout():
    x = np.arange(2 * 8 * 2 * 3, dtype=np.float64).reshape(2, 8, 2, 3)
    r = 2
    want = x.reshape(2, 2, r, r, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    np.testing.assert_array_equal(nn.PixelShuffle(2)(t(x)).numpy(), want)
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(t(want)).numpy(), x)
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(t(x[:, :6]), 2)


def test_gradchecks():
    a, b, c = (t(rng.standard_normal((2, 3)), True) for _ in range(3))
    y = t(np.array([1.0, -1.0]))
    assert gradcheck(lambda u, v: F.cosine_embedding_loss(u, v, y, 0.0), (a, b))
    assert gradcheck(lambda u, v, w: F.triplet_margin_loss(u, v, w), (a, b, c))
    x = t(rng.standard_normal((2, 4)), True)
    assert gradcheck(lambda u: F.multi_margin_loss(u, t(np.array([1, 2])), p=2), (x,))
    assert gradcheck(lambda u: F.multilabel_soft_margin_loss(u, t(np.array([[1.0, 0, 1, 0], [0, 1, 1, 0]]))), (x,))
