"""The sampler ops the distributions added to the op database: _standard_gamma (its law, its
reparameterization gradient _standard_gamma_grad against SciPy) and binomial (its law), plus
reproducibility under manual_seed and explicit generators and the argument errors."""
import numpy as np
import pytest
import scipy.special as sps
import scipy.stats as st

import ember

from ._helpers import n, t


@pytest.mark.parametrize("alpha", [0.05, 0.4, 1.0, 3.7, 60.0])
@pytest.mark.parametrize("dtype", [ember.float64, ember.float32])
def test_standard_gamma_law(alpha, dtype):
    g = ember.Generator().manual_seed(11)
    x = ember._standard_gamma(ember.full((20000,), alpha, dtype=dtype), generator=g)
    assert x.dtype == dtype and bool((x > 0).all() or alpha < 0.1)
    assert st.kstest(n(x), st.gamma(alpha).cdf).pvalue > 1e-3


def test_standard_gamma_broadcast_values_and_reproducibility():
    a = t([[0.5, 2.0, 9.0]]).expand(4000, 3)
    ember.manual_seed(3)
    x1 = ember._standard_gamma(a.contiguous())
    ember.manual_seed(3)
    x2 = ember._standard_gamma(a.contiguous())
    assert x1.tolist() == x2.tolist()
    m = n(x1).mean(0)
    np.testing.assert_allclose(m, [0.5, 2.0, 9.0], rtol=0.06)
    g1, g2 = ember.Generator().manual_seed(5), ember.Generator().manual_seed(5)
    assert ember._standard_gamma(a.contiguous(), generator=g1).tolist() == \
        ember._standard_gamma(a.contiguous(), generator=g2).tolist()


def test_standard_gamma_errors():
    with pytest.raises(RuntimeError, match="positive concentrations"):
        ember._standard_gamma(t([1.0, 0.0]))
    with pytest.raises(RuntimeError, match="positive concentrations"):
        ember._standard_gamma(t([float("nan")]))
    with pytest.raises(TypeError, match="not implemented for dtype"):
        ember._standard_gamma(ember.tensor([1, 2]))


def _dx_dalpha(a, x):
    """-(dP/da) / pdf by SciPy, differencing P or Q = 1 - P (whichever is smaller: no cancellation)."""
    h = 1e-6 * max(a, 1.0)
    if sps.gammainc(a, x) < 0.5:
        dp = (sps.gammainc(a + h, x) - sps.gammainc(a - h, x)) / (2 * h)
    else:
        dp = -(sps.gammaincc(a + h, x) - sps.gammaincc(a - h, x)) / (2 * h)
    return -dp / st.gamma.pdf(x, a)


@pytest.mark.parametrize("alpha", [0.05, 0.3, 1.0, 2.5, 20.0, 400.0])
def test_standard_gamma_grad_against_scipy(alpha):
    qs = np.array([1e-4, 0.01, 0.2, 0.5, 0.8, 0.99, 0.9999])
    x = st.gamma(alpha).ppf(qs)
    want = np.array([_dx_dalpha(alpha, xi) for xi in x])
    got = n(ember._standard_gamma_grad(t(np.full_like(x, alpha)), t(x)))
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_standard_gamma_backward_uses_the_implicit_gradient():
    a = t([0.7, 3.0, 12.0], requires_grad=True)
    ember.manual_seed(0)
    x = ember._standard_gamma(a)
    (g,) = ember.autograd.grad(x.sum(), [a])
    np.testing.assert_allclose(n(g), [_dx_dalpha(ai, xi) for ai, xi in zip([0.7, 3.0, 12.0], n(x))], rtol=1e-5)


def test_standard_gamma_grad_edges():
    out = n(ember._standard_gamma_grad(t([2.0, -1.0, 2.0]), t([0.0, 1.0, float("nan")])))
    assert out[0] == 0 and np.isnan(out[1]) and np.isnan(out[2])


@pytest.mark.parametrize("count, prob", [(5, 0.3), (40, 0.05), (100, 0.4), (1000, 0.93), (7, 0.5)])
def test_binomial_law(count, prob):
    g = ember.Generator().manual_seed(21)
    k = n(ember.binomial(ember.full((20000,), float(count), dtype=ember.float64),
                         ember.full((20000,), prob, dtype=ember.float64), generator=g))
    assert (k == np.floor(k)).all() and k.min() >= 0 and k.max() <= count
    # Chi-square over the values with expected counts >= 5 (the rest pooled).
    ref = st.binom(count, prob)
    support = np.arange(count + 1)
    expected = ref.pmf(support) * k.size
    keep = expected >= 5
    observed = np.bincount(k.astype(int), minlength=count + 1)
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] < 1e-9:
        obs, exp = obs[:-1], exp[:-1]
    assert st.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-3


def test_binomial_broadcast_and_edges():
    k = ember.binomial(t([[0.0], [10.0]]), t([0.0, 1.0, 0.5]))
    assert tuple(k.shape) == (2, 3)
    assert n(k)[0].tolist() == [0, 0, 0] and n(k)[1, :2].tolist() == [0, 10]
    assert k.dtype == ember.float64


def test_binomial_errors():
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count, got: "):
        ember.binomial(ember.tensor([10]), ember.tensor([1]))
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.binomial(ember.tensor([10.0]), t([0.5]))
    with pytest.raises(RuntimeError, match="non-negative integers"):
        ember.binomial(t([-1.0]), t([0.5]))
    with pytest.raises(RuntimeError, match="non-negative integers"):
        ember.binomial(t([2.5]), t([0.5]))
    with pytest.raises(RuntimeError, match=r"prob to be in \[0, 1\]"):
        ember.binomial(t([3.0]), t([1.5]))
