"""Math helpers (core/ember/_ops_math_extra.py) against NumPy/SciPy and closed forms."""
import math

import numpy as np
import pytest
import scipy.signal.windows as windows

import ember


def _arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_cross_dim_default_and_method():
    a, b = _arr(4, 3), _arr(4, 3, seed=1)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        got = ember.cross(ember.tensor(a.T), ember.tensor(b.T))
    np.testing.assert_allclose(got.numpy(), np.cross(a.T, b.T, axis=0))
    np.testing.assert_allclose(ember.tensor(a).cross(ember.tensor(b), dim=1).numpy(), np.cross(a, b))
    with pytest.raises(RuntimeError, match="no dimension of size 3 in input"), pytest.warns(UserWarning):
        ember.cross(ember.ones(2, 2), ember.ones(2, 2))


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, float("inf")])
def test_dist(p):
    a, b = _arr(3, 2), _arr(3, 2, seed=1)
    ref = np.count_nonzero(a - b) if p == 0 else np.linalg.norm((a - b).ravel(), p)
    np.testing.assert_allclose(ember.dist(ember.tensor(a), ember.tensor(b), p).item(), ref)
    np.testing.assert_allclose(ember.tensor(a).dist(ember.tensor(b), p).item(), ref)


def test_renorm():
    a = _arr(3, 4) * 3
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    ref = np.where(norms > 2.0, a * 2.0 / (norms + 1e-7), a)
    np.testing.assert_allclose(ember.renorm(ember.tensor(a), 2, 0, 2.0).numpy(), ref, rtol=1e-12)
    t = ember.tensor(a)
    assert t.renorm_(2, 0, 2.0) is t
    np.testing.assert_allclose(t.numpy(), ref, rtol=1e-12)
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        ember.renorm(ember.ones(3), 2, 0, 1)
    with pytest.raises(RuntimeError, match="renorm: non-positive-norm not supported"):
        ember.renorm(ember.ones(3, 3), -1, 0, 1)
    x = ember.tensor(a, requires_grad=True)
    assert ember.autograd.gradcheck(lambda v: ember.renorm(v, 2, 1, 1.5), (x,))


def test_cov_corrcoef_match_numpy():
    a = _arr(3, 6)
    np.testing.assert_allclose(ember.cov(ember.tensor(a)).numpy(), np.cov(a), rtol=1e-12)
    np.testing.assert_allclose(ember.tensor(a).cov(correction=0).numpy(), np.cov(a, ddof=0), rtol=1e-12)
    fw = np.array([1, 2, 1, 3, 1, 1])
    aw = np.abs(_arr(6, seed=3))
    got = ember.cov(ember.tensor(a), fweights=ember.tensor(fw), aweights=ember.tensor(aw))
    np.testing.assert_allclose(got.numpy(), np.cov(a, fweights=fw, aweights=aw), rtol=1e-12)
    np.testing.assert_allclose(ember.cov(ember.tensor(a[0])).item(), np.cov(a[0]), rtol=1e-12)
    np.testing.assert_allclose(ember.corrcoef(ember.tensor(a)).numpy(), np.corrcoef(a), rtol=1e-12)
    np.testing.assert_allclose(ember.tensor(a).corrcoef().numpy(), np.corrcoef(a), rtol=1e-12)
    with pytest.raises(RuntimeError, match="cov\\(\\): expected input to have two or fewer dimensions"):
        ember.cov(ember.ones(2, 2, 2))
    x = ember.tensor(a, requires_grad=True)
    assert ember.autograd.gradcheck(lambda v: ember.cov(v), (x,))


def test_histogram_matches_numpy():
    x = _arr(50)
    w = np.abs(_arr(50, seed=1))
    for bins, rng, weight, density in [(5, None, None, False), (4, (-1.0, 1.0), w, False), (7, None, w, True)]:
        hist, edges = ember.histogram(ember.tensor(x), bins, range=rng,
                                      weight=None if weight is None else ember.tensor(weight), density=density)
        ref_h, ref_e = np.histogram(x, bins, range=rng, weights=weight, density=density)
        np.testing.assert_allclose(hist.numpy(), ref_h, rtol=1e-12)
        np.testing.assert_allclose(edges.numpy(), ref_e, rtol=1e-12)
    edges_in = np.array([-1.0, 0.0, 0.5, 2.0])
    r = ember.tensor(x).histogram(ember.tensor(edges_in))
    assert type(r).__name__ == "histogram"
    np.testing.assert_array_equal(r.hist.numpy(), np.histogram(x, edges_in)[0])
    with pytest.raises(NotImplementedError, match="not implemented for 'Int64'"):
        ember.histogram(ember.tensor([1, 2]), 2)


