"""Generic gradient tests: every op with backward formulas in the op database (or composite), for float64 and
complex128 when declared, passes gradcheck (analytic against finite differences) and gradgradcheck
on small sample inputs, and its forward-mode tangents match central differences. Elementwise ops draw
inputs from their OpInfo's domain; the others use their OpInfo's sample inputs (the small ones)."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from opdb import entries  # noqa: F401
from ember.testing.opinfo import REGISTRY, random_array
from tools.opgen import opdb

ALL_OPS = {op.name: op for op in opdb.load()}
# Composite ops (made of recorded ops) differentiate through their parts: checked the same way.
DIFFERENTIABLE = [op for op in ALL_OPS.values() if isinstance(op.entry.get("backward"), dict) or op.composite]
# Pairs that finite differences cannot check, or whose derivative is missing; each is named in the
# closing note. The samplers' zero gradients are checked in tests/core/test_autograd.py.
SAMPLER = "a random sampler: each call draws anew, and its gradient (zero) is tested directly"
KNOWN_BAD: dict[str, str] = {
    "bernoulli-float64": SAMPLER,
    "poisson-float64": SAMPLER,
    "_random_to-float64": SAMPLER,
    "_standard_gamma-float64": "a random sampler whose gradient is the implicit reparameterization one: checked "
                               "against SciPy in tests/distributions/test_sampler_ops.py",
    **{f"linalg_matrix_rank{v}-{d}": "an integer result (a count): nothing to differentiate"
       for v in ("", "_tol") for d in ("float64", "complex128")},
}
# In-place view ops change the tensor's geometry, which forward mode's copy-back cannot carry: it refuses
# them by name (tests/breadth/test_breadth_inplace_views_resize.py checks the error).
FORWARD_UNSUPPORTED = {name: "forward-mode AD of in-place view ops is refused (NotImplementedError)"
                       for name in ("t_", "transpose_", "squeeze_", "unsqueeze_", "as_strided_")}
MAX_NUMEL = 24  # finite differences cost two calls per input element


def _dtypes(op):
    return [d for d in ("float64", "complex128") if d in op.dtypes]


PARAMS = [(op, d) for op in DIFFERENTIABLE for d in _dtypes(op)]


def _leafify(x, dtype):
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "fc":
            return ember.tensor(x.astype(np.complex128 if dtype == "complex128" else np.float64), requires_grad=True)
        return ember.tensor(x)
    if isinstance(x, (list, tuple)) and x and all(isinstance(i, np.ndarray) for i in x):
        return type(x)(_leafify(i, dtype) for i in x)
    return x


def _numel(args):
    n = 0
    for a in args:
        if isinstance(a, ember.Tensor):
            n += a.numel()
        elif isinstance(a, (list, tuple)):
            n += _numel(a)
    return n


def _small_samples(rng, dtype="float64"):
    """Small inputs for ops whose OpInfo samples are all too large or not smooth (NaN)."""
    r = rng.standard_normal
    unique = np.array([[0, 1, 2], [2, 0, 1]])
    dup = np.array([[0, 1, 1], [0, 1, 2]])
    return {
        "baddbmm": [((r((2, 2, 3)), r((2, 2, 4)), r((2, 4, 3))), {"beta": 0.5, "alpha": 2.0})],
        "index_add": [((r((3, 2)), 0, np.array([2, 0]), r((2, 2))), {"alpha": 1.5})],
        "masked_fill": [((r((2, 3)), np.array([[True, False, True], [False, False, True]]), 0.5), {})],
        "nansum": [((r((2, 3)),), {"dim": 1})],
        "_to_copy": [((r((2, 2)),), {"dtype": ember.complex128})],  # the gradient comes back real
        "_div_trunc": [((r((2, 3)), r((2, 3)) + 3.0), {})],
        "nanmean": [((r((2, 3)),), {"dim": [1]}), ((r((2, 3)),), {})],
        # Plain scatter's gradient is defined for unique indices (a duplicate's losing write has none).
        "scatter": [((r((3, 4)), 0, unique, r((2, 3))), {}), ((r((3, 4)), 0, dup, r((2, 3))), {"reduce": "add"}),
                    ((r((3, 4)), 0, unique, r((3, 4))), {})],
        "scatter_reduce": [((r((3, 4)), 0, dup, r((2, 3)), red), {"include_self": inc})
                           for red in ("sum", "prod", "mean") + (("amax", "amin") if dtype == "float64" else ())
                           for inc in (True, False)],
        "index_put": [((r((4, 3)), [np.array([0, 2])], r((2, 3))), {}),
                      ((r((4, 3)), [np.array([1, 1, 3])], r((3,))), {"accumulate": True})],
        "masked_scatter": [((r((2, 3)), np.array([[True, False, True], [False, False, True]]), r((5,))), {})],
        # (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups), tiny
        "convolution": [((r((1, 2, 5)), r((2, 2, 2)), r((2,)), [2], [1], [1], False, [0], 1), {}),
                        ((r((1, 1, 3, 3)), r((2, 1, 2, 2)), None, [1], [0], [1], False, [0], 1), {}),
                        ((r((1, 2, 4)), r((2, 1, 2)), r((2,)), [1], [0], [2], False, [0], 2), {}),
                        ((r((1, 2, 2, 2)), r((2, 1, 2, 2)), r((1,)), [2], [1], [1], True, [1], 1), {})],
        "convolution_weight_grad": [((r((1, 2, 3)), r((1, 2, 4)), [2, 2, 2], [1], [0], [1], 1), {})],
        "max_pool": [((r((1, 2, 5)), [2]), {"stride": [1]}), ((r((1, 1, 3, 4)), [2, 2]), {"ceil_mode": True})],
        "adaptive_max_pool": [((r((1, 2, 5)), [2]), {})],
        "avg_pool": [((r((1, 2, 5)), [3]), {"stride": [2], "padding": [1]}),
                     ((r((1, 1, 3, 4)), [2, 2]), {"ceil_mode": True, "count_include_pad": False})],
        "avg_pool_backward": [((r((1, 1, 3)), [1, 1, 5], [3]), {"stride": [2], "padding": [1]})],
        "adaptive_avg_pool": [((r((1, 2, 5)), [3]), {})],
        "adaptive_avg_pool_backward": [((r((1, 1, 3)), [1, 1, 7]), {})],
        "native_batch_norm": [((r((3, 2, 2)), r((2,)), r((2,)), None, None, True, 0.1, 1e-5), {}),
                              ((r((4, 3)), None, r((3,)), None, None, True, 0.1, 1e-3), {})],
    }


def _samples(op, dtype):
    info = REGISTRY.get(op.name)
    rng = np.random.default_rng(3)
    small = _small_samples(rng, dtype).get(op.name)
    if small:
        return [([_leafify(np.asarray(a) if isinstance(a, np.ndarray) else a, dtype) for a in args], kw)
                for args, kw in small]
    if info is None:
        return []
    if info.sample_inputs is not None:
        out = []
        for s in info.sample_inputs(dtype, rng):
            args = [_leafify(a, dtype) for a in s.args]
            if 0 < _numel(args) <= MAX_NUMEL and _smooth_here(op, args, dict(s.kwargs)):
                out.append((args, dict(s.kwargs)))
        return out
    shapes = [(2, 3), (3,), (2, 1)][: len(op.tensor_args)]
    arrays = [random_array(dtype, s, rng, info.rhs_domain if i == 1 and info.rhs_domain else info.domain,
                           info.int_domain, nonzero=info.nonzero_rhs and i == 1) for i, s in enumerate(shapes)]
    return [([_leafify(a, dtype) for a in arrays], dict(kw)) for kw in info.kwargs[:2]]


def _smooth_here(op, args, kwargs):
    """Whether finite differences mean something at this sample: finite inputs whose values are
    apart (no ties for max/sort/median to break), and finite outputs. The samples that test
    NaN, inf and tie-breaking in the forward tests are left out here."""
    values = np.concatenate([t.detach().numpy().ravel() for t in _flat_tensors(args)] or [np.zeros(0)])
    if not np.all(np.isfinite(values)):
        return False
    if values.dtype.kind == "f" and values.size > 1 and np.min(np.diff(np.sort(values))) < 1e-3:
        return False
    leaves = _flat_tensors(args)
    out = _caller(op, args, kwargs)(*leaves)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, ember.Tensor)]
    if not all(np.all(np.isfinite(o.detach().numpy())) for o in outs):
        return False
    # An infinite derivative (std of one element, sqrt at 0) is a point no finite difference can check.
    diff = [o for o in outs if o.requires_grad]
    grads = ember.autograd.grad([o.real.sum() if o.is_complex() else o.sum() for o in diff], leaves,
                                allow_unused=True) if diff else ()
    return all(g is None or np.all(np.isfinite(g.numpy())) for g in grads)


def _flat_tensors(args):
    out = []
    for a in args:
        if isinstance(a, ember.Tensor) and a.requires_grad:
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out += _flat_tensors(a)
    return out


def _caller(op, args, kwargs):
    """fn(*leaves) calling the op with the leaves put back where they were in args."""
    fn = op.function(ember) if "function" in op.variants else None
    writes = op.name.endswith("_") or not {"function", "method"} & set(op.variants)  # copy_, uniform_...
    name = op.public_name if {"function", "method"} & set(op.variants) else op.public_name + "_"

    def rebuild(it, a):
        if isinstance(a, ember.Tensor) and a.requires_grad:
            return next(it)
        if isinstance(a, (list, tuple)):
            return type(a)(rebuild(it, x) for x in a)
        return a

    def call(*leaves):
        it = iter(leaves)
        new = [rebuild(it, a) for a in args]
        if writes:  # in-place ops write into a copy (a leaf that requires grad may not be written)
            new[0] = new[0] * 1.0
        if fn is not None:
            return fn(*new, **kwargs)
        return getattr(new[0], name)(*new[1:], **kwargs)
    # An op whose result is unique only up to signs/phases, or that reads one triangle of its input,
    # is checked through a function that is well defined (its OpInfo's grad_wrap, as PyTorch's
    # gradcheck wrappers).
    wrap = REGISTRY[op.name].extra.get("grad_wrap") if op.name in REGISTRY else None
    return wrap(call) if wrap else call


def _check(op, dtype, check, n_samples, atol):
    """Runs check (gradcheck or gradgradcheck) on the op's first samples that have a leaf."""
    if f"{op.name}-{dtype}" in KNOWN_BAD:
        pytest.skip(KNOWN_BAD[f"{op.name}-{dtype}"])
    samples = [(args, kw) for args, kw in _samples(op, dtype) if _flat_tensors(args)]
    if op.name not in _small_samples(np.random.default_rng(0)):  # the hand-made samples are all checked
        samples = samples[:n_samples]
    if not samples:
        pytest.skip("no small sample inputs with a floating-point tensor")
    for args, kwargs in samples:
        leaves = tuple(_flat_tensors(args))
        assert check(_caller(op, args, kwargs), leaves, eps=1e-6, atol=atol, rtol=1e-3), f"{op.name} {kwargs}"


