"""Samples at fixed seeds against the laws: Kolmogorov-Smirnov against SciPy's cdf for the continuous
families, chi-square against SciPy's pmf for the discrete ones, moments within a few standard errors
for the multivariate ones."""
import numpy as np
import pytest
import scipy.special as sps
import scipy.stats as st

import ember
import ember.distributions as D

from ._helpers import n, t

N = 20000
P_MIN = 1e-3  # fixed seeds: a p-value is deterministic; a correct sampler passes with margin


def _ks(sample, cdf):
    return st.kstest(np.asarray(sample).ravel(), cdf).pvalue


CONTINUOUS = {
    "Normal": (lambda: D.Normal(t(0.7), t(1.8)), st.norm(0.7, 1.8).cdf),
    "Uniform": (lambda: D.Uniform(t(-1.0), t(2.5)), st.uniform(-1, 3.5).cdf),
    "Exponential": (lambda: D.Exponential(t(2.5)), st.expon(scale=0.4).cdf),
    "Laplace": (lambda: D.Laplace(t(-0.5), t(0.8)), st.laplace(-0.5, 0.8).cdf),
    "Cauchy": (lambda: D.Cauchy(t(0.3), t(1.5)), st.cauchy(0.3, 1.5).cdf),
    "HalfNormal": (lambda: D.HalfNormal(t(1.3)), st.halfnorm(scale=1.3).cdf),
    "HalfCauchy": (lambda: D.HalfCauchy(t(0.7)), st.halfcauchy(scale=0.7).cdf),
    "LogNormal": (lambda: D.LogNormal(t(0.2), t(0.6)), st.lognorm(0.6, scale=np.exp(0.2)).cdf),
    "Gumbel": (lambda: D.Gumbel(t(1.0), t(2.0)), st.gumbel_r(1.0, 2.0).cdf),
    "Gamma": (lambda: D.Gamma(t(0.6), t(2.0)), st.gamma(0.6, scale=0.5).cdf),
    "Gamma_large": (lambda: D.Gamma(t(25.0), t(0.5)), st.gamma(25.0, scale=2.0).cdf),
    "Chi2": (lambda: D.Chi2(t(3.0)), st.chi2(3.0).cdf),
    "Beta": (lambda: D.Beta(t(0.7), t(2.5)), st.beta(0.7, 2.5).cdf),
    "StudentT": (lambda: D.StudentT(t(2.5), t(1.0), t(0.5)), st.t(2.5, 1.0, 0.5).cdf),
    "FisherSnedecor": (lambda: D.FisherSnedecor(t(4.0), t(7.0)), st.f(4.0, 7.0).cdf),
    "Weibull": (lambda: D.Weibull(t(1.5), t(0.8)), st.weibull_min(0.8, scale=1.5).cdf),
    "Pareto": (lambda: D.Pareto(t(2.0), t(3.0)), st.pareto(3.0, scale=2.0).cdf),
    # Samples live on [-pi, pi), SciPy's around loc: compared as the angle from loc, wrapped.
    "VonMises": (lambda: D.VonMises(t(0.5), t(2.0)), st.vonmises(2.0).cdf, lambda x: _wrap(x - 0.5)),
    "VonMises_small": (lambda: D.VonMises(t(-1.0), t(1e-3)), st.vonmises(1e-3).cdf, lambda x: _wrap(x + 1.0)),
    "Kumaraswamy": (lambda: D.Kumaraswamy(t(2.0), t(3.0)), lambda x: 1 - (1 - np.clip(x, 0, 1) ** 2) ** 3),
    "ContinuousBernoulli": (lambda: D.ContinuousBernoulli(t(0.2)),
                            lambda x: (0.2 ** x * 0.8 ** (1 - x) + 0.2 - 1) / (2 * 0.2 - 1)),
    "RelaxedBernoulli": (lambda: D.RelaxedBernoulli(t(0.7), t(0.3)),
                         lambda x: sps.expit(0.7 * sps.logit(x) - sps.logit(0.3))),
    "Mixture": (lambda: D.MixtureSameFamily(D.Categorical(t([0.3, 0.7])), D.Normal(t([-2.0, 1.0]), t([0.5, 1.0]))),
                lambda x: 0.3 * st.norm(-2, 0.5).cdf(x) + 0.7 * st.norm(1, 1).cdf(x)),
}


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_law(name):
    make, cdf, *pre = CONTINUOUS[name]
    pre = pre[0] if pre else (lambda x: x)
    ember.manual_seed(2024)
    d = make()
    x = d.sample((N,))
    assert tuple(x.shape) == (N,) and x.dtype == ember.float64
    assert _ks(pre(n(x)), cdf) > P_MIN
    if d.has_rsample:
        ember.manual_seed(7)
        assert _ks(pre(n(d.rsample((N,)))), cdf) > P_MIN


