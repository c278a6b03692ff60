"""ember.special: SciPy-style special functions under PyTorch's torch.special names.

Each name is an op of the op database (core/ops/special.yaml for the new ones, their scalar math in
core/csrc/kernels/special/), or the core op it is an alias of (expit is sigmoid, gammaln is lgamma,
psi is digamma, multigammaln is mvlgamma...), so out=, autograd and dtype rules are the op's own.
"""
import ember as _e

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
    "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
    "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc", "softmax",
    "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]

# Core ops under their torch.special names.
erf = _e.erf
erfc = _e.erfc
erfinv = _e.erfinv
expit = _e.sigmoid
logit = _e.logit  # logit(input, eps=None)
exp2 = _e.exp2
expm1 = _e.expm1
log1p = _e.log1p
gammaln = _e.lgamma
digamma = _e.digamma
psi = _e.digamma
polygamma = _e.polygamma  # polygamma(n, input)
multigammaln = _e.mvlgamma  # multigammaln(input, p)
round = _e.round  # round(input, *, decimals=0)
softmax = _e.softmax  # softmax(input, dim, dtype=None)
log_softmax = _e.log_softmax
logsumexp = _e.logsumexp  # logsumexp(input, dim, keepdim=False)
i0 = _e.i0
sinc = _e.sinc
xlogy = _e.xlogy
gammainc = _e.igamma  # gammainc(input, other): P(a, x)
gammaincc = _e.igammac

# The special_* ops.
erfcx = _e.special_erfcx
ndtr = _e.special_ndtr
ndtri = _e.special_ndtri
log_ndtr = _e.special_log_ndtr
i0e = _e.special_i0e
i1 = _e.special_i1
i1e = _e.special_i1e
entr = _e.special_entr
xlog1py = _e.special_xlog1py
zeta = _e.special_zeta  # Hurwitz zeta(input, other); either may be a Python number
bessel_j0 = _e.special_bessel_j0
bessel_j1 = _e.special_bessel_j1
bessel_y0 = _e.special_bessel_y0
bessel_y1 = _e.special_bessel_y1
modified_bessel_i0 = _e.special_modified_bessel_i0
modified_bessel_i1 = _e.special_modified_bessel_i1
modified_bessel_k0 = _e.special_modified_bessel_k0
modified_bessel_k1 = _e.special_modified_bessel_k1
scaled_modified_bessel_k0 = _e.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _e.special_scaled_modified_bessel_k1
spherical_bessel_j0 = _e.special_spherical_bessel_j0
airy_ai = _e.special_airy_ai
chebyshev_polynomial_t = _e.special_chebyshev_polynomial_t  # (input, n): n a tensor or number
chebyshev_polynomial_u = _e.special_chebyshev_polynomial_u
chebyshev_polynomial_v = _e.special_chebyshev_polynomial_v
chebyshev_polynomial_w = _e.special_chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _e.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _e.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _e.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _e.special_shifted_chebyshev_polynomial_w
hermite_polynomial_h = _e.special_hermite_polynomial_h
hermite_polynomial_he = _e.special_hermite_polynomial_he
laguerre_polynomial_l = _e.special_laguerre_polynomial_l
legendre_polynomial_p = _e.special_legendre_polynomial_p
