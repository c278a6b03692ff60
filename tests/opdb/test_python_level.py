"""Generic tests for the OpInfos of Python-written ops (tests/opdb/entries, extra["python_level"]): every sample,
per declared dtype, against the NumPy/SciPy reference; the Tensor method against the function where there
is one; and gradcheck in float64 on small samples, every floating tensor argument a leaf."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from ember.testing.opinfo import REGISTRY, check_against_reference, compare, numpy_tree, reference_args, sample_args
from opdb import entries  # noqa: F401

PYTHON_LEVEL = sorted(name for name, info in REGISTRY.items() if info.extra.get("python_level"))
PARAMS = [(name, d) for name in PYTHON_LEVEL for d in REGISTRY[name].extra["dtypes"]]
GRAD = [name for name in PYTHON_LEVEL if REGISTRY[name].extra["grad"]]


def resolve(name):
    obj = ember
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name,dtype", PARAMS, ids=[f"{n}-{d}" for n, d in PARAMS])
def test_against_reference(name, dtype):
    assert check_against_reference(REGISTRY[name], resolve(name), dtype) > 0


@pytest.mark.parametrize("name", [n for n in PYTHON_LEVEL if REGISTRY[n].extra["method"]])
def test_method_matches_reference(name):
    info = REGISTRY[name]
    dtype = info.extra["dtypes"][-1]  # the widest declared
    for sample in info.sample_inputs(dtype, np.random.default_rng(7)):
        args, kwargs = sample_args(sample, dtype)
        want = info.ref(*reference_args(args), **kwargs)  # first: an in-place method changes its arguments
        got = getattr(args[0], name.rsplit(".", 1)[-1])(*args[1:], **kwargs)
        if "compare_as" in info.extra:
            got, want = info.extra["compare_as"](numpy_tree(got)), info.extra["compare_as"](want)
        compare(got, want, dtype, info, f"{name} method {sample.kwargs}")


def _leaves(x):
    """x with NumPy float (complex) arrays made float64 (complex128) leaves that require grad (also inside lists
    and tuples)."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return ember.tensor(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64), requires_grad=True)
    if isinstance(x, np.ndarray):
        return ember.tensor(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_leaves(i) for i in x)
    return x


def _flat(x):
    if isinstance(x, ember.Tensor):
        return [x] if x.requires_grad else []
    if isinstance(x, (list, tuple)):
        return [t for i in x for t in _flat(i)]
    return []


def _rebuild(template, leaves):
    """template with its grad-requiring tensors replaced, in order, by leaves (gradcheck's inputs)."""
    if isinstance(template, ember.Tensor):
        return leaves.pop(0) if template.requires_grad else template
    if isinstance(template, (list, tuple)):
        return type(template)(_rebuild(i, leaves) for i in template)
    return template


@pytest.mark.parametrize("name", GRAD)
def test_gradcheck(name):
    info, fn = REGISTRY[name], resolve(name)
    rng = np.random.default_rng(3)
    samples = info.extra["grad_samples"](rng) if info.extra["grad_samples"] else [
        (s.args, s.kwargs) for s in info.sample_inputs("float64", rng)]
    assert samples
    for args, kwargs in samples:
        args = _leaves(list(args))
        inputs = _flat(args)

        def call(*leaves):
            out = fn(*_rebuild(args, list(leaves)), **kwargs)
            outs = out if isinstance(out, (tuple, list)) else (out,)
            return tuple(o for o in outs if isinstance(o, ember.Tensor) and (o.is_floating_point() or o.is_complex()))
        assert gradcheck(call, tuple(inputs)), f"{name} {kwargs}"