def test_float32_sampling():
    ember.manual_seed(1)
    for d, cdf in ((D.Gamma(ember.tensor(2.0), ember.tensor(1.0)), st.gamma(2.0).cdf),
                   (D.Normal(ember.tensor(0.0), ember.tensor(1.0)), st.norm().cdf),
                   (D.Beta(ember.tensor(2.0), ember.tensor(5.0)), st.beta(2.0, 5.0).cdf)):
        x = d.sample((N,))
        assert x.dtype == ember.float32 and _ks(n(x), cdf) > P_MIN


def _chi2(sample, pmf, support):
    counts = np.array([(sample == k).sum() for k in support], dtype=float)
    exp = pmf(support) * sample.size
    keep = exp >= 5
    obs = np.append(counts[keep], sample.size - counts[keep].sum())
    ex = np.append(exp[keep], sample.size - exp[keep].sum())
    if ex[-1] < 1e-6:
        obs, ex = obs[:-1], ex[:-1]
    return st.chisquare(obs, ex).pvalue


DISCRETE = {
    "Bernoulli": (lambda: D.Bernoulli(t(0.3)), st.bernoulli(0.3).pmf, np.arange(2)),
    "Binomial": (lambda: D.Binomial(t(30.0), t(0.6)), st.binom(30, 0.6).pmf, np.arange(31)),
    "Geometric": (lambda: D.Geometric(t(0.25)), st.geom(0.25, loc=-1).pmf, np.arange(60)),
    "Poisson": (lambda: D.Poisson(t(4.5)), st.poisson(4.5).pmf, np.arange(30)),
    "Poisson_large": (lambda: D.Poisson(t(40.0)), st.poisson(40.0).pmf, np.arange(100)),
    "NegativeBinomial": (lambda: D.NegativeBinomial(t(3.5), t(0.4)), st.nbinom(3.5, 0.6).pmf, np.arange(60)),
    "Categorical": (lambda: D.Categorical(t([0.1, 0.2, 0.3, 0.4])), lambda k: np.array([0.1, 0.2, 0.3, 0.4])[k],
                    np.arange(4)),
}


@pytest.mark.parametrize("name", sorted(DISCRETE))
def test_discrete_law(name):
    make, pmf, support = DISCRETE[name]
    ember.manual_seed(99)
    x = n(make().sample((N,)))
    assert _chi2(x, pmf, support) > P_MIN


def test_one_hot_and_multinomial_and_relaxed_categorical():
    ember.manual_seed(5)
    p = np.array([0.2, 0.5, 0.3])
    oh = n(D.OneHotCategorical(t(p)).sample((N,)))
    assert ((oh == 0) | (oh == 1)).all() and (oh.sum(-1) == 1).all()
    assert _chi2(oh.argmax(-1), lambda k: p[k], np.arange(3)) > P_MIN
    m = n(D.Multinomial(10, t(p)).sample((N,)))
    assert (m.sum(-1) == 10).all()
    assert _chi2(m[:, 1], st.binom(10, 0.5).pmf, np.arange(11)) > P_MIN
    r = n(D.RelaxedOneHotCategorical(t(0.5), t(p)).sample((N,)))
    np.testing.assert_allclose(r.sum(-1), 1.0, rtol=1e-10)
    # The argmax of a Gumbel-softmax draw is an exact Categorical(p) draw.
    assert _chi2(r.argmax(-1), lambda k: p[k], np.arange(3)) > P_MIN
    st_ = D.OneHotCategoricalStraightThrough(t(p)).rsample((5,))
    assert ((n(st_) == 0) | (n(st_) == 1)).all()


