"""MultivariateNormal, LowRankMultivariateNormal, Dirichlet, Wishart and LKJCholesky against SciPy
(and numerical integration where SciPy has no counterpart)."""
import numpy as np
import pytest
import scipy.integrate as si
import scipy.stats as st

import ember
import ember.distributions as D

from ._helpers import close, n, t

RNG = np.random.default_rng(7)


def _spd(k, batch=()):
    a = RNG.normal(size=batch + (k, k))
    return a @ np.swapaxes(a, -1, -2) + k * np.eye(k)


@pytest.mark.parametrize("form", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_mvn_forms(form):
    cov = _spd(3, (2,))
    loc = RNG.normal(size=(4, 1, 3))  # broadcasts with the covariance batch (2,) to (4, 2)
    arg = {"covariance_matrix": cov, "precision_matrix": np.linalg.inv(cov),
           "scale_tril": np.linalg.cholesky(cov)}[form]
    d = D.MultivariateNormal(t(loc), **{form: t(arg)})
    assert tuple(d.batch_shape) == (4, 2) and tuple(d.event_shape) == (3,)
    x = RNG.normal(size=(5, 4, 2, 3))
    want = np.stack([[[st.multivariate_normal(loc[i, 0], cov[j]).logpdf(x[s, i, j]) for j in range(2)]
                      for i in range(4)] for s in range(5)])
    close(d.log_prob(t(x)), want, rtol=1e-9)
    close(d.entropy(), np.broadcast_to([st.multivariate_normal(np.zeros(3), c).entropy() for c in cov], (4, 2)),
          rtol=1e-10)
    close(d.covariance_matrix, np.broadcast_to(cov, (4, 2, 3, 3)), rtol=1e-9)
    close(d.precision_matrix, np.broadcast_to(np.linalg.inv(cov), (4, 2, 3, 3)), rtol=1e-8, atol=1e-12)
    close(d.scale_tril, np.broadcast_to(np.linalg.cholesky(cov), (4, 2, 3, 3)), rtol=1e-9, atol=1e-12)
    close(d.variance, np.broadcast_to(np.diagonal(cov, 0, -2, -1), (4, 2, 3)), rtol=1e-9)
    close(d.mean, np.broadcast_to(loc, (4, 2, 3)))


def test_lowrank_mvn():
    loc = RNG.normal(size=(2, 4))
    w = RNG.normal(size=(2, 4, 2))
    diag = RNG.uniform(0.5, 2.0, (2, 4))
    d = D.LowRankMultivariateNormal(t(loc), t(w), t(diag))
    cov = w @ np.swapaxes(w, -1, -2) + np.stack([np.diag(v) for v in diag])
    x = RNG.normal(size=(3, 2, 4))
    want = np.stack([[st.multivariate_normal(loc[j], cov[j]).logpdf(x[s, j]) for j in range(2)] for s in range(3)])
    close(d.log_prob(t(x)), want, rtol=1e-9)
    close(d.entropy(), [st.multivariate_normal(loc[j], cov[j]).entropy() for j in range(2)], rtol=1e-10)
    close(d.covariance_matrix, cov, rtol=1e-10)
    close(d.precision_matrix, np.linalg.inv(cov), rtol=1e-8, atol=1e-12)
    close(d.scale_tril @ d.scale_tril.transpose(-2, -1), cov, rtol=1e-9)
    close(d.variance, np.diagonal(cov, 0, -2, -1), rtol=1e-10)


def test_lowrank_mvn_shape_errors():
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 3 x m"):
        D.LowRankMultivariateNormal(t(np.zeros(3)), t(np.zeros((4, 2))), t(np.ones(3)))
    with pytest.raises(ValueError, match="cov_diag must be a batch of vectors"):
        D.LowRankMultivariateNormal(t(np.zeros(3)), t(np.zeros((3, 2))), t(np.ones(4)))


def test_dirichlet():
    a = RNG.uniform(0.5, 4.0, (2, 3))
    d = D.Dirichlet(t(a))
    x = RNG.dirichlet([1.0, 1.0, 1.0], size=(4, 2))
    want = np.stack([[st.dirichlet(a[j]).logpdf(x[s, j]) for j in range(2)] for s in range(4)])
    close(d.log_prob(t(x)), want, rtol=1e-9)
    close(d.entropy(), [st.dirichlet(a[j]).entropy() for j in range(2)], rtol=1e-9)
    close(d.mean, [st.dirichlet(a[j]).mean() for j in range(2)], rtol=1e-12)
    close(d.variance, [st.dirichlet(a[j]).var() for j in range(2)], rtol=1e-10)
    big = np.array([2.0, 3.0, 5.0])
    close(D.Dirichlet(t(big)).mode, (big - 1) / (big - 1).sum())


def test_wishart():
    cov = _spd(3)
    df = np.array([3.5, 6.0])
    d = D.Wishart(t(df), covariance_matrix=t(cov))
    x = np.stack([st.wishart(6.0, cov).rvs(random_state=1), st.wishart(4.0, cov).rvs(random_state=2)])
    close(d.log_prob(t(x)), [st.wishart(df[j], cov).logpdf(x[j]) for j in range(2)], rtol=1e-9)
    close(d.entropy(), [st.wishart(df[j], cov).entropy() for j in range(2)], rtol=1e-9)
    close(d.mean, [st.wishart(df[j], cov).mean() for j in range(2)], rtol=1e-10)
    close(d.variance, [st.wishart(df[j], cov).var() for j in range(2)], rtol=1e-10)
    dp = D.Wishart(t(df), precision_matrix=t(np.linalg.inv(cov)))
    close(dp.log_prob(t(x)), [st.wishart(df[j], cov).logpdf(x[j]) for j in range(2)], rtol=1e-9)
    with pytest.raises(ValueError, match="expected to be greater than ndim - 1 = 2"):
        D.Wishart(t([1.5]), covariance_matrix=t(cov))


@pytest.mark.parametrize("eta", [0.5, 1.0, 3.0])
def test_lkj_cholesky_density_integrates_to_one(eta):
    # dim 2: L = [[1, 0], [r, sqrt(1 - r^2)]]; the density over r must integrate to 1 over (-1, 1).
    d = D.LKJCholesky(2, t(eta))

    def dens(r):
        m = np.array([[1.0, 0.0], [r, np.sqrt(1 - r * r)]])
        return float(np.exp(n(d.log_prob(t(m)))))

    total = si.quad(dens, -1 + 1e-12, 1 - 1e-12, limit=200)[0]
    assert abs(total - 1) < 1e-6


def test_lkj_cholesky_samples_are_correlation_factors():
    ember.manual_seed(0)
    d = D.LKJCholesky(4, t([0.5, 2.0]))
    s = d.sample((50,))
    assert tuple(s.shape) == (50, 2, 4, 4)
    m = n(s)
    np.testing.assert_allclose(np.triu(m, 1), 0.0)
    np.testing.assert_allclose((m ** 2).sum(-1), 1.0, rtol=1e-10)
    assert (np.diagonal(m, 0, -2, -1) > 0).all()
    assert bool(D.constraints.corr_cholesky.check(s).all())
