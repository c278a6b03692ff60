"""OpInfos for core/ops/unary.yaml. Domains keep inputs inside each function's real domain (and
away from poles) where NumPy/SciPy and PyTorch legitimately differ; poles, branch points and
special values are tested in tests/core/test_pointwise_extra.py."""
import numpy as np
from scipy import special

import ember
from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _sign(a):
    return a.copy() if a.dtype == np.bool_ else np.sign(a)


def _sgn(a):
    if a.dtype.kind == "c":
        return np.where(a == 0, 0, a / np.where(a == 0, 1, np.abs(a)))
    return _sign(a)


def _logit(a, eps=None):
    a = a.astype(np.float64)
    if eps is not None:
        a = np.clip(a, eps, 1 - eps)
    return np.log(a / (1 - a))


def _polygamma_samples(dtype, rng):
    """Orders 0 to 4, the low ones on both sides of the poles (high orders near a pole overflow 16-bit floats)."""
    out = [Sample((n, np.asarray(random_array(dtype, (3, 4), rng, (-2.9, 6.0) if n < 2 else (0.5, 6.0), (1, 10)))))
           for n in range(5)]
    return out + [
        Sample((1, np.asarray(random_array(dtype, shape, rng, (0.1, 40.0), (1, 10))))) for shape in [(), (0, 3)]
    ]


def _square(a):
    return np.square(a.astype(np.int64)) if a.dtype == np.bool_ else np.square(a)


def _square_samples(dtype, rng):
    return [
        Sample((np.asarray(random_array(dtype, shape, rng, (-3, 3), (-9, 10))),))
        for shape in [(3, 4), (), (0, 2), (5,)]
    ]


def _square_check(got, sample, dtype):
    want = ember.int64 if dtype == "bool" else getattr(ember, dtype)
    assert got.dtype == want, f"square({dtype}) gave {got.dtype}, expected {want}"


POSITIVE = (0.1, 5.0)
UNIT = (-0.95, 0.95)

register(
    OpInfo("neg", ref=np.negative),
    OpInfo("abs", ref=np.abs),
    OpInfo("exp", ref=np.exp),
    OpInfo("absolute", ref=np.abs),
    OpInfo("negative", ref=np.negative),
    OpInfo("positive", ref=lambda a: a.copy()),
    OpInfo("square", ref=_square, sample_inputs=_square_samples, check=_square_check),
    OpInfo("sign", ref=_sign),
    OpInfo("sgn", ref=_sgn),
    OpInfo("reciprocal", ref=lambda a: 1 / a),
    OpInfo("sqrt", ref=np.sqrt, domain=POSITIVE),
    OpInfo("rsqrt", ref=lambda a: 1 / np.sqrt(a), domain=POSITIVE),
    OpInfo("exp2", ref=np.exp2),
    OpInfo("expm1", ref=np.expm1),
    OpInfo("log", ref=np.log, domain=POSITIVE),
    OpInfo("log2", ref=np.log2, domain=POSITIVE),
    OpInfo("log10", ref=np.log10, domain=POSITIVE),
    OpInfo("log1p", ref=np.log1p, domain=(-0.9, 3.0)),
    OpInfo("sin", ref=np.sin),
    OpInfo("cos", ref=np.cos),
    OpInfo("tan", ref=np.tan, domain=(-1.4, 1.4)),
    OpInfo("asin", ref=np.arcsin, domain=UNIT),
    OpInfo("acos", ref=np.arccos, domain=UNIT),
    OpInfo("atan", ref=np.arctan),
    OpInfo("sinh", ref=np.sinh),
    OpInfo("cosh", ref=np.cosh),
    OpInfo("tanh", ref=np.tanh),
    OpInfo("asinh", ref=np.arcsinh),
    OpInfo("acosh", ref=np.arccosh, domain=(1.05, 5.0)),
    OpInfo("atanh", ref=np.arctanh, domain=UNIT),
    OpInfo("arcsin", ref=np.arcsin, domain=UNIT),
    OpInfo("arccos", ref=np.arccos, domain=UNIT),
    OpInfo("arctan", ref=np.arctan),
    OpInfo("arcsinh", ref=np.arcsinh),
    OpInfo("arccosh", ref=np.arccosh, domain=(1.05, 5.0)),
    OpInfo("arctanh", ref=np.arctanh, domain=UNIT),
    OpInfo("sigmoid", ref=lambda a: 1 / (1 + np.exp(-a))),
    OpInfo("logit", ref=_logit, domain=(0.05, 0.95), kwargs=[{}, {"eps": 0.2}]),
    OpInfo("erf", ref=special.erf),
    OpInfo("erfc", ref=special.erfc),
    OpInfo("erfinv", ref=special.erfinv, domain=(-0.99, 0.99)),
    OpInfo("lgamma", ref=special.gammaln, domain=(-2.9, 5.0), int_domain=(1, 10)),
    OpInfo("digamma", ref=special.digamma, domain=(-2.9, 5.0), int_domain=(1, 10)),
    OpInfo("polygamma", ref=lambda n, a: special.polygamma(n, a), sample_inputs=_polygamma_samples,
           tol={"float32": (1e-5, 1e-6)}),
    OpInfo("floor", ref=np.floor),
    OpInfo("ceil", ref=np.ceil),
    OpInfo("trunc", ref=np.trunc),
    OpInfo("fix", ref=np.trunc),
    OpInfo("frac", ref=lambda a: a - np.trunc(a)),
    OpInfo("round", ref=np.round),
)
