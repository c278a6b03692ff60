"""OpInfos for core/ops/special.yaml against scipy.special (float64). Domains keep values inside
float16's range; tails, poles and special values are tested in tests/core/test_special.py."""
import numpy as np
from scipy import special

from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _degree(n):
    """The integer degree the ops take from n: truncated toward zero; negative gives the 0 polynomial."""
    n = np.trunc(np.nan_to_num(np.asarray(n, dtype=np.float64)))
    return n, np.maximum(n, 0).astype(np.int64)


def _poly(fn):
    def ref(x, n):
        n, k = _degree(n)
        return np.where(n < 0, 0.0, fn(k, x))
    return ref


def _cheb_u(k, x):
    return np.where(k < 0, 0.0, special.eval_chebyu(np.maximum(k, 0), x))


def _cheb_v(k, x):  # V_n = U_n - U_{n-1} (third kind)
    return _cheb_u(k, x) - _cheb_u(k - 1, x)


def _cheb_w(k, x):  # W_n = U_n + U_{n-1} (fourth kind)
    return _cheb_u(k, x) + _cheb_u(k - 1, x)


def _shifted(fn):
    return lambda k, x: fn(k, 2 * x - 1)


def _zeta_samples(dtype, rng):
    """x as a number or an integer tensor (zeta has no derivative in x), q drawn positive."""
    q = np.asarray(random_array(dtype, (2, 3), rng, (0.2, 5.0), (1, 10)))
    return [
        Sample((3.5, q)),
        Sample((np.array([2, 3, 5]), q)),
        Sample((1.5, np.asarray(random_array(dtype, (4,), rng, (0.5, 3.0), (1, 5))))),
    ]


def _gamma_inc_samples(dtype, rng):
    """a as a number (no derivative in a), x drawn positive."""
    x = np.asarray(random_array(dtype, (2, 3), rng, (0.1, 12.0), (1, 10)))
    return [Sample((2.5, x)), Sample((0.7, np.asarray(random_array(dtype, (4,), rng, (0.2, 3.0), (1, 5)))))]


CHEB = dict(domain=(-1.2, 1.2), rhs_domain=(-2.0, 12.0), rhs_int_domain=(-2, 12))
SHIFTED = dict(domain=(-0.1, 1.1), rhs_domain=(-2.0, 12.0), rhs_int_domain=(-2, 12))
BESSEL_I = dict(domain=(-12.0, 12.0))
POSITIVE = dict(domain=(0.05, 20.0), int_domain=(0, 10))

