"""Gradients: rsample of the location-scale and transformed families by gradcheck (the noise fixed by
reseeding inside the function), the Gamma-based rsample gradients by Monte Carlo against the
derivatives of their means, and log_prob/entropy/KL by gradcheck in the parameters."""
import numpy as np
import pytest

import ember
import ember.distributions as D
from ember.autograd import gradcheck

from ._helpers import n, t


def _seeded(fn):
    def wrapped(*params):
        ember.manual_seed(123)
        return fn(*params)
    return wrapped


RSAMPLE = {
    "Normal": (lambda a, b: D.Normal(a, b), ([0.3, -1.0], [0.8, 1.5])),
    "Uniform": (lambda a, b: D.Uniform(a, a + b), ([0.3, -1.0], [0.8, 1.5])),
    "Exponential": (lambda a: D.Exponential(a), ([0.7, 2.0],)),
    "Laplace": (lambda a, b: D.Laplace(a, b), ([0.3, -1.0], [0.8, 1.5])),
    "Cauchy": (lambda a, b: D.Cauchy(a, b), ([0.3, -1.0], [0.8, 1.5])),
    "HalfNormal": (lambda b: D.HalfNormal(b), ([0.8, 1.5],)),
    "HalfCauchy": (lambda b: D.HalfCauchy(b), ([0.8, 1.5],)),
    "LogNormal": (lambda a, b: D.LogNormal(a, b), ([0.3, -1.0], [0.8, 0.5])),
    "Gumbel": (lambda a, b: D.Gumbel(a, b), ([0.3, -1.0], [0.8, 1.5])),
    "Weibull": (lambda a, b: D.Weibull(a, b), ([0.8, 1.5], [1.2, 2.5])),
    "Pareto": (lambda a, b: D.Pareto(a, b), ([0.8, 1.5], [1.2, 2.5])),
    "Kumaraswamy": (lambda a, b: D.Kumaraswamy(a, b), ([0.8, 1.5], [1.2, 2.5])),
    "ContinuousBernoulli": (lambda p: D.ContinuousBernoulli(p), ([0.2, 0.7],)),
    "RelaxedBernoulli": (lambda tau, p: D.RelaxedBernoulli(tau, p), ([0.6, 1.3], [0.2, 0.7])),
    "RelaxedOneHotCategorical": (lambda tau, lg: D.RelaxedOneHotCategorical(tau, logits=lg), ([0.7], [0.1, -0.5, 1.0])),
    "MultivariateNormal": (lambda m, a: D.MultivariateNormal(
                               m, scale_tril=a.tril(-1) + D.utils.diag_embed(a.diagonal().exp())),
                           ([0.3, -1.0], [[0.1, 0.0], [0.5, -0.2]])),
    "LowRankMultivariateNormal": (lambda m, w, d: D.LowRankMultivariateNormal(m, w, d),
                                  ([0.3, -1.0], [[0.5], [-1.0]], [0.6, 1.2])),
    "Independent": (lambda a, b: D.Independent(D.Normal(a, b), 1), ([0.3, -1.0], [0.8, 1.5])),
}


@pytest.mark.parametrize("name", sorted(RSAMPLE))
def test_rsample_gradcheck(name):
    make, params = RSAMPLE[name]
    inputs = [t(p, requires_grad=True) for p in params]
    assert make(*inputs).has_rsample
    assert gradcheck(_seeded(lambda *ps: make(*ps).rsample((3,))), inputs)


