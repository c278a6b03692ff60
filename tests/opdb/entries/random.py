"""OpInfos for core/ops/random.yaml. The generic harness compares with a NumPy reference, so the
samples here are the degenerate parameters whose result is certain (uniform_(x, x), normal_ with
std 0, random_(k, k + 1), bernoulli with p in {0, 1}, one-hot multinomial rows, ...): they check
dtypes, shapes, function/method forms and meta inputs. The laws themselves (KS and chi-square
tests with SciPy), reproducibility, thread-count and layout independence and the argument errors
are in tests/core/test_random.py; rand, randn, rand_like and randn_like have no certain parameter
and are tested there only."""
import numpy as np

import ember
from ember.testing.opinfo import COMPLEX, FLOATS, OpInfo, Sample, random_array, register

SHAPES = [(3, 4), (5,), (), (2, 0)]
RANDOM_ONLY = "no parameter makes its result certain: tests/core/test_random.py"


def _full_like(value):
    def ref(a, *args, **kwargs):
        dt = np.asarray(a).dtype
        v = value(dt) if callable(value) else value
        return np.full(np.shape(a), v, dtype=np.complex128 if dt.kind == "c" else np.float64 if dt.kind == "f" else dt)
    return ref


def _complex_both(x):
    return lambda dt: complex(x, x) if dt.kind == "c" else x


def _arrays(dtype, rng):
    return [random_array(dtype, s, rng, (-3, 3), (0, 5)) for s in SHAPES]


def _uniform_ref(a, *args, **kwargs):
    x = args[0] if args else kwargs["from"]
    return _full_like(_complex_both(x))(a)


def _uniform_samples(dtype, rng):
    return [Sample((a, 1.5, 1.5)) for a in _arrays(dtype, rng)] + [
        Sample((_arrays(dtype, rng)[0],), {"from": -2.0, "to": -2.0})
    ]


def _normal__samples(dtype, rng):
    return [Sample((a,), {"mean": -0.75, "std": 0.0}) for a in _arrays(dtype, rng)]


def _random__value(dtype):
    return 1 if dtype == "bool" else 3


def _random__samples(dtype, rng):
    k = _random__value(dtype)
    out = [Sample((a, k, k + 1)) for a in _arrays(dtype, rng)]
    if dtype != "bool":
        out.append(Sample((_arrays(dtype, rng)[0], 1)))  # random_(to=1): [0, 1) is 0
    return out


def _random__ref(a, *args, **kwargs):
    dt = np.asarray(a).dtype
    v = args[0] if len(args) == 2 else 0
    return np.full(np.shape(a), v, dtype=dt if dt.kind in "biu" else np.float64)


def _exponential_samples(dtype, rng):
    return [Sample((a, float("inf"))) for a in _arrays(dtype, rng)]  # -log(u) / inf = 0


def _geometric_samples(dtype, rng):
    # p so close to 1 that the first trial succeeds unless u < e^-20 (never at these sizes and seed).
    return [Sample((a, 1 - 2e-9)) for a in _arrays(dtype, rng)]


def _log_normal_samples(dtype, rng):
    return [Sample((a,), {"mean": 0.5, "std": 1e-30}) for a in _arrays(dtype, rng)]


def _cauchy_samples(dtype, rng):
    return [Sample((a,), {"median": -1.25, "sigma": 1e-30}) for a in _arrays(dtype, rng)]


def _zero_one(dtype, rng, shape):
    return np.asarray(rng.random(shape) < 0.5, dtype=np.float64)


def _bernoulli__samples(dtype, rng):
    out = [Sample((a, 0.0)) for a in _arrays(dtype, rng)] + [Sample((_arrays(dtype, rng)[0], 1.0))]
    # A tensor of probabilities in {0, 1}, broadcast over the rows.
    return out + [Sample((np.zeros((3, 4)), _zero_one(dtype, rng, (4,))))]


def _bernoulli__ref(a, p, **kwargs):
    dt = np.asarray(a).dtype
    return np.broadcast_to(np.asarray(p, dtype=np.float64), np.shape(a)).astype(dt if dt.kind in "biu" else np.float64)


def _bernoulli_samples(dtype, rng):
    return [Sample((_zero_one(dtype, rng, s),)) for s in SHAPES] + [Sample((np.ones((2, 3)), 0.0))]


def _bernoulli_ref(a, p=None, **kwargs):
    return np.zeros_like(a) if p is not None else np.asarray(a, dtype=np.float64)


def _multinomial_samples(dtype, rng):
    w = np.zeros((4, 6))
    w[np.arange(4), [2, 0, 5, 3]] = [0.5, 2.0, 1.0, 3.0]
    return [Sample((w, 5, True)), Sample((w, 1)), Sample((w[1], 3), {"replacement": True}), Sample((w[2], 1, False))]


def _multinomial_ref(w, n, replacement=False, **kwargs):
    hot = np.argmax(w, axis=-1)
    return np.repeat(hot[..., None], n, axis=-1).astype(np.int64)


def _normal_samples(dtype, rng):
    m = [random_array(dtype, s, rng, (-3, 3), (0, 5)) for s in [(3, 4), (5,), ()]]
    return [Sample((m[0], 0.0)), Sample((m[1], np.zeros((2, 5)))), Sample((1.5, np.zeros((2, 3)))),
            Sample((m[2],), {"std": 0.0})]