register(
    OpInfo("special_erfcx", ref=special.erfcx, domain=(-3.0, 10.0)),
    OpInfo("special_ndtr", ref=special.ndtr, domain=(-8.0, 8.0)),
    OpInfo("special_ndtri", ref=special.ndtri, domain=(0.001, 0.999), int_domain=(-1, 3)),
    OpInfo("special_log_ndtr", ref=special.log_ndtr, domain=(-20.0, 5.0)),
    OpInfo("i0", ref=special.i0, **BESSEL_I),
    OpInfo("special_i0e", ref=special.i0e, **BESSEL_I),
    OpInfo("special_i1", ref=special.i1, **BESSEL_I),
    OpInfo("special_i1e", ref=special.i1e, **BESSEL_I),
    OpInfo("special_bessel_j0", ref=special.j0, domain=(-30.0, 30.0)),
    OpInfo("special_bessel_j1", ref=special.j1, domain=(-30.0, 30.0)),
    OpInfo("special_bessel_y0", ref=special.y0, domain=(0.1, 30.0), int_domain=(0, 10)),
    OpInfo("special_bessel_y1", ref=special.y1, domain=(0.1, 30.0), int_domain=(0, 10)),
    OpInfo("special_modified_bessel_i0", ref=special.i0, **BESSEL_I),
    OpInfo("special_modified_bessel_i1", ref=special.i1, **BESSEL_I),
    OpInfo("special_modified_bessel_k0", ref=special.k0, **POSITIVE),
    OpInfo("special_modified_bessel_k1", ref=special.k1, **POSITIVE),
    OpInfo("special_scaled_modified_bessel_k0", ref=special.k0e, **POSITIVE),
    OpInfo("special_scaled_modified_bessel_k1", ref=special.k1e, **POSITIVE),
    OpInfo("special_spherical_bessel_j0", ref=lambda x: special.spherical_jn(0, x), domain=(-20.0, 20.0)),
    OpInfo("special_airy_ai", ref=lambda x: special.airy(x)[0], domain=(-15.0, 10.0), int_domain=(-9, 10)),
    OpInfo("sinc", ref=np.sinc, domain=(-5.0, 5.0)),
    OpInfo("special_entr", ref=special.entr, domain=(0.01, 5.0)),
    OpInfo("xlogy", ref=special.xlogy, rhs_domain=(0.1, 5.0), rhs_int_domain=(0, 10)),
    OpInfo("special_xlog1py", ref=special.xlog1py, rhs_domain=(-0.9, 5.0), rhs_int_domain=(-1, 10)),
    OpInfo("special_zeta", ref=special.zeta, domain=(1.1, 6.0), int_domain=(2, 10), rhs_domain=(0.2, 5.0),
           rhs_int_domain=(1, 10), sample_inputs=_zeta_samples),
    OpInfo("igamma", ref=special.gammainc, domain=(0.2, 8.0), rhs_domain=(0.05, 15.0), int_domain=(1, 10),
           rhs_int_domain=(0, 12), sample_inputs=_gamma_inc_samples, tol={"float64": (1e-12, 1e-13)}),
    OpInfo("igammac", ref=special.gammaincc, domain=(0.2, 8.0), rhs_domain=(0.05, 15.0), int_domain=(1, 10),
           rhs_int_domain=(0, 12), sample_inputs=_gamma_inc_samples, tol={"float64": (1e-12, 1e-13)}),
    OpInfo("mvlgamma", ref=lambda a, p: special.multigammaln(a, p), domain=(1.6, 6.0), int_domain=(2, 10),
           kwargs=[{"p": 1}, {"p": 3}]),
    OpInfo("special_chebyshev_polynomial_t", ref=_poly(special.eval_chebyt), **CHEB),
    OpInfo("special_chebyshev_polynomial_u", ref=_poly(_cheb_u), **CHEB),
    OpInfo("special_chebyshev_polynomial_v", ref=_poly(_cheb_v), **CHEB),
    OpInfo("special_chebyshev_polynomial_w", ref=_poly(_cheb_w), **CHEB),
    OpInfo("special_shifted_chebyshev_polynomial_t", ref=_poly(special.eval_sh_chebyt), **SHIFTED),
    OpInfo("special_shifted_chebyshev_polynomial_u", ref=_poly(_shifted(_cheb_u)), **SHIFTED),
    OpInfo("special_shifted_chebyshev_polynomial_v", ref=_poly(_shifted(_cheb_v)), **SHIFTED),
    OpInfo("special_shifted_chebyshev_polynomial_w", ref=_poly(_shifted(_cheb_w)), **SHIFTED),
    OpInfo("special_hermite_polynomial_h", ref=_poly(special.eval_hermite), domain=(-2.0, 2.0),
           rhs_domain=(-2.0, 8.0), rhs_int_domain=(-2, 8)),
    OpInfo("special_hermite_polynomial_he", ref=_poly(special.eval_hermitenorm), domain=(-3.0, 3.0),
           rhs_domain=(-2.0, 9.0), rhs_int_domain=(-2, 9)),
    OpInfo("special_laguerre_polynomial_l", ref=_poly(special.eval_laguerre), domain=(-1.0, 8.0),
           rhs_domain=(-2.0, 12.0), rhs_int_domain=(-2, 12)),
    OpInfo("special_legendre_polynomial_p", ref=_poly(special.eval_legendre), domain=(-1.2, 1.2),
           rhs_domain=(-2.0, 12.0), rhs_int_domain=(-2, 12)),
)
