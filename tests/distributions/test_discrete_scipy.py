"""log_prob, entropy, mean, variance, mode and enumerate_support of the discrete families against
scipy.stats (float64; parameters broadcast over batch shapes)."""
import numpy as np
import pytest
import scipy.stats as st

import ember
import ember.distributions as D

from ._helpers import close, n, t

RNG = np.random.default_rng(99)


def test_bernoulli_probs_and_logits():
    p = RNG.uniform(0.05, 0.95, (3, 4))
    x = (RNG.uniform(size=(2, 3, 4)) < 0.5).astype(float)
    for d in (D.Bernoulli(probs=t(p)), D.Bernoulli(logits=t(np.log(p) - np.log1p(-p)))):
        close(d.log_prob(t(x)), st.bernoulli(p).logpmf(x), rtol=1e-10)
        close(d.entropy(), st.bernoulli(p).entropy(), rtol=1e-10)
        close(d.mean, p, rtol=1e-12)
        close(d.variance, p * (1 - p), rtol=1e-10)
        close(d.probs, p, rtol=1e-12)
        close(d.logits, np.log(p) - np.log1p(-p), rtol=1e-9)
        close(d.mode, (p >= 0.5).astype(float))
    assert n(D.Bernoulli(probs=t([0.5])).mode)[0] != n(D.Bernoulli(probs=t([0.5])).mode)[0]  # NaN
    sup = D.Bernoulli(probs=t(p)).enumerate_support()
    assert tuple(sup.shape) == (2, 3, 4)
    close(sup[:, 0, 0], [0.0, 1.0])
    assert tuple(D.Bernoulli(probs=t(p)).enumerate_support(expand=False).shape) == (2, 1, 1)


def test_binomial():
    n_, p = np.array([[3.0], [10.0]]), RNG.uniform(0.05, 0.95, (3,))
    d = D.Binomial(t(n_), t(p))
    k = np.minimum(np.floor(RNG.uniform(0, 11, (2, 3))), n_)
    close(d.log_prob(t(k)), st.binom(n_, p).logpmf(k), rtol=1e-9)
    close(d.mean, n_ * p, rtol=1e-12)
    close(d.variance, n_ * p * (1 - p), rtol=1e-12)
    close(d.mode, np.minimum(np.floor((n_ + 1) * p), n_))
    d10 = D.Binomial(10, t(p))
    close(d10.entropy(), st.binom(10, p).entropy(), rtol=1e-9)
    close(d10.enumerate_support()[:, 0], np.arange(11))
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        d.entropy()
    logits = np.log(p) - np.log1p(-p)
    close(D.Binomial(t(n_), logits=t(logits)).log_prob(t(k)), st.binom(n_, p).logpmf(k), rtol=1e-9)


def test_categorical():
    w = RNG.uniform(0.1, 1.0, (3, 5))
    p = w / w.sum(-1, keepdims=True)
    for d in (D.Categorical(probs=t(w)), D.Categorical(logits=t(np.log(w) + 7.0))):
        assert tuple(d.batch_shape) == (3,) and tuple(d.event_shape) == ()
        k = np.array([[0, 4, 2], [1, 1, 3]])
        close(d.log_prob(ember.tensor(k.tolist())), np.log(p[np.arange(3), k]), rtol=1e-10)
        close(d.entropy(), -(p * np.log(p)).sum(-1), rtol=1e-10)
        close(d.probs, p, rtol=1e-12)
        assert d.mode.tolist() == np.argmax(p, -1).tolist()
        assert np.isnan(n(d.mean)).all() and np.isnan(n(d.variance)).all()
    sup = D.Categorical(probs=t(w)).enumerate_support()
    assert tuple(sup.shape) == (5, 3) and sup[:, 0].tolist() == list(range(5))


def test_one_hot_categorical():
    w = RNG.uniform(0.1, 1.0, (2, 4))
    p = w / w.sum(-1, keepdims=True)
    d = D.OneHotCategorical(probs=t(w))
    assert tuple(d.event_shape) == (4,)
    idx = np.array([[1, 3], [0, 2]])  # (sample, batch)
    x = np.eye(4)[idx]
    close(d.log_prob(t(x)), np.log(p[np.arange(2)[None, :], idx]), rtol=1e-10)
    close(d.entropy(), -(p * np.log(p)).sum(-1), rtol=1e-10)
    close(d.mean, p, rtol=1e-12)
    close(d.variance, p * (1 - p), rtol=1e-12)
    close(d.mode, np.eye(4)[np.argmax(p, -1)])
    sup = d.enumerate_support()
    assert tuple(sup.shape) == (4, 2, 4)
    close(sup[:, 0], np.eye(4))


def test_geometric():
    p = RNG.uniform(0.1, 0.9, (4,))
    d = D.Geometric(t(p))
    k = np.floor(RNG.uniform(0, 8, (3, 4)))
    ref = st.geom(p, loc=-1)  # failures before the first success
    close(d.log_prob(t(k)), ref.logpmf(k), rtol=1e-10)
    close(d.mean, ref.mean(), rtol=1e-10)
    close(d.variance, ref.var(), rtol=1e-10)
    close(d.entropy(), ref.entropy(), rtol=1e-9)
    close(D.Geometric(t([1.0])).log_prob(t([0.0])), [0.0])


def test_poisson():
    rate = RNG.uniform(0.2, 8.0, (2, 1))
    d = D.Poisson(t(rate))
    k = np.floor(RNG.uniform(0, 12, (2, 5)))
    close(d.log_prob(t(k)), st.poisson(rate).logpmf(k), rtol=1e-10)
    close(d.mean, rate)
    close(d.variance, rate)
    close(d.mode, np.floor(rate))
    close(D.Poisson(t([0.0])).log_prob(t([0.0])), [0.0])


def test_negative_binomial():
    r, p = np.array([[0.7], [3.0]]), RNG.uniform(0.1, 0.9, (3,))
    d = D.NegativeBinomial(t(r), t(p))
    k = np.floor(RNG.uniform(0, 10, (2, 3)))
    # PyTorch's probs is the probability of the counted event: SciPy's nbinom with p := 1 - probs.
    ref = st.nbinom(r, 1 - p)
    close(d.log_prob(t(k)), ref.logpmf(k), rtol=1e-9)
    close(d.mean, ref.mean(), rtol=1e-10)
    close(d.variance, ref.var(), rtol=1e-10)
    close(d.mode, np.maximum(np.floor((r - 1) * p / (1 - p)), 0))
    close(D.NegativeBinomial(t([0.0]), t([0.3])).log_prob(t([0.0])), [0.0])


def test_multinomial():
    w = RNG.uniform(0.1, 1.0, (2, 4))
    p = w / w.sum(-1, keepdims=True)
    d = D.Multinomial(6, probs=t(w))
    x = np.array([[1, 2, 0, 3], [0, 0, 6, 0]], dtype=float)
    close(d.log_prob(t(x)), [st.multinomial(6, p[i]).logpmf(x[i]) for i in range(2)], rtol=1e-10)
    close(d.mean, 6 * p, rtol=1e-12)
    close(d.variance, 6 * p * (1 - p), rtol=1e-12)
    close(d.entropy(), [st.multinomial(6, p[i]).entropy() for i in range(2)], rtol=1e-9)
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        D.Multinomial(t([3.0]), probs=t(w))