def _normal_ref(mean, std=1.0, **kwargs):
    return np.broadcast_to(np.asarray(mean, dtype=np.float64), np.broadcast_shapes(np.shape(mean), np.shape(std)))


def _poisson_samples(dtype, rng):
    return [Sample((np.zeros(s),)) for s in SHAPES]


def _randint_samples(dtype, rng):
    k = 1 if dtype == "bool" else 4
    d = getattr(ember, dtype)
    return [Sample((k, k + 1, s), {"dtype": d}) for s in [(2, 3), (4,), (), (2, 0)]] + [
        Sample((1, (3,)), {"dtype": d})]  # randint(high, size)


def _randint_ref(*args, dtype=None, **kwargs):
    name = repr(dtype).split(".", 1)[1]
    low, high, size = (0, *args) if len(args) == 2 else args
    return np.full(size, low, dtype=np.float64 if name in FLOATS + COMPLEX else name)


def _randint_like_samples(dtype, rng):
    k = 1 if dtype == "bool" else 4
    return [Sample((a, k, k + 1)) for a in _arrays(dtype, rng)] + [Sample((_arrays(dtype, rng)[0], 1))]


def _randint_like_ref(a, *args, **kwargs):
    low = args[0] if len(args) == 2 else 0
    dt = np.asarray(a).dtype
    return np.full(np.shape(a), low, dtype=dt if dt.kind in "biu" else np.float64)


def _randperm_samples(dtype, rng):
    return [Sample((1,), {"dtype": getattr(ember, dtype)}), Sample((0,), {"dtype": getattr(ember, dtype)})]


def _randperm_ref(n, dtype=None, **kwargs):
    name = repr(dtype).split(".", 1)[1]
    return np.arange(n, dtype=np.float64 if name in FLOATS else name)


def _gamma_grad_ref(a, x):
    """-(dP(a, x)/da) / pdf(a, x) by SciPy: central differences of gammainc in a (0 at x = 0)."""
    from scipy import special, stats
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    h = 1e-5 * np.maximum(a, 1.0)
    dp = (special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, -dp / stats.gamma.pdf(x, a))


def _binomial_samples(dtype, rng):
    count = np.floor(rng.uniform(0, 20, (3, 4)))
    prob = (rng.random((3, 4)) < 0.5).astype(np.float64)  # 0 or 1: the draw is 0 or count
    return [Sample((count, prob)), Sample((count[0], np.ones((2, 4)))), Sample((np.zeros((2, 0)), np.zeros((2, 0))))]


def _binomial_ref(count, prob, **kwargs):
    return np.where(np.asarray(prob) == 1, count, 0.0) + np.zeros(np.broadcast_shapes(np.shape(count), np.shape(prob)))


GAMMA_LAWS = "no parameter makes a Gamma draw certain: its law is tested in tests/distributions/test_sampler_ops.py"

NO_TENSOR_INPUT = {"meta": "no tensor input to move to meta: device='meta' is tested in tests/core/test_random.py"}

register(
    OpInfo("rand", skips={"all": RANDOM_ONLY}),
    OpInfo("rand_like", skips={"all": RANDOM_ONLY}),
    OpInfo("randn", skips={"all": RANDOM_ONLY}),
    OpInfo("randn_like", skips={"all": RANDOM_ONLY}),
    OpInfo("uniform_", ref=_uniform_ref, sample_inputs=_uniform_samples),
    OpInfo("normal_", ref=_full_like(_complex_both(-0.75)), sample_inputs=_normal__samples),
    OpInfo("random_", ref=_random__ref, sample_inputs=_random__samples),
    OpInfo("exponential_", ref=_full_like(0.0), sample_inputs=_exponential_samples),
    OpInfo("geometric_", ref=_full_like(1), sample_inputs=_geometric_samples),
    OpInfo("log_normal_", ref=_full_like(float(np.exp(0.5))), sample_inputs=_log_normal_samples),
    OpInfo("cauchy_", ref=_full_like(-1.25), sample_inputs=_cauchy_samples),
    OpInfo("bernoulli_", ref=_bernoulli__ref, sample_inputs=_bernoulli__samples),
    OpInfo("bernoulli", ref=_bernoulli_ref, sample_inputs=_bernoulli_samples),
    OpInfo("multinomial", ref=_multinomial_ref, sample_inputs=_multinomial_samples),
    OpInfo("normal", ref=_normal_ref, sample_inputs=_normal_samples),
    OpInfo("poisson", ref=lambda a, **kw: np.zeros(np.shape(a)), sample_inputs=_poisson_samples),
    OpInfo("_standard_gamma", skips={"all": GAMMA_LAWS}),
    OpInfo("_standard_gamma_grad", ref=_gamma_grad_ref, domain=(0.3, 8.0), rhs_domain=(0.05, 15.0), int_domain=(1, 10),
           rhs_int_domain=(0, 12), tol={"float64": (1e-6, 1e-9)}),
    OpInfo("binomial", ref=_binomial_ref, sample_inputs=_binomial_samples),
    OpInfo("randint", ref=_randint_ref, sample_inputs=_randint_samples, skips=NO_TENSOR_INPUT),
    OpInfo("randint_like", ref=_randint_like_ref, sample_inputs=_randint_like_samples),
    OpInfo("randperm", ref=_randperm_ref, sample_inputs=_randperm_samples, skips=NO_TENSOR_INPUT),
)
