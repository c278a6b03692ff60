"""Special functions whose loops ran n steps (hours or forever for n near 2**62): huge degrees of the
orthogonal polynomials, zeta with a huge s or a very negative q, polygamma of a huge order. Each now
returns at once; values are checked against SciPy where SciPy's own loop still finishes (degrees
just above the recurrence's limit of 2**20) and against closed forms beyond."""
import math

import numpy as np
import pytest
import scipy.special as sc

import ember
from ember import special

HUGE_N = [2**62, 2**63 - 1, 2**40 + 1]


def f64(x):
    return ember.tensor(x, dtype=ember.float64)


def test_legendre_huge_degree_is_fast_and_bounded():
    x = f64([0.5, -0.3, 0.0, 0.999])
    for n in HUGE_N:
        out = special.legendre_polynomial_p(x, n).numpy()
        assert np.all(np.isfinite(out)) and np.all(np.abs(out) <= 1.0)  # |P_n(x)| <= 1 on [-1, 1]
    # n reaches the kernel as a float: 2**53 - 1 is the largest odd degree it can hold exactly
    assert special.legendre_polynomial_p(f64([1.0, -1.0]), 2**53 - 1).tolist() == [1.0, -1.0]


@pytest.mark.parametrize("n", [2**20 + 3, 3_000_000])
def test_legendre_asymptotic_matches_scipy(n):
    xs = np.array([0.3, -0.7, 0.999, 0.05, -0.9999])
    got = special.legendre_polynomial_p(f64(xs), n).numpy()
    want = sc.eval_legendre(n, xs)
    # Szego's form is good to O(n**-3/2) relative to the envelope sqrt(2 / (pi n sin t))
    env = np.sqrt(2 / (np.pi * n * np.sqrt(1 - xs**2)))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * env.max())


def test_legendre_outside_the_interval_overflows_with_the_right_sign():
    out = special.legendre_polynomial_p(f64([1.0001, -1.0001]), 2**21 + 1).numpy()
    assert out[0] == np.inf and out[1] == -np.inf  # odd degree: P_n(-x) = -P_n(x)
    # near 1 the growth is slow: P_n(cosh t) ~ sqrt(t / sinh t) I0(nu t), checked at n t ~ 20
    n = 2**30
    x = math.cosh(20.0 / (n + 0.5))
    got = special.legendre_polynomial_p(f64([x]), n).item()
    t = math.acosh(x)
    assert got == pytest.approx(math.sqrt(t / math.sinh(t)) * sc.i0((n + 0.5) * t), rel=1e-6)


@pytest.mark.parametrize("n", [2**20 + 3, 3_000_000])
def test_laguerre_asymptotic_matches_scipy(n):
    xs = np.array([0.1, 1.0, -1e-4, 1e-6, 10.0])
    got = special.laguerre_polynomial_l(f64(xs), n).numpy()
    want = sc.eval_laguerre(n, xs)
    env = np.exp(xs / 2) * np.maximum((np.abs(xs) * n), 1) ** -0.25  # Fejer's envelope
    # Hilb's formula errs by O(n**-3/4) relative to the envelope for bounded x, so more as x grows:
    # about 1e-6 at x <= 1 and 3e-3 at x = 10 for these degrees
    np.testing.assert_allclose(got[:4], want[:4], rtol=1e-5, atol=1e-5 * env[:4].max())
    np.testing.assert_allclose(got[4], want[4], rtol=0, atol=5e-3 * env[4])


def test_laguerre_huge_degree():
    for n in HUGE_N:
        out = special.laguerre_polynomial_l(f64([0.5, 3.0, -0.5, 0.0]), n).numpy()
        assert abs(out[0]) <= math.exp(0.25) and abs(out[1]) <= math.exp(1.5)  # |L_n(x)| <= e^(x/2), x >= 0
        assert out[2] == np.inf  # grows like exp(2 sqrt(n |x|))
        assert out[3] == 1.0


