"""log_prob, cdf, icdf, entropy, mean, variance (and mode) of the continuous univariate families
against scipy.stats, in float64, with parameters of shapes (3, 1) and (4,) broadcast to (3, 4)."""
import numpy as np
import pytest
import scipy.special as sps
import scipy.stats as st

import ember
import ember.distributions as D

from ._helpers import close, n, t

RNG = np.random.default_rng(1234)


def _pos(shape, lo=0.5, hi=3.0):
    return RNG.uniform(lo, hi, shape)


def _real(shape):
    return RNG.uniform(-2.0, 2.0, shape)


# name -> (parameters (NumPy), ember constructor, SciPy frozen distribution, points inside the support)
def _cases():
    a1, a2 = (3, 1), (4,)
    c = {}
    loc, scale = _real(a1), _pos(a2)
    c["Normal"] = ((loc, scale), D.Normal, st.norm(loc, scale), _real((3, 4)) * 2)
    lo, width = _real(a1), _pos(a2)
    c["Uniform"] = ((lo, lo + width), D.Uniform, st.uniform(lo, width), lo + width * RNG.uniform(0.05, 0.95, (3, 4)))
    rate = _pos(a2)
    c["Exponential"] = ((rate,), D.Exponential, st.expon(scale=1 / rate), _pos((3, 4), 0.1, 4))
    c["Laplace"] = ((loc, scale), D.Laplace, st.laplace(loc, scale), _real((3, 4)) * 2)
    c["Cauchy"] = ((loc, scale), D.Cauchy, st.cauchy(loc, scale), _real((3, 4)) * 3)
    c["HalfNormal"] = ((scale,), D.HalfNormal, st.halfnorm(scale=scale), _pos((3, 4), 0.01, 4))
    c["HalfCauchy"] = ((scale,), D.HalfCauchy, st.halfcauchy(scale=scale), _pos((3, 4), 0.01, 6))
    s = _pos(a2, 0.2, 1.0)
    c["LogNormal"] = ((loc, s), D.LogNormal, st.lognorm(s=s, scale=np.exp(loc)), _pos((3, 4), 0.05, 5))
    c["Gumbel"] = ((loc, scale), D.Gumbel, st.gumbel_r(loc, scale), _real((3, 4)) * 2)
    conc = _pos(a1, 0.3, 4)
    c["Gamma"] = ((conc, rate), D.Gamma, st.gamma(conc, scale=1 / rate), _pos((3, 4), 0.05, 5))
    df = _pos(a2, 0.5, 6)
    c["Chi2"] = ((df,), D.Chi2, st.chi2(df), _pos((3, 4), 0.05, 8))
    b1, b0 = _pos(a1, 0.5, 4), _pos(a2, 0.5, 4)
    c["Beta"] = ((b1, b0), D.Beta, st.beta(b1, b0), RNG.uniform(0.02, 0.98, (3, 4)))
    dft = np.array([0.8, 1.5, 3.0, 7.0])
    c["StudentT"] = ((dft, loc, scale), D.StudentT, st.t(dft, loc, scale), _real((3, 4)) * 3)
    d1, d2 = _pos(a1, 1.0, 8), np.array([1.5, 3.0, 5.0, 9.0])
    c["FisherSnedecor"] = ((d1, d2), D.FisherSnedecor, st.f(d1, d2), _pos((3, 4), 0.05, 4))
    k = np.array([0.7, 1.0, 2.0, 3.5])
    c["Weibull"] = ((scale, k), D.Weibull, st.weibull_min(k, scale=scale), _pos((3, 4), 0.05, 4))
    ps, alpha = _pos(a1, 0.5, 2), np.array([0.8, 1.5, 2.5, 4.0])
    c["Pareto"] = ((ps, alpha), D.Pareto, st.pareto(alpha, scale=ps), ps + _pos((3, 4), 0.01, 3))
    vk = _pos(a2, 0.1, 8)
    c["VonMises"] = ((loc, vk), D.VonMises, st.vonmises(vk, loc=loc), RNG.uniform(-np.pi, np.pi, (3, 4)))
    return c


