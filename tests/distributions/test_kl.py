"""kl_divergence against independent references: quadrature of p log(p/q) with SciPy's densities for
the univariate pairs, exact sums for the discrete ones, NumPy closed forms for the multivariate
normals and Wishart, Monte Carlo for Dirichlet; infinite pairs; the registry's dispatch rules."""
import math
import warnings

import numpy as np
import pytest
import scipy.integrate as si
import scipy.special as sps
import scipy.stats as st

import ember.distributions as D
from ember.distributions import kl_divergence, register_kl

from ._helpers import close, n, t

RNG = np.random.default_rng(17)


def _cb_logpdf(p):
    c = 2 * np.arctanh(1 - 2 * p) / (1 - 2 * p)
    return lambda x: np.log(c) + x * np.log(p) + (1 - x) * np.log1p(-p)


# Each family: ember constructor from two parameter vectors (batch of 2), SciPy logpdf and support.
FAM = {
    "Normal": (D.Normal, lambda a, b: (st.norm(a, b).logpdf, -np.inf, np.inf), ([0.3, -1.0], [1.2, 0.7])),
    "Laplace": (D.Laplace, lambda a, b: (st.laplace(a, b).logpdf, -np.inf, np.inf), ([0.5, -0.2], [0.9, 1.7])),
    "Exponential": (D.Exponential, lambda a: (st.expon(scale=1 / a).logpdf, 0, np.inf), ([0.8, 2.5],)),
    "Gamma": (D.Gamma, lambda a, b: (st.gamma(a, scale=1 / b).logpdf, 0, np.inf), ([2.5, 0.8], [1.3, 0.6])),
    "Beta": (D.Beta, lambda a, b: (st.beta(a, b).logpdf, 0, 1), ([2.0, 1.5], [3.0, 0.9])),
    "Gumbel": (D.Gumbel, lambda a, b: (st.gumbel_r(a, b).logpdf, -np.inf, np.inf), ([0.1, 1.0], [1.1, 0.6])),
    "Cauchy": (D.Cauchy, lambda a, b: (st.cauchy(a, b).logpdf, -np.inf, np.inf), ([0.0, 2.0], [1.0, 0.5])),
    "Uniform": (D.Uniform, lambda a, b: (st.uniform(a, b - a).logpdf, a, b), ([0.2, 0.1], [0.7, 0.9])),
    "HalfNormal": (D.HalfNormal, lambda a: (st.halfnorm(scale=a).logpdf, 0, np.inf), ([0.7, 2.0],)),
    "Pareto": (D.Pareto, lambda a, b: (st.pareto(b, scale=a).logpdf, a, np.inf), ([1.0, 1.5], [2.5, 3.5])),
    "LogNormal": (D.LogNormal, lambda a, b: (st.lognorm(b, scale=np.exp(a)).logpdf, 0, np.inf),
                  ([0.1, -0.4], [0.5, 0.8])),
    "ContinuousBernoulli": (lambda p: D.ContinuousBernoulli(probs=p), lambda p: (_cb_logpdf(p), 0, 1), ([0.2, 0.85],)),
}

PAIRS = [("Normal", "Normal"), ("Laplace", "Laplace"), ("Exponential", "Exponential"), ("Gamma", "Gamma"),
         ("Beta", "Beta"), ("Gumbel", "Gumbel"), ("Cauchy", "Cauchy"), ("HalfNormal", "HalfNormal"),
         ("Pareto", "Pareto"), ("LogNormal", "LogNormal"), ("ContinuousBernoulli", "ContinuousBernoulli"),
         ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "ContinuousBernoulli"),
         ("Exponential", "Gamma"), ("Exponential", "Gumbel"), ("Exponential", "Normal"), ("Gamma", "Exponential"),
         ("Gamma", "Gumbel"), ("Gamma", "Normal"), ("Gumbel", "Normal"), ("Laplace", "Normal"), ("Normal", "Gumbel"),
         ("Normal", "Laplace"), ("Pareto", "Exponential"), ("Pareto", "Gamma"), ("Pareto", "Normal"),
         ("Uniform", "Beta"), ("Uniform", "Exponential"), ("Uniform", "Gamma"), ("Uniform", "Gumbel"),
         ("Uniform", "Normal"), ("Uniform", "Pareto"), ("ContinuousBernoulli", "Exponential"),
         ("ContinuousBernoulli", "Normal"), ("Uniform", "ContinuousBernoulli"), ("Uniform", "Uniform")]

