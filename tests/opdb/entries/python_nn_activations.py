"""OpInfos of ember.nn.functional's activations, softmaxes, linear, normalize and one_hot (Python wrappers over the
op database's kernels, with PyTorch's keyword names and inplace= forms) against closed forms in NumPy/SciPy."""
import numpy as np
import scipy.special as sps

from ember.testing.opinfo import Sample, register

from ._nn_samples import noncontig, plain_grad_samples, r, unary_cases
from ._python_level import python_opinfo

LOW = ("bfloat16", "float32", "float64")
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.logaddexp(0, beta * x) / beta)


def _softmax(x, dim=None, _stacklevel=3, dtype=None):
    return sps.softmax(x, axis=dim)


REFS = {
    "celu": lambda x, alpha=1.0, inplace=False: np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha)),
    "elu": lambda x, alpha=1.0, inplace=False: np.where(x > 0, x, alpha * np.expm1(x)),
    "hardsigmoid": lambda x, inplace=False: np.clip(x / 6 + 0.5, 0, 1),
    "hardswish": lambda x, inplace=False: x * np.clip(x + 3, 0, 6) / 6,
    "hardtanh": lambda x, min_val=-1.0, max_val=1.0, inplace=False: np.clip(x, min_val, max_val),
    "leaky_relu": lambda x, negative_slope=0.01, inplace=False: np.where(x > 0, x, negative_slope * x),
    "logsigmoid": lambda x: -np.logaddexp(0, -x),
    "mish": lambda x, inplace=False: x * np.tanh(np.logaddexp(0, x)),
    "relu": lambda x, inplace=False: np.maximum(x, 0),
    "relu6": lambda x, inplace=False: np.clip(x, 0, 6),
    # outside training rrelu is leaky_relu with the mean of its slope range
    "rrelu": lambda x, lower=1 / 8, upper=1 / 3, training=False, inplace=False: np.where(
        x >= 0, x, x * (lower + upper) / 2),
    "selu": lambda x, inplace=False: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x)),
    "sigmoid": sps.expit,
    "silu": lambda x, inplace=False: x * sps.expit(x),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "tanh": np.tanh,
    "tanhshrink": lambda x: x - np.tanh(x),
    "hardshrink": lambda x, lambd=0.5: np.where(np.abs(x) > lambd, x, 0.0),
    "softshrink": lambda x, lambd=0.5: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0.0)),
    "softplus": _softplus,
    "threshold": lambda x, threshold, value, inplace=False: np.where(x > threshold, x, value),
}
KWARGS = {
    "celu": ({}, {"alpha": 0.5}, {"inplace": True}), "elu": ({}, {"alpha": 2.0}, {"inplace": True}),
    "hardtanh": ({}, {"min_val": -0.5, "max_val": 2.0}, {"inplace": True}),
    "leaky_relu": ({}, {"negative_slope": 0.2}, {"inplace": True}),
    "rrelu": ({}, {"lower": 0.1, "upper": 0.3}, {"inplace": True}),
    "hardshrink": ({}, {"lambd": 1.0}), "softshrink": ({}, {"lambd": 1.0}),
    "softplus": ({}, {"beta": 2.0, "threshold": 3.0}), "threshold": ({"threshold": 0.5, "value": -2.0},),
    "hardsigmoid": ({}, {"inplace": True}), "hardswish": ({}, {"inplace": True}), "mish": ({}, {"inplace": True}),
    "relu": ({}, {"inplace": True}), "relu6": ({}, {"inplace": True}), "selu": ({}, {"inplace": True}),
    "silu": ({}, {"inplace": True}),
}
# the underscore forms: nn.functional.NAME_(input, *args) changes input
IN_PLACE = {"celu_": ("celu", ({}, {"alpha": 0.5})), "elu_": ("elu", ({}, {"alpha": 2.0})),
            "hardtanh_": ("hardtanh", ({}, {"min_val": -0.5, "max_val": 2.0})),
            "leaky_relu_": ("leaky_relu", ({}, {"negative_slope": 0.2})), "relu_": ("relu", ({},)),
            "selu_": ("selu", ({},)), "threshold_": ("threshold", ({"threshold": 0.5, "value": -2.0},))}


def _threshold_cases(kwargs):
    """threshold_'s threshold and value are positional in PyTorch (F.threshold_(input, threshold, value))."""
    base = unary_cases(kwargs=({},))

    def samples(dtype, rng):
        return [Sample(s.args + (kw["threshold"], kw["value"]), {}) for s in base(dtype, rng) for kw in kwargs]
    return samples


def _unary(name):
    samples = unary_cases(kwargs=KWARGS.get(name, ({},)))
    return python_opinfo(f"nn.functional.{name}", REFS[name], samples, LOW, grad_samples=plain_grad_samples(samples))