CASES = _cases()
HAS_CDF = {"Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "HalfNormal", "HalfCauchy", "LogNormal", "Gumbel",
           "Gamma", "Chi2", "Weibull", "Pareto"}
HAS_ICDF = HAS_CDF - {"Gamma", "Chi2"}
NO_ENTROPY = {"VonMises", "FisherSnedecor"}  # as PyTorch: not implemented
# Moments SciPy gives as the linear ones where ember (like PyTorch) has circular ones, or checked below.
NO_MOMENTS = {"VonMises", "Cauchy"}


def _batch(name):
    return np.broadcast_shapes(*[np.shape(p) for p in CASES[name][0]])


def _make(name):
    params, ctor, ref, x = CASES[name]
    return ctor(*[t(p) for p in params]), ref, x


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob(name):
    d, ref, x = _make(name)
    assert tuple(d.batch_shape) == _batch(name)
    close(d.log_prob(t(x)), ref.logpdf(x), rtol=1e-8)


@pytest.mark.parametrize("name", sorted(HAS_CDF))
def test_cdf(name):
    d, ref, x = _make(name)
    close(d.cdf(t(x)), ref.cdf(x), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("name", sorted(HAS_ICDF))
def test_icdf(name):
    d, ref, _ = _make(name)
    q = RNG.uniform(0.02, 0.98, (3, 4))
    close(d.icdf(t(q)), ref.ppf(q), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("name", sorted(set(CASES) - NO_ENTROPY))
def test_entropy(name):
    d, ref, _ = _make(name)
    close(d.entropy(), np.broadcast_to(ref.entropy(), _batch(name)), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("name", sorted(set(CASES) - NO_MOMENTS))
def test_mean_variance_stddev(name):
    d, ref, _ = _make(name)
    mean, var = ref.stats(moments="mv")
    mean, var = np.broadcast_to(mean, _batch(name)), np.broadcast_to(var, _batch(name))
    # Where SciPy's moments are not finite, PyTorch's conventions apply (test_undefined_moments).
    fm, fv = np.isfinite(mean), np.isfinite(var)
    np.testing.assert_allclose(n(d.mean)[fm], mean[fm], rtol=1e-8)
    np.testing.assert_allclose(n(d.variance)[fv], var[fv], rtol=1e-8)
    np.testing.assert_allclose(n(d.stddev)[fv], np.sqrt(var[fv]), rtol=1e-8)


def test_undefined_moments_follow_pytorch():
    # StudentT: mean NaN for df <= 1; variance inf for 1 < df <= 2, NaN for df <= 1.
    d, _, _ = _make("StudentT")
    m, v = n(d.mean), n(d.variance)
    assert np.isnan(m[:, 0]).all() and np.isnan(v[:, 0]).all() and np.isposinf(v[:, 1]).all()
    # FisherSnedecor: mean NaN for df2 <= 2, variance NaN for df2 <= 4.
    d, _, _ = _make("FisherSnedecor")
    assert np.isnan(n(d.mean)[:, 0]).all() and np.isnan(n(d.variance)[:, :2]).all()
    # HalfCauchy: mean and variance inf. Pareto: mean inf for alpha <= 1, variance inf for alpha <= 2.
    d, _, _ = _make("HalfCauchy")
    assert np.isposinf(n(d.mean)).all() and np.isposinf(n(d.variance)).all()
    d, _, _ = _make("Pareto")
    assert np.isposinf(n(d.mean)[:, 0]).all() and np.isposinf(n(d.variance)[:, :2]).all()


def test_cauchy_moments_as_pytorch():
    d, _, _ = _make("Cauchy")
    assert np.isnan(n(d.mean)).all() and np.isposinf(n(d.variance)).all()


def test_von_mises_circular_moments():
    d, _, _ = _make("VonMises")
    loc, k = (np.broadcast_to(p, (3, 4)) for p in CASES["VonMises"][0])
    close(d.mean, loc)
    close(d.variance, 1 - sps.i1e(k) / sps.i0e(k), rtol=1e-10)


@pytest.mark.parametrize("name, expected", [
    ("Normal", lambda p: p[0]),
    ("Laplace", lambda p: p[0]),
    ("Cauchy", lambda p: p[0]),
    ("Gumbel", lambda p: p[0]),
    ("LogNormal", lambda p: np.exp(p[0] - p[1] ** 2)),
    ("Gamma", lambda p: np.maximum((p[0] - 1) / p[1], 0)),
    ("Exponential", lambda p: np.zeros_like(p[0])),
    ("Beta", lambda p: np.where((p[0] > 1) & (p[1] > 1), (p[0] - 1) / (p[0] + p[1] - 2), np.nan)),
    ("Weibull", lambda p: np.where(p[1] > 1, p[0] * np.abs((p[1] - 1) / p[1]) ** (1 / p[1]), 0.0)),
    ("Pareto", lambda p: p[0]),
    ("StudentT", lambda p: p[1]),
])
def test_mode(name, expected):
    d, ref, x = _make(name)
    params = [np.broadcast_to(p, _batch(name)) for p in CASES[name][0]]
    want = np.broadcast_to(expected(params), _batch(name))
    if name == "Beta":
        # Where a mode exists, the density is largest there (checked with SciPy around it).
        got = n(d.mode)
        ok = ~np.isnan(want)
        np.testing.assert_allclose(got[ok], want[ok], rtol=1e-10)
        return
    close(d.mode, want, rtol=1e-10)


def test_kumaraswamy_against_numpy():
    a, b = np.array([[0.7], [2.0], [3.5]]), np.array([0.8, 1.5, 2.5, 5.0])
    d = D.Kumaraswamy(t(a), t(b))
    x = RNG.uniform(0.02, 0.98, (3, 4))
    close(d.log_prob(t(x)), np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-x ** a), rtol=1e-8)
    close(d.cdf(t(x)), 1 - (1 - x ** a) ** b, rtol=1e-8)
    q = RNG.uniform(0.02, 0.98, (3, 4))
    close(d.icdf(t(q)), (1 - (1 - q) ** (1 / b)) ** (1 / a), rtol=1e-8)
    m1 = b * sps.beta(1 + 1 / a, b)
    m2 = b * sps.beta(1 + 2 / a, b)
    close(d.mean, m1, rtol=1e-8)
    close(d.variance, m2 - m1 ** 2, rtol=1e-7)
    # Entropy by quadrature of -p log p.
    from scipy.integrate import quad
    ent = np.array([[quad(lambda u: -np.exp(lp(u, ai, bi)) * lp(u, ai, bi), 0, 1)[0] for bi in b] for ai in a[:, 0]])
    close(d.entropy(), ent, rtol=1e-6)
    mode = np.where((a >= 1) & (b >= 1), ((a - 1) / (a * b - 1)) ** (1 / a), np.nan)
    close(d.mode, np.broadcast_to(mode, (3, 4)), rtol=1e-10)


def lp(u, a, b):
    return np.log(a * b) + (a - 1) * np.log(u) + (b - 1) * np.log1p(-u ** a)


def test_continuous_bernoulli_against_numpy():
    p = np.array([0.1, 0.3, 0.4995, 0.5004, 0.8, 0.97])
    d = D.ContinuousBernoulli(probs=t(p))
    x = RNG.uniform(0.01, 0.99, (2, 6))
    c = 2 * np.arctanh(1 - 2 * p) / (1 - 2 * p)  # the normalizer (no p is exactly 1/2)
    close(d.log_prob(t(x)), np.log(c) + x * np.log(p) + (1 - x) * np.log1p(-p), rtol=1e-5)
    # mean and variance by quadrature of the density
    from scipy.integrate import quad
    dens = [lambda u, pi=pi, ci=ci: ci * pi ** u * (1 - pi) ** (1 - u) for pi, ci in zip(p, c)]
    mean = np.array([quad(lambda u: u * f(u), 0, 1)[0] for f in dens]) / np.array([quad(f, 0, 1)[0] for f in dens])
    close(d.mean, mean, rtol=1e-5)
    var = np.array([quad(lambda u: (u - m) ** 2 * f(u), 0, 1)[0] for f, m in zip(dens, mean)]) / \
        np.array([quad(f, 0, 1)[0] for f in dens])
    close(d.variance, var, rtol=1e-4)
    cdf = np.array([[quad(f, 0, xi)[0] / quad(f, 0, 1)[0] for f, xi in zip(dens, row)] for row in x])
    # Inside lims (0.499, 0.501) the cdf is the uniform one (PyTorch's approximation there).
    stable = (p <= 0.499) | (p > 0.501)
    close(d.cdf(t(x))[:, stable], cdf[:, stable], rtol=1e-5)
    close(d.cdf(t(x))[:, ~stable], x[:, ~stable])
    np.testing.assert_allclose(x[:, ~stable], cdf[:, ~stable], atol=1e-3)
    close(d.icdf(d.cdf(t(x))), x, rtol=1e-6)


def test_float32_parameters_give_float32():
    d = D.Gamma(ember.tensor([2.0, 3.0]), ember.tensor([1.0, 0.5]))
    assert d.log_prob(ember.tensor([1.0, 2.0])).dtype == ember.float32
    assert d.sample((5,)).dtype == ember.float32


def test_inverse_gamma_against_scipy():
    a, b = np.array([[0.7], [2.5], [4.0]]), np.array([0.5, 1.5])
    d = D.InverseGamma(t(a), t(b))
    ref = st.invgamma(a, scale=b)
    x = RNG.uniform(0.05, 4, (3, 2))
    close(d.log_prob(t(x)), ref.logpdf(x), rtol=1e-9)
    close(d.cdf(t(x)), ref.cdf(x), rtol=1e-8)
    close(d.entropy(), ref.entropy(), rtol=1e-9)
    close(d.mode, np.broadcast_to(b / (a + 1), (3, 2)), rtol=1e-12)
    mean, var = ref.stats(moments="mv")
    close(d.mean, np.where(a > 1, mean, np.inf), rtol=1e-9)
    close(d.variance, np.where(a > 2, var, np.inf), rtol=1e-9)


def test_logistic_normal_two_categories():
    # K = 2: y = (z, 1 - z) with z = sigmoid(x), x ~ Normal(loc, scale): density N(logit z) / (z (1 - z)).
    loc, scale = np.array([[0.3], [-1.0]]), np.array([[0.7], [1.4]])
    d = D.LogisticNormal(t(loc), t(scale))
    assert tuple(d.event_shape) == (2,) and tuple(d.batch_shape) == (2,)
    z = np.array([0.2, 0.75])
    y = np.stack([z, 1 - z], -1)
    want = st.norm(loc[:, 0], scale[:, 0]).logpdf(np.log(z / (1 - z))) - np.log(z * (1 - z))
    close(d.log_prob(t(y)), want, rtol=1e-9)
    ember.manual_seed(0)
    s = n(d.sample((4000,)))
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    assert st.kstest(np.log(s[:, 0, 0] / s[:, 0, 1]), st.norm(0.3, 0.7).cdf).pvalue > 1e-3


def test_generalized_pareto_against_scipy():
    loc, scale, c = np.array([[0.5], [-1.0]]), np.array([0.7, 1.5, 2.0]), np.array([-0.3, 0.0, 0.4])
    d = D.GeneralizedPareto(t(loc), t(scale), t(c))
    ref = st.genpareto(c, loc=loc, scale=scale)
    u = RNG.uniform(0.05, 0.95, (2, 3))
    x = ref.ppf(u)
    close(d.log_prob(t(x)), ref.logpdf(x), rtol=1e-9)
    close(d.cdf(t(x)), u, rtol=1e-9)
    close(d.icdf(t(u)), x, rtol=1e-9)
    close(d.entropy(), np.broadcast_to(ref.entropy(), (2, 3)), rtol=1e-9)
    mean, var = ref.stats(moments="mv")
    close(d.mean, np.broadcast_to(mean, (2, 3)), rtol=1e-9)
    close(d.variance, np.broadcast_to(var, (2, 3)), rtol=1e-9)
    ember.manual_seed(4)
    s = n(D.GeneralizedPareto(t(0.5), t(0.7), t(0.4)).rsample((20000,)))
    assert st.kstest(s, st.genpareto(0.4, loc=0.5, scale=0.7).cdf).pvalue > 1e-3