# q's parameters for pairs where q's support must contain p's (Uniform/Pareto as q).
Q_PARAMS = {("Uniform", "Uniform"): ([0.1, 0.0], [0.8, 1.0]), ("Uniform", "Pareto"): ([0.1, 0.05], [1.5, 2.5])}
P_PARAMS = {("Uniform", "Pareto"): ([0.2, 0.1], [0.7, 0.9]), ("Uniform", "Beta"): ([0.2, 0.1], [0.7, 0.9])}


def _quad_kl(lp, lq, lo, hi):
    def f(x):
        a = lp(x)
        return 0.0 if math.exp(a) == 0.0 else math.exp(a) * (a - lq(x))  # 0 where p's density underflows
    return si.quad(f, lo, hi, limit=400, epsabs=1e-12, epsrel=1e-10)[0]


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_univariate_pairs_against_quadrature(pair):
    pn, qn = pair
    pctor, pref, pparams = FAM[pn]
    qctor, qref, qparams = FAM[qn]
    pparams = P_PARAMS.get(pair, pparams)
    qparams = Q_PARAMS.get(pair, qparams)
    if pair == ("Uniform", "Uniform"):
        pparams = ([0.2, 0.1], [0.7, 0.9])
    p = pctor(*[t(v) for v in pparams])
    q = qctor(*[t(v) for v in qparams])
    want = []
    for i in range(2):
        lp, lo, hi = pref(*[v[i] for v in pparams])
        lq = qref(*[v[i] for v in qparams])[0]
        want.append(_quad_kl(lp, lq, lo, hi))
    close(kl_divergence(p, q), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("p, q", [
    (lambda: D.Normal(t([0.0]), t([1.0])), lambda: D.Exponential(t([1.0]))),
    (lambda: D.Normal(t([0.0]), t([1.0])), lambda: D.Uniform(t([-1.0]), t([1.0]))),
    (lambda: D.Gamma(t([2.0]), t([1.0])), lambda: D.Beta(t([2.0]), t([2.0]))),
    (lambda: D.Exponential(t([1.0])), lambda: D.Pareto(t([1.0]), t([2.0]))),
    (lambda: D.Laplace(t([0.0]), t([1.0])), lambda: D.Gamma(t([1.0]), t([1.0]))),
    (lambda: D.Gumbel(t([0.0]), t([1.0])), lambda: D.Uniform(t([0.0]), t([1.0]))),
    (lambda: D.Poisson(t([2.0])), lambda: D.Bernoulli(t([0.5]))),
    (lambda: D.Uniform(t([0.0]), t([2.0])), lambda: D.Uniform(t([0.5]), t([3.0]))),
    (lambda: D.Uniform(t([-1.0]), t([2.0])), lambda: D.Exponential(t([1.0]))),
    (lambda: D.Pareto(t([1.0]), t([1.0])), lambda: D.Pareto(t([2.0]), t([1.0]))),
    (lambda: D.Pareto(t([1.0]), t([0.9])), lambda: D.Exponential(t([1.0]))),
])
def test_infinite_pairs(p, q):
    assert np.isposinf(n(kl_divergence(p(), q()))).all()


def test_discrete_pairs_against_sums():
    p1, p2 = np.array([0.3, 0.9]), np.array([0.6, 0.2])
    close(kl_divergence(D.Bernoulli(t(p1)), D.Bernoulli(t(p2))),
          p1 * np.log(p1 / p2) + (1 - p1) * np.log((1 - p1) / (1 - p2)), rtol=1e-10)
    w1, w2 = RNG.uniform(0.1, 1, (2, 5)), RNG.uniform(0.1, 1, (2, 5))
    a, b = w1 / w1.sum(-1, keepdims=True), w2 / w2.sum(-1, keepdims=True)
    close(kl_divergence(D.Categorical(t(w1)), D.Categorical(t(w2))), (a * np.log(a / b)).sum(-1), rtol=1e-10)
    close(kl_divergence(D.OneHotCategorical(t(w1)), D.OneHotCategorical(t(w2))), (a * np.log(a / b)).sum(-1),
          rtol=1e-10)
    k = np.arange(0, 400)[:, None]
    g1, g2 = st.geom(p1, loc=-1), st.geom(p2, loc=-1)
    close(kl_divergence(D.Geometric(t(p1)), D.Geometric(t(p2))),
          (g1.pmf(k) * (g1.logpmf(k) - g2.logpmf(k))).sum(0), rtol=1e-9)
    r1, r2 = np.array([2.0, 7.5]), np.array([3.0, 4.0])
    po1, po2 = st.poisson(r1), st.poisson(r2)
    close(kl_divergence(D.Poisson(t(r1)), D.Poisson(t(r2))), (po1.pmf(k) * (po1.logpmf(k) - po2.logpmf(k))).sum(0),
          rtol=1e-9)
    kk = np.arange(0, 11)[:, None]
    b1, b2 = st.binom(10, p1), st.binom(10, p2)
    close(kl_divergence(D.Binomial(10, t(p1)), D.Binomial(10, t(p2))),
          (b1.pmf(kk) * (b1.logpmf(kk) - b2.logpmf(kk))).sum(0), rtol=1e-9)
    close(kl_divergence(D.Bernoulli(t(p1)), D.Poisson(t(r1))),
          [sum(st.bernoulli(p1[i]).pmf(j) * (st.bernoulli(p1[i]).logpmf(j) - st.poisson(r1[i]).logpmf(j))
               for j in (0, 1)) for i in range(2)], rtol=1e-10)
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        kl_divergence(D.Binomial(5, t(p1)), D.Binomial(10, t(p2)))
    assert np.isposinf(n(kl_divergence(D.Binomial(10, t(p1)), D.Binomial(5, t(p2))))).all()


def _mvn_kl(m1, s1, m2, s2):
    k = len(m1)
    s2i = np.linalg.inv(s2)
    d = m2 - m1
    return 0.5 * (np.trace(s2i @ s1) + d @ s2i @ d - k + np.linalg.slogdet(s2)[1] - np.linalg.slogdet(s1)[1])


def _spd(k):
    a = RNG.normal(size=(k, k))
    return a @ a.T + k * np.eye(k)


def test_multivariate_normal_pairs():
    m1, m2 = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    s1, s2 = np.stack([_spd(3), _spd(3)]), np.stack([_spd(3), _spd(3)])
    want = [_mvn_kl(m1[i], s1[i], m2[i], s2[i]) for i in range(2)]
    p, q = D.MultivariateNormal(t(m1), t(s1)), D.MultivariateNormal(t(m2), t(s2))
    close(kl_divergence(p, q), want, rtol=1e-9)
    w1, w2 = RNG.normal(size=(2, 3, 2)), RNG.normal(size=(2, 3, 1))
    d1, d2 = RNG.uniform(0.5, 2, (2, 3)), RNG.uniform(0.5, 2, (2, 3))
    c1 = w1 @ np.swapaxes(w1, -1, -2) + np.stack([np.diag(v) for v in d1])
    c2 = w2 @ np.swapaxes(w2, -1, -2) + np.stack([np.diag(v) for v in d2])
    lp = D.LowRankMultivariateNormal(t(m1), t(w1), t(d1))
    lq = D.LowRankMultivariateNormal(t(m2), t(w2), t(d2))
    close(kl_divergence(lp, lq), [_mvn_kl(m1[i], c1[i], m2[i], c2[i]) for i in range(2)], rtol=1e-9)
    close(kl_divergence(p, lq), [_mvn_kl(m1[i], s1[i], m2[i], c2[i]) for i in range(2)], rtol=1e-9)
    close(kl_divergence(lp, q), [_mvn_kl(m1[i], c1[i], m2[i], s2[i]) for i in range(2)], rtol=1e-9)
    with pytest.raises(ValueError, match="different event shapes"):
        kl_divergence(p, D.MultivariateNormal(t(np.zeros(2)), t(np.eye(2))))


def test_dirichlet_against_monte_carlo():
    a, b = np.array([2.0, 0.7, 3.0]), np.array([1.0, 1.5, 2.0])
    x = np.random.default_rng(0).dirichlet(a, size=200000)
    lr = st.dirichlet(a).logpdf(x.T) - st.dirichlet(b).logpdf(x.T)
    got = float(n(kl_divergence(D.Dirichlet(t(a)), D.Dirichlet(t(b)))))
    assert abs(got - lr.mean()) < 4 * lr.std() / math.sqrt(x.shape[0])


def _mvdigamma(x, p):
    return sum(sps.digamma(x - j / 2) for j in range(p))


def test_wishart_uses_the_exponential_family_bregman_divergence():
    s1, s2 = _spd(3), _spd(3)
    n1, n2 = 5.0, 7.5
    p3 = 3
    want = (n2 / 2 * (np.linalg.slogdet(s2)[1] - np.linalg.slogdet(s1)[1])
            + n1 / 2 * (np.trace(np.linalg.solve(s2, s1)) - p3)
            + sps.multigammaln(n2 / 2, p3) - sps.multigammaln(n1 / 2, p3) + (n1 - n2) / 2 * _mvdigamma(n1 / 2, p3))
    got = kl_divergence(D.Wishart(t(n1), covariance_matrix=t(s1)), D.Wishart(t(n2), covariance_matrix=t(s2)))
    close(got, want, rtol=1e-8)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        from ember.distributions.kl import _kl_expfamily_expfamily
        _kl_expfamily_expfamily(D.Poisson(t([1.0])), D.Exponential(t([1.0])))


def _normal_kl(m1, s1, m2, s2):
    """KL(N(m1, s1^2) || N(m2, s2^2)) in closed form."""
    m1, s1, m2, s2 = (np.asarray(v, dtype=np.float64) for v in (m1, s1, m2, s2))
    return np.log(s2 / s1) + (s1 ** 2 + (m1 - m2) ** 2) / (2 * s2 ** 2) - 0.5


def test_independent_and_transformed():
    p = D.Independent(D.Normal(t([[0.0, 1.0]]), t([[1.0, 2.0]])), 1)
    q = D.Independent(D.Normal(t([[0.5, 0.0]]), t([[1.5, 1.0]])), 1)
    close(kl_divergence(p, q), [_normal_kl([0.0, 1.0], [1.0, 2.0], [0.5, 0.0], [1.5, 1.0]).sum()], rtol=1e-12)
    # An invertible map leaves the KL unchanged: that of the log-normals is their normals'.
    tr = [D.transforms.ExpTransform()]
    tp = D.TransformedDistribution(D.Normal(t([0.0]), t([1.0])), tr)
    tq = D.TransformedDistribution(D.Normal(t([1.0]), t([2.0])), tr)
    close(kl_divergence(tp, tq), _normal_kl([0.0], [1.0], [1.0], [2.0]), rtol=1e-12)
    with pytest.raises(NotImplementedError):
        kl_divergence(tp, D.TransformedDistribution(D.Normal(t([1.0]), t([2.0])), [D.transforms.SigmoidTransform()]))


def test_registry_most_specific_match_and_ambiguity():
    class A(D.Normal):
        pass

    class B(A):
        pass

    @register_kl(A, D.Normal)
    def kl_a_normal(p, q):
        return t(1.0)

    @register_kl(D.Normal, A)
    def kl_normal_a(p, q):
        return t(2.0)

    @register_kl(B, B)
    def kl_b_b(p, q):
        return t(3.0)

    a, b, plain = A(t(0.0), t(1.0)), B(t(0.0), t(1.0)), D.Normal(t(0.0), t(1.0))
    assert float(kl_divergence(a, plain)) == 1.0
    assert float(kl_divergence(plain, a)) == 2.0
    assert float(kl_divergence(b, b)) == 3.0
    # (A, A) matches (A, Normal) and (Normal, A) equally: a RuntimeWarning, and the left-first choice.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert float(kl_divergence(a, a)) == 1.0
    assert any(issubclass(x.category, RuntimeWarning) and "Ambiguous kl_divergence(A, A)" in str(x.message) for x in w)
    with pytest.raises(NotImplementedError,
                       match="No KL\\(p \\|\\| q\\) is implemented for p type VonMises and q type Normal"):
        kl_divergence(D.VonMises(t(0.0), t(1.0)), plain)
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        register_kl(int, D.Normal)
