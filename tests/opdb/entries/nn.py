"""OpInfos for core/ops/nn.yaml: the activation functions against NumPy/SciPy formulas written
from PyTorch's documentation."""
import numpy as np
from scipy import special

from opdb.opinfo import OpInfo, register

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _elu(a, alpha=1.0, scale=1.0, input_scale=1.0):
    return scale * np.where(a > 0, a, alpha * np.expm1(a * input_scale))


def _softplus(a, beta=1.0, threshold=20.0):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


def _gelu(a, approximate="none"):
    if approximate == "tanh":
        return 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))
    return 0.5 * a * (1 + special.erf(a / np.sqrt(2)))


def _hardtanh(a, min_val=-1.0, max_val=1.0):
    return np.clip(a, min_val, max_val)


register(
    OpInfo("relu", ref=lambda a: np.maximum(a, 0)),
    OpInfo("leaky_relu", ref=lambda a, negative_slope=0.01: np.where(a > 0, a, a * negative_slope),
           kwargs=[{}, {"negative_slope": 0.2}]),
    OpInfo("elu", ref=_elu, kwargs=[{}, {"alpha": 0.5}, {"alpha": SELU_ALPHA, "scale": SELU_SCALE},
                                    {"alpha": 1.5, "scale": 2.0, "input_scale": 0.5}]),
    OpInfo("celu", ref=lambda a, alpha=1.0: np.maximum(0, a) + np.minimum(0, alpha * np.expm1(a / alpha)),
           kwargs=[{}, {"alpha": 2.0}]),
    OpInfo("gelu", ref=_gelu, kwargs=[{}, {"approximate": "tanh"}]),
    OpInfo("silu", ref=lambda a: a * special.expit(a)),
    OpInfo("mish", ref=lambda a: a * np.tanh(np.log1p(np.exp(a)))),
    OpInfo("softplus", ref=_softplus, kwargs=[{}, {"beta": 2.0, "threshold": 3.0}]),
    OpInfo("softsign", ref=lambda a: a / (1 + np.abs(a))),
    OpInfo("hardtanh", ref=_hardtanh, kwargs=[{}, {"min_val": -0.5, "max_val": 2.0}]),
    OpInfo("hardsigmoid", ref=lambda a: np.clip(a / 6 + 0.5, 0, 1), domain=(-5.0, 5.0)),
    OpInfo("hardswish", ref=lambda a: a * np.clip(a + 3, 0, 6) / 6, domain=(-5.0, 5.0)),
    OpInfo("logsigmoid", ref=lambda a: -np.logaddexp(0, -a)),
    OpInfo("tanhshrink", ref=lambda a: a - np.tanh(a)),
    OpInfo("threshold", ref=lambda a, threshold, value: np.where(a > threshold, a, value),
           kwargs=[{"threshold": 0.5, "value": -2.0}]),
    OpInfo("softshrink", ref=lambda a, lambd=0.5: np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, 0)),
           kwargs=[{}, {"lambd": 1.0}]),
    OpInfo("hardshrink", ref=lambda a, lambd=0.5: np.where(np.abs(a) > lambd, a, 0), kwargs=[{}, {"lambd": 1.0}]),
)


def _softmax_samples(dtype, rng):
    from opdb.opinfo import Sample, random_array
    out = [Sample((np.asarray(random_array(dtype, shape, rng, (-4, 4), (-3, 3))),), {"dim": dim})
           for shape, dim in [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((), 0), ((0, 3), 1)]]
    if dtype == "float32":  # dtype= casts first
        out.append(Sample((np.asarray(random_array(dtype, (2, 3), rng, (-4, 4), (-3, 3))),),
                          {"dim": 1, "dtype": __import__("ember").float64}))
    return out


def _softmax(a, dim, dtype=None):
    return special.softmax(a.astype(np.float64), axis=dim) if a.ndim else np.ones_like(a, dtype=np.float64)


def _log_softmax(a, dim, dtype=None):
    return special.log_softmax(a.astype(np.float64), axis=dim) if a.ndim else np.zeros_like(a, dtype=np.float64)


register(
    OpInfo("softmax", ref=_softmax, sample_inputs=_softmax_samples),
    OpInfo("log_softmax", ref=_log_softmax, sample_inputs=_softmax_samples),
)