def _in_place(name):
    base, kwargs = IN_PLACE[name]
    samples = _threshold_cases(kwargs) if base == "threshold" else unary_cases(kwargs=kwargs)
    return python_opinfo(f"nn.functional.{name}", REFS[base], samples, LOW, grad=False)


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + sps.erf(x / np.sqrt(2)))


def _glu(x, dim=-1):
    a, b = np.split(x, 2, axis=dim)
    return a * sps.expit(b)


def _normalize(x, p=2.0, dim=1, eps=1e-12, out=None):
    norm = np.sum(np.abs(x) ** p, axis=dim, keepdims=True) ** (1 / p) if np.isfinite(p) else \
        np.max(np.abs(x), axis=dim, keepdims=True)
    return x / np.maximum(norm, eps)


def _softmax_samples(dtype, rng):
    return [Sample((r(rng, 3, 4, scale=3),), {"dim": 1}), Sample((r(rng, 2, 3, 4, scale=3),), {"dim": 0}),
            Sample((r(rng, 2, 3, 4, scale=3),), {"dim": -1}), Sample((np.zeros((0, 3)),), {"dim": 1}),
            Sample((noncontig(r(rng, 4, 5), dtype),), {"dim": 0}), Sample((np.asarray(0.7),), {"dim": 0})]


def _glu_samples(dtype, rng):
    return [Sample((r(rng, 3, 4),)), Sample((r(rng, 4, 3, 2),), {"dim": 0}), Sample((np.zeros((0, 6)),)),
            Sample((noncontig(r(rng, 4, 6), dtype),), {"dim": -2})]


def _normalize_samples(dtype, rng):
    return [Sample((r(rng, 3, 4),)), Sample((r(rng, 2, 3, 4),), {"p": 1.0, "dim": -1}),
            Sample((r(rng, 3, 4),), {"p": float("inf"), "dim": 0}), Sample((np.zeros((2, 3)),)),  # eps guards 0/0
            Sample((noncontig(r(rng, 4, 5), dtype),), {"p": 3.0}), Sample((np.zeros((0, 3)),))]


def _linear_samples(dtype, rng):
    return [Sample((r(rng, 4, 3), r(rng, 5, 3), r(rng, 5))), Sample((r(rng, 2, 4, 3), r(rng, 5, 3))),
            Sample((r(rng, 3), r(rng, 2, 3), r(rng, 2))), Sample((np.zeros((0, 3)), r(rng, 5, 3), r(rng, 5))),
            Sample((noncontig(r(rng, 4, 3), dtype), noncontig(r(rng, 5, 3), dtype)))]


def _one_hot(x, num_classes=-1):
    n = int(x.max()) + 1 if num_classes == -1 else num_classes
    return (x[..., None] == np.arange(n)).astype(np.int64)


def _one_hot_samples(dtype, rng):
    return [Sample((rng.integers(0, 5, (3, 4)),)), Sample((rng.integers(0, 3, (5,)), 6)),
            Sample((np.zeros((0,), np.int64), 4)), Sample((np.asarray(2),), {"num_classes": 3})]


register(
    *[_unary(name) for name in REFS],
    *[_in_place(name) for name in IN_PLACE],
    python_opinfo("nn.functional.gelu", _gelu, unary_cases(kwargs=({}, {"approximate": "tanh"})), LOW,
                  grad_samples=plain_grad_samples(unary_cases(kwargs=({}, {"approximate": "tanh"})))),
    python_opinfo("nn.functional.glu", _glu, _glu_samples, LOW, grad_samples=plain_grad_samples(_glu_samples)),
    python_opinfo("nn.functional.softmax", _softmax, _softmax_samples, LOW,
                  grad_samples=plain_grad_samples(_softmax_samples)),
    python_opinfo("nn.functional.softmin", lambda x, dim=None, _stacklevel=3, dtype=None: _softmax(-x, dim),
                  _softmax_samples, LOW, grad_samples=plain_grad_samples(_softmax_samples)),
    python_opinfo("nn.functional.log_softmax", lambda x, dim=None, _stacklevel=3, dtype=None: sps.log_softmax(x, dim),
                  _softmax_samples, LOW, grad_samples=plain_grad_samples(_softmax_samples)),
    python_opinfo("nn.functional.normalize", _normalize, _normalize_samples,
                  grad_samples=lambda rng: [((r(rng, 3, 4),), {}), ((r(rng, 2, 3),), {"p": 1.0, "dim": -1})]),
    python_opinfo("nn.functional.linear", lambda x, w, b=None: x @ w.T + (0 if b is None else b), _linear_samples, LOW,
                  grad_samples=plain_grad_samples(_linear_samples)),
    python_opinfo("nn.functional.one_hot", _one_hot, _one_hot_samples, ("int64",), grad=False),
)
