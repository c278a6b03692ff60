"""OpInfos for core/ops/binary.yaml."""
import numpy as np

from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _add(a, b, alpha=1):
    return a + alpha * b if a.dtype != np.bool_ else np.logical_or(a, b)


def _div(a, b, rounding_mode=None):
    if rounding_mode is None:
        return a / b
    if rounding_mode == "trunc":
        return np.trunc(a / b) if a.dtype.kind in "fc" else np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))
    return np.floor_divide(a, b)


def _float_power_samples(dtype, rng):
    # the result is float64 (complex128 for complex inputs) whatever the input dtypes
    base = random_array(dtype, (3, 4), rng, (0.1, 2.0), (0, 4))
    exp = random_array(dtype, (3, 4), rng, (-2.0, 2.0), (0, 3))
    return [Sample((base, exp)), Sample((base, 2)), Sample((base, 0.5))]


register(
    OpInfo("add", ref=_add, kwargs=[{}, {"alpha": 2}]),
    OpInfo("sub", ref=lambda a, b, alpha=1: a - alpha * b, kwargs=[{}, {"alpha": 3}]),
    OpInfo("mul", ref=lambda a, b: a * b if a.dtype != np.bool_ else np.logical_and(a, b)),
    # rounding modes change the result dtype rule; tests/core/test_division.py covers them
    OpInfo("div", ref=_div, nonzero_rhs=True),
    OpInfo("true_divide", ref=np.true_divide, nonzero_rhs=True),
    OpInfo("floor_divide", ref=np.floor_divide, nonzero_rhs=True),
    OpInfo("remainder", ref=np.remainder, nonzero_rhs=True),
    OpInfo("fmod", ref=np.fmod, nonzero_rhs=True),
    OpInfo("pow", ref=np.power, domain=(0.1, 2.0), rhs_domain=(-2.0, 2.0), int_domain=(-3, 4),
           rhs_int_domain=(0, 4)),
    OpInfo("float_power", ref=np.float_power, sample_inputs=_float_power_samples),
    OpInfo("atan2", ref=np.arctan2),
    OpInfo("arctan2", ref=np.arctan2),
    OpInfo("hypot", ref=np.hypot),
    OpInfo("copysign", ref=np.copysign),
    OpInfo("minimum", ref=np.minimum),
    OpInfo("maximum", ref=np.maximum),
    OpInfo("fmin", ref=np.fmin),
    OpInfo("fmax", ref=np.fmax),
)