def test_dirichlet_marginals_are_beta():
    ember.manual_seed(3)
    a = np.array([0.5, 2.0, 3.5])
    x = n(D.Dirichlet(t(a)).sample((N,)))
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    for i in range(3):
        assert _ks(x[:, i], st.beta(a[i], a.sum() - a[i]).cdf) > P_MIN


def _assert_mean_cov(x, mean, cov, k=5.0):
    se = np.sqrt(np.diagonal(cov) / x.shape[0])
    assert (np.abs(x.mean(0) - mean) < k * se).all()
    np.testing.assert_allclose(np.cov(x.T), cov, atol=k * np.sqrt(2.0 / x.shape[0]) * np.abs(cov).max())


def test_multivariate_normals():
    ember.manual_seed(11)
    mean = np.array([1.0, -2.0, 0.5])
    a = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-0.3, 0.2, 1.1]])
    cov = a @ a.T
    _assert_mean_cov(n(D.MultivariateNormal(t(mean), t(cov)).rsample((N,))), mean, cov)
    _assert_mean_cov(n(D.MultivariateNormal(t(mean), precision_matrix=t(np.linalg.inv(cov))).sample((N,))), mean, cov)
    w, dg = np.array([[1.0], [0.5], [-1.0]]), np.array([0.5, 1.0, 0.2])
    _assert_mean_cov(n(D.LowRankMultivariateNormal(t(mean), t(w), t(dg)).rsample((N,))), mean, w @ w.T + np.diag(dg))
    for i in range(3):
        ember.manual_seed(i)
        x = n(D.MultivariateNormal(t(mean), t(cov)).sample((N,)))[:, i]
        assert _ks(x, st.norm(mean[i], np.sqrt(cov[i, i])).cdf) > P_MIN


def test_wishart_and_lkj():
    ember.manual_seed(13)
    s = np.array([[2.0, 0.5], [0.5, 1.0]])
    x = n(D.Wishart(t(5.0), covariance_matrix=t(s)).rsample((N,)))
    ref = st.wishart(5.0, s)
    se = np.sqrt(ref.var() / N)
    assert (np.abs(x.mean(0) - ref.mean()) < 5 * se).all()
    # Diagonal entries: W_ii / S_ii ~ Chi2(df).
    assert _ks(x[:, 0, 0] / 2.0, st.chi2(5.0).cdf) > P_MIN
    # LKJ in dimension 2 with concentration eta: (r + 1) / 2 ~ Beta(eta, eta) for the correlation r.
    for eta in (0.5, 3.0):
        ember.manual_seed(17)
        chol = n(D.LKJCholesky(2, t(eta)).sample((N,)))
        assert _ks((chol[:, 1, 0] + 1) / 2, st.beta(eta, eta).cdf) > P_MIN


def test_seeds_reproduce_samples():
    for make in (lambda: D.Gamma(t([0.5, 3.0]), t(1.0)), lambda: D.Binomial(t(20.0), t(0.3)),
                 lambda: D.VonMises(t(0.0), t(1.0)), lambda: D.Dirichlet(t([1.0, 2.0])),
                 lambda: D.Categorical(t([0.5, 0.5]))):
        ember.manual_seed(8)
        a = make().sample((10,)).tolist()
        ember.manual_seed(8)
        assert make().sample((10,)).tolist() == a