@pytest.mark.parametrize("op,dtype", PARAMS, ids=[f"{o.name}-{d}" for o, d in PARAMS])
def test_gradcheck(op, dtype):
    _check(op, dtype, gradcheck, 3, 1e-5)


@pytest.mark.parametrize("op,dtype", PARAMS, ids=[f"{o.name}-{d}" for o, d in PARAMS])
def test_gradgradcheck(op, dtype):
    _check(op, dtype, gradgradcheck, 1, 1e-4)


def _jvp_by_differences(fn, leaves, tangents, eps=1e-6):
    """(f(x + eps t) - f(x - eps t)) / 2 eps for every output: the reference for forward mode."""
    with ember.no_grad():
        plus = fn(*[(x + eps * t).detach() for x, t in zip(leaves, tangents)])
        minus = fn(*[(x - eps * t).detach() for x, t in zip(leaves, tangents)])
    plus = plus if isinstance(plus, (tuple, list)) else (plus,)
    minus = minus if isinstance(minus, (tuple, list)) else (minus,)
    return [None if not isinstance(p, ember.Tensor) or not (p.is_floating_point() or p.is_complex()) else
            (p.numpy() - m.numpy()) / (2 * eps) for p, m in zip(plus, minus)]


@pytest.mark.parametrize("op,dtype", PARAMS, ids=[f"{o.name}-{d}" for o, d in PARAMS])
def test_forward_mode(op, dtype):
    """Forward-mode AD (dual tensors) gives J t, checked against central differences along t."""
    from ember.autograd import forward_ad
    if f"{op.name}-{dtype}" in KNOWN_BAD:
        pytest.skip(KNOWN_BAD[f"{op.name}-{dtype}"])
    if op.name in FORWARD_UNSUPPORTED:
        pytest.skip(FORWARD_UNSUPPORTED[op.name])
    samples = [(args, kw) for args, kw in _samples(op, dtype) if _flat_tensors(args)][:2]
    if not samples:
        pytest.skip("no small sample inputs with a floating-point tensor")
    rng = np.random.default_rng(5)
    for args, kwargs in samples:
        leaves = tuple(t.detach() for t in _flat_tensors(args))
        tangents = [ember.tensor(rng.standard_normal(x.shape).astype(np.float64) if not x.is_complex() else
                                 (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape))) for x in leaves]
        want = _jvp_by_differences(_caller(op, args, kwargs), leaves, tangents)
        with forward_ad.dual_level():
            out = _caller(op, args, kwargs)(*[forward_ad.make_dual(x, t) for x, t in zip(leaves, tangents)])
            outs = out if isinstance(out, (tuple, list)) else (out,)
            got = [forward_ad.unpack_dual(o).tangent if isinstance(o, ember.Tensor) else None for o in outs]
        for g, w in zip(got, want):
            if w is None:
                continue
            assert g is not None, f"{op.name}: an output has no tangent"
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5, err_msg=f"{op.name} {kwargs}")
