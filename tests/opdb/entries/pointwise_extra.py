"""OpInfos for core/ops/pointwise_extra.yaml: references are NumPy's functions or plain formulas."""
import numpy as np

from ember.testing.opinfo import OpInfo, register


def _logaddexp2(a, b):
    return np.logaddexp2(a, b)


def _heaviside(a, values):
    # PyTorch's rule (NaN input gives 0, where NumPy gives NaN): values at 0, else the step
    return np.where(a == 0, values, (a > 0).astype(values.dtype))


register(
    OpInfo("deg2rad", ref=np.deg2rad, int_domain=(-360, 360)),
    OpInfo("rad2deg", ref=np.rad2deg),
    OpInfo("logaddexp", ref=np.logaddexp, domain=(-30.0, 30.0)),
    OpInfo("logaddexp2", ref=_logaddexp2, domain=(-30.0, 30.0)),
    OpInfo("gcd", ref=np.gcd, int_domain=(-60, 61)),
    OpInfo("lcm", ref=np.lcm, int_domain=(-11, 12)),
    OpInfo("heaviside", ref=_heaviside, int_domain=(-2, 3)),
    OpInfo("nextafter", ref=np.nextafter),
    OpInfo("signbit", ref=np.signbit),
    OpInfo("ldexp", ref=lambda a, b: a * np.exp2(b), rhs_domain=(-4.0, 4.0), int_domain=(-4, 5)),
    OpInfo("addcmul", ref=lambda a, b, c, value=1: a + value * b * c, kwargs=[{}, {"value": 2}]),
    OpInfo("addcdiv", ref=lambda a, b, c, value=1: a + value * b / c, domain=(0.5, 3.0),
           kwargs=[{}, {"value": 0.5}],
           skips={"undeclared_dtype": "integer operands get PyTorch's message, which names no dtype "
                                      "(tests/breadth/test_breadth_pointwise_extra.py checks it)"}),
)