def test_trapezoid_family():
    y = _arr(3, 5)
    x = np.sort(_arr(5, seed=1))
    np.testing.assert_allclose(ember.trapezoid(ember.tensor(y)).numpy(), np.trapezoid(y), rtol=1e-12)
    np.testing.assert_allclose(ember.trapezoid(ember.tensor(y), dx=0.5, dim=0).numpy(), np.trapezoid(y, dx=0.5, axis=0))
    np.testing.assert_allclose(ember.trapz(ember.tensor(y), ember.tensor(x)).numpy(), np.trapezoid(y, x), rtol=1e-12)
    import scipy.integrate
    np.testing.assert_allclose(ember.cumulative_trapezoid(ember.tensor(y), ember.tensor(x)).numpy(),
                               scipy.integrate.cumulative_trapezoid(y, x), rtol=1e-12)
    np.testing.assert_allclose(ember.cumulative_trapezoid(ember.tensor(y), dx=2.0, dim=0).numpy(),
                               scipy.integrate.cumulative_trapezoid(y, dx=2.0, axis=0), rtol=1e-12)
    with pytest.raises(RuntimeError, match="trapezoid: There must be one `x` value for each sample point"):
        ember.trapezoid(ember.ones(3), ember.ones(2))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(edge_order):
    f = _arr(5, 6)
    got = ember.gradient(ember.tensor(f), edge_order=edge_order)
    for g, r in zip(got, np.gradient(f, edge_order=edge_order)):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-12, atol=1e-12)
    coords = np.cumsum(np.abs(_arr(6, seed=2)) + 0.1)
    got = ember.gradient(ember.tensor(f), spacing=[ember.tensor(coords)], dim=1, edge_order=edge_order)
    np.testing.assert_allclose(got[0].numpy(), np.gradient(f, coords, axis=1, edge_order=edge_order), rtol=1e-10)
    got = ember.gradient(ember.tensor(f), spacing=2.0, dim=0, edge_order=edge_order)
    np.testing.assert_allclose(got[0].numpy(), np.gradient(f, 2.0, axis=0, edge_order=edge_order), rtol=1e-12)


def test_addr():
    m, a, b = _arr(3, 2), _arr(3, seed=1), _arr(2, seed=2)
    got = ember.addr(ember.tensor(m), ember.tensor(a), ember.tensor(b), beta=0.5, alpha=2)
    np.testing.assert_allclose(got.numpy(), 0.5 * m + 2 * np.outer(a, b), rtol=1e-12)
    nan = ember.full([3, 2], float("nan"), dtype=ember.float64)
    np.testing.assert_allclose(ember.addr(nan, ember.tensor(a), ember.tensor(b), beta=0).numpy(), np.outer(a, b))
    t = ember.tensor(m)
    assert t.addr_(ember.tensor(a), ember.tensor(b)) is t
    np.testing.assert_allclose(t.numpy(), m + np.outer(a, b), rtol=1e-12)
    with pytest.raises(RuntimeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        ember.addr(ember.tensor(m), ember.ones(3, 1), ember.tensor(b))


def test_frexp_matches_numpy():
    x = np.array([8.0, 0.3, -5.0, 0.0, 1e-310, 2.0 ** 60, np.inf, -np.inf, np.nan, 0.5, 1.0 - 2 ** -53])
    mantissa, exponent = ember.frexp(ember.tensor(x))
    ref_m, ref_e = np.frexp(x)
    np.testing.assert_array_equal(mantissa.numpy(), ref_m)
    np.testing.assert_array_equal(exponent.numpy()[np.isfinite(x)], ref_e[np.isfinite(x)])
    assert exponent.dtype == ember.int32 and type(ember.frexp(ember.ones(1))).__name__ == "frexp"
    f32 = ember.tensor([3.0, 0.1], dtype=ember.float32).frexp()
    np.testing.assert_array_equal(f32.mantissa.numpy(), np.frexp(np.float32([3.0, 0.1]))[0])
    with pytest.raises(RuntimeError, match="torch.frexp\\(\\) only supports floating-point dtypes"):
        ember.frexp(ember.tensor([1]))


@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_scipy(n, periodic):
    sym = not periodic
    cases = [(ember.hann_window(n, periodic), windows.hann(n, sym)),
             (ember.hamming_window(n, periodic), windows.hamming(n, sym)),
             (ember.blackman_window(n, periodic), windows.blackman(n, sym)),
             (ember.bartlett_window(n, periodic), windows.bartlett(n, sym)),
             (ember.kaiser_window(n, periodic, beta=8.0), windows.kaiser(n, 8.0, sym))]
    for got, ref in cases:
        assert got.dtype == ember.float32
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_window_arguments():
    np.testing.assert_allclose(ember.hamming_window(5, False, alpha=0.5, beta=0.5, dtype=ember.float64).numpy(),
                               windows.hann(5, True), rtol=1e-12)
    with pytest.raises(RuntimeError, match="hann_window requires non-negative window_length, got window_length=-1"):
        ember.hann_window(-1)
    with pytest.raises(RuntimeError, match="hann_window expects floating point dtypes"):
        ember.hann_window(3, dtype=ember.int64)
    assert ember.kaiser_window(4, requires_grad=True).requires_grad


def test_polygamma_method():
    x = ember.tensor([1.0, 2.5], dtype=ember.float64)
    import scipy.special
    np.testing.assert_allclose(x.polygamma(1).numpy(), scipy.special.polygamma(1, [1.0, 2.5]), rtol=1e-10)
    assert x.polygamma_(2) is x
    np.testing.assert_allclose(x.numpy(), scipy.special.polygamma(2, [1.0, 2.5]), rtol=1e-10)
    assert math.isclose(ember.tensor([1.0]).polygamma(0).item(), -0.5772156649015329, rel_tol=1e-6)
