"""Where the generated ops are bound: the top level of ember holds exactly the database's top-level
ops (ember._C.__all__) and hand-written functions; ops with a `namespace:` live in ember.linalg,
ember.special, ... under PyTorch's names, and not under their aten names at the top level
(PyTorch has no torch.linalg_cholesky or torch.special_erfcx)."""
import types

import pytest

import ember
from tools.opgen import opdb

OPS = opdb.load()
NAMESPACED = [o for o in OPS if o.namespace and "function" in o.variants and not o.overload_of]


@pytest.mark.parametrize("name", ["linalg_cholesky", "linalg_solve", "linalg_vector_norm", "special_erfcx",
                                  "special_i1", "gelu", "leaky_relu", "max_pool_backward", "batch_norm_backward"])
def test_namespaced_ops_are_not_at_the_top_level(name):
    with pytest.raises(AttributeError):
        getattr(ember, name)
    assert not hasattr(ember._C, name)


def test_linalg_and_special_export_their_ops_under_pytorchs_names():
    assert ember.linalg.cholesky is ember._C._linalg.cholesky
    assert ember.special.erfcx is ember._C._special.erfcx
    for op in NAMESPACED:
        if op.namespace in ("linalg", "special", "fft"):
            ns = getattr(ember, op.namespace)
            assert getattr(ns, op.py_name) is getattr(ember._C, "_" + op.namespace).__dict__[op.py_name]
            assert op.py_name in ns.__all__


def test_namespaced_ops_work_from_their_namespace():
    a = ember.tensor([[4.0, 2.0], [2.0, 3.0]])
    low = ember.linalg.cholesky(a)
    assert ember.allclose(low @ low.mT, a)
    assert ember.special.erfcx(ember.tensor([0.0])).item() == 1.0


def test_the_top_level_gets_exactly_the_top_level_ops():
    top = [o for o in OPS if o.namespace is None and "function" in o.variants and not o.overload_of
           and not o.name.startswith("_")]
    # their aliases (ember.divide) and the in-place functions PyTorch has at its top level (ember.exp_)
    want = sorted([o.py_name for o in top] + [a for o in top for a in o.aliases] +
                  [n + "_" for o in OPS if "inplace_function" in o.variants for n in [o.name] + o.aliases])
    assert sorted(ember._C.__all__) == want
    for name in want:
        assert hasattr(ember, name), name
    # every builtin function at ember's top level is a top-level op or a hand-written function
    hand_written = {"tensor", "as_tensor", "from_numpy", "from_dlpack", "is_anomaly_enabled",
                    "is_anomaly_check_nan_enabled", "can_cast", "get_default_dtype", "set_default_dtype",
                    "promote_types", "result_type", "get_num_threads", "set_num_threads",
                    "get_num_interop_threads", "set_num_interop_threads", "_standard_gamma", "_standard_gamma_grad",
                    "is_grad_enabled", "is_inference_mode_enabled"}
    builtins = {n for n, v in vars(ember).items() if isinstance(v, types.BuiltinFunctionType)}
    assert builtins - set(want) - hand_written == set()


def test_pytorchs_aten_names_at_its_top_level_stay():
    """PyTorch keeps these aten names at torch's top level (torch.igamma, torch.i0, ...)."""
    for name in ("igamma", "igammac", "i0", "mvlgamma", "xlogy", "lgamma", "digamma", "polygamma", "erfinv",
                 "logit", "sinc", "relu", "celu", "threshold", "hardshrink"):
        assert callable(getattr(ember, name)), name


def test_nn_functional_wraps_the_nn_ops():
    x = ember.tensor([-1.0, 0.5])
    assert ember.nn.functional.leaky_relu(x, 0.1).tolist() == pytest.approx([-0.1, 0.5])
    assert ember._C._nn.leaky_relu(x, 0.1).tolist() == pytest.approx([-0.1, 0.5])
    y = x.clone()
    assert ember.nn.functional.elu(y, inplace=True) is y


def test_the_resolver_finds_every_function():
    for op in OPS:
        if "function" in op.variants:
            assert callable(op.function(ember)), op.name