@pytest.mark.parametrize("case", [
    # family, params, statistic, its exact gradient
    ("Gamma", lambda a, b: D.Gamma(a, b), ([0.6, 3.0], [2.0, 0.5]), lambda x: x,
     lambda a, b: [1 / b, -a / b ** 2]),
    ("Chi2", lambda d: D.Chi2(d), ([0.8, 5.0],), lambda x: x, lambda d: [np.ones_like(d)]),
    ("Beta", lambda a, b: D.Beta(a, b), ([0.7, 2.0], [1.5, 0.4]), lambda x: x,
     lambda a, b: [b / (a + b) ** 2, -a / (a + b) ** 2]),
    ("Dirichlet", lambda a: D.Dirichlet(a), ([0.7, 2.0, 1.2],), lambda x: x[..., 0],
     lambda a: [np.array([(a.sum() - a[0]) / a.sum() ** 2, -a[0] / a.sum() ** 2, -a[0] / a.sum() ** 2])]),
    ("StudentT", lambda df, s: D.StudentT(df, 0.0, s), ([4.0, 6.0], [0.5, 2.0]), lambda x: x ** 2,
     lambda df, s: [-2 * s ** 2 / (df - 2) ** 2, 2 * s * df / (df - 2)]),
    ("FisherSnedecor", lambda d1, d2: D.FisherSnedecor(d1, d2), ([3.0, 6.0], [7.0, 9.0]), lambda x: x,
     lambda d1, d2: [np.zeros_like(d1), -2 / (d2 - 2) ** 2]),
], ids=lambda c: c[0] if isinstance(c, tuple) else "")
def test_gamma_based_rsample_gradients_by_monte_carlo(case):
    _, make, params, f, exact = case
    ps = [t(p, requires_grad=True) for p in params]
    grads = []
    for seed in range(4):  # 4 independent estimates: their spread gives the tolerance
        ember.manual_seed(seed)
        x = make(*ps).rsample((20000,))
        grads.append([n(g) for g in ember.autograd.grad(f(x).mean(0).sum(), ps)])
    want = exact(*[np.asarray(p, dtype=float) for p in params])
    for i, w in enumerate(want):
        est = np.stack([g[i] for g in grads])
        se = est.std(0, ddof=1) / 2 + 1e-3 * np.abs(w) + 1e-4
        assert (np.abs(est.mean(0) - w) < 5 * se).all(), (est.mean(0), w)


def test_wishart_rsample_gradient_in_df():
    s = t([[2.0, 0.5], [0.5, 1.0]])
    df = t(4.0, requires_grad=True)
    ember.manual_seed(1)
    x = D.Wishart(df, covariance_matrix=s).rsample((20000,))
    (g,) = ember.autograd.grad(x.mean(0).sum(), [df])  # d E[W] / d df = Sigma
    assert abs(float(g) - 4.0) < 0.1


@pytest.mark.parametrize("make, params, value", [
    (lambda a, b: D.Normal(a, b), ([0.3, -1.0], [0.8, 1.5]), [0.5, 0.1]),
    (lambda a, b: D.Gamma(a, b), ([0.6, 3.0], [2.0, 0.5]), [0.5, 4.0]),
    (lambda a, b: D.Beta(a, b), ([0.6, 3.0], [2.0, 0.5]), [0.3, 0.9]),
    (lambda a: D.Dirichlet(a), ([0.6, 3.0, 1.0],), [0.2, 0.5, 0.3]),
    (lambda d, loc, s: D.StudentT(d, loc, s), ([2.5, 5.0], [0.0, 1.0], [1.0, 2.0]), [0.5, -1.0]),
    (lambda loc, k: D.VonMises(loc, k), ([0.2, -1.0], [0.5, 3.0]), [1.0, -0.5]),
    (lambda lg: D.Binomial(10, logits=lg), ([0.3, -1.0],), [3.0, 7.0]),
    (lambda lg: D.Categorical(logits=lg), ([0.3, -1.0, 0.5],), [2.0]),
    (lambda r: D.Poisson(r), ([0.7, 4.0],), [1.0, 3.0]),
    (lambda m, c: D.MultivariateNormal(m, c @ c.transpose(-2, -1) + ember.eye(2, dtype=ember.float64)),
     ([0.3, -1.0], [[0.5, 0.1], [0.2, 0.7]]), [0.1, 0.2]),
    (lambda d1, d2: D.FisherSnedecor(d1, d2), ([3.0, 6.0], [7.0, 9.0]), [0.5, 2.0]),
    (lambda p: D.ContinuousBernoulli(p), ([0.2, 0.8],), [0.3, 0.6]),
])
def test_log_prob_gradcheck(make, params, value):
    inputs = [t(p, requires_grad=True) for p in params]
    assert gradcheck(lambda *ps: make(*ps).log_prob(t(value)), inputs)


def test_entropy_and_kl_gradcheck():
    a, b = t([0.6, 3.0], requires_grad=True), t([2.0, 0.5], requires_grad=True)
    assert gradcheck(lambda x, y: D.Gamma(x, y).entropy(), [a, b])
    assert gradcheck(lambda x, y: D.kl_divergence(D.Beta(x, y), D.Beta(y, x)), [a, b])
    assert gradcheck(lambda x, y: D.kl_divergence(D.Normal(x, y), D.Laplace(y, x)), [a, b])