@pytest.mark.parametrize("fn,closed", [
    ("chebyshev_polynomial_t", lambda n, t: math.cosh(n * t)),
    ("chebyshev_polynomial_u", lambda n, t: math.sinh((n + 1) * t) / math.sinh(t)),
    ("chebyshev_polynomial_v", lambda n, t: math.cosh((n + 0.5) * t) / math.cosh(t / 2)),
    ("chebyshev_polynomial_w", lambda n, t: math.sinh((n + 0.5) * t) / math.sinh(t / 2)),
])
def test_chebyshev_just_outside_one(fn, closed):
    # x = 1 + 2**-52: the recurrence needed ~10**10 steps to overflow; the closed forms are the definition
    x, n = 1 + 2**-52, 2**30
    got = getattr(special, fn)(f64([x]), n).item()
    assert got == pytest.approx(closed(n, math.acosh(x)), rel=1e-6)
    big = getattr(special, fn)(f64([x, -x, 0.5]), 2**62).numpy()
    assert big[0] == np.inf and np.isinf(big[1]) and np.isfinite(big[2])


def test_chebyshev_matches_scipy_past_the_recurrence():
    n = 2**21 + 1
    xs = np.array([1 + 2**-52, -(1 + 2**-50), 1 + 2**-40])
    # SciPy's 2M-step recurrence itself drifts by ~1e-5 here (U_n(1 + d) = (n + 1)(1 + n(n + 2) d / 3 + ...)
    # puts ember's 2097836.7 on the series and SciPy's 2097812.4 off it)
    np.testing.assert_allclose(special.chebyshev_polynomial_t(f64(xs), n).numpy(), sc.eval_chebyt(n, xs), rtol=3e-5)
    np.testing.assert_allclose(special.chebyshev_polynomial_u(f64(xs), n).numpy(), sc.eval_chebyu(n, xs), rtol=3e-5)
    d = 2.0**-52
    series = (n + 1) * (1 + n * (n + 2) * d / 3)  # the next term is ~1e-7 relative
    assert special.chebyshev_polynomial_u(f64([1 + d]), n).item() == pytest.approx(series, rel=3e-7)


def test_hermite_huge_degree_returns():
    out = special.hermite_polynomial_h(f64([0.5, 2.0]), 2**62).numpy()
    assert not np.any(np.isfinite(out))  # |H_n| overflows within a few hundred steps
    out = special.hermite_polynomial_he(f64([0.5]), 2**63 - 1).numpy()
    assert not np.isfinite(out[0])


def test_zeta_huge_s():
    out = special.zeta(f64([2.0**31] * 4), f64([0.5, 1.0, 1.5, 2.0])).numpy()
    # q**-s alone decides: inf for q < 1, exactly 1 (+ 2**-s) at q = 1, 0 beyond
    assert out.tolist() == [math.inf, 1.0, 0.0, 0.0]
    assert special.zeta(f64([2.0**62]), f64([-0.5])).item() == math.inf  # (-1/2)**-s with s even


def test_zeta_very_negative_q():
    # A sum of ceil(-q) terms before: 10**12 terms here. The negative terms sum to about zeta(2, 1/2),
    # the positive ones from 1/2 on to zeta(2, 1/2) = pi**2 / 2: pi**2 in all.
    assert special.zeta(f64([2.0]), f64([-1e12 - 0.5])).item() == pytest.approx(math.pi**2, rel=1e-9)
    # moderate q against direct summation of the negative terms plus SciPy's positive tail
    for s, q in ((2.0, -100.5), (3.0, -70.25), (4.0, -65.75)):
        m = math.ceil(-q)
        direct = sum((q + k) ** -s for k in range(m)) + sc.zeta(s, q + m)
        assert special.zeta(f64([s]), f64([q])).item() == pytest.approx(direct, rel=1e-12)
    assert special.zeta(f64([2.5]), f64([-100.5])).isnan().item()  # non-integer s, negative q


def test_polygamma_huge_order():
    x = f64([0.5, 0.25])
    assert special.polygamma(2**62, x).tolist() == [-math.inf, -math.inf]  # (-1)**(n+1) n! zeta(n+1, x)
    assert special.polygamma(2**62 + 1, x).tolist() == [math.inf, math.inf]
    assert ember.polygamma(2**31, x).tolist() == [-math.inf, -math.inf]
    # order 3 at a negative point, against SciPy
    assert special.polygamma(3, f64([-100.5])).item() == pytest.approx(sc.polygamma(3, -100.5), rel=1e-10)
