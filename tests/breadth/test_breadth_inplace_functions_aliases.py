"""Top-level in-place functions (ember.exp_, as torch.exp_) and aliases bound from the op database's
`aliases:` key (ember.divide is div's binding under a second name)."""
import math

import numpy as np
import pytest

import ember
from tools.opgen import opdb

# PyTorch 2.13's top-level in-place functions whose op ember's database has (torch.NAME_ exists).
TORCH_INPLACE_FUNCTIONS = (
    "abs acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh ceil cos cosh erf erfc exp2 "
    "exp expm1 fix floor frac log10 log1p log2 log neg negative reciprocal round rsqrt sigmoid sin sinh sqrt square "
    "tan tanh trunc").split()
UNARY_REFS = {"abs": np.abs, "acos": np.arccos, "arccos": np.arccos, "asin": np.arcsin, "arcsin": np.arcsin,
              "atan": np.arctan, "arctan": np.arctan, "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh,
              "exp2": np.exp2, "exp": np.exp, "expm1": np.expm1, "fix": np.trunc, "floor": np.floor,
              "log10": np.log10, "log1p": np.log1p, "log2": np.log2, "log": np.log, "neg": np.negative,
              "negative": np.negative, "reciprocal": np.reciprocal, "round": np.round,
              "rsqrt": lambda x: 1 / np.sqrt(x), "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "sin": np.sin,
              "sinh": np.sinh, "sqrt": np.sqrt, "square": np.square, "tan": np.tan, "tanh": np.tanh,
              "trunc": np.trunc, "asinh": np.arcsinh, "arcsinh": np.arcsinh, "atanh": np.arctanh,
              "arctanh": np.arctanh, "frac": lambda x: x - np.trunc(x), "erf": np.vectorize(math.erf),
              "erfc": np.vectorize(math.erfc)}


@pytest.mark.parametrize("name", sorted(UNARY_REFS))
def test_inplace_function_writes_into_its_argument(name):
    x = np.array([0.1, 0.35, 0.6, 0.85], dtype=np.float64)
    t = ember.tensor(x)
    out = getattr(ember, name + "_")(t)
    assert out is t
    np.testing.assert_allclose(t.numpy(), UNARY_REFS[name](x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["acosh", "arccosh"])
def test_inplace_function_acosh(name):
    x = np.array([1.5, 2.0, 9.0])
    t = ember.tensor(x)
    getattr(ember, name + "_")(t)
    np.testing.assert_allclose(t.numpy(), np.arccosh(x), rtol=1e-12)


def test_every_torch_inplace_function_of_the_database_exists():
    missing = [n + "_" for n in TORCH_INPLACE_FUNCTIONS if not callable(getattr(ember, n + "_", None))]
    assert not missing


def test_inplace_functions_with_arguments():
    t = ember.tensor([-2.0, 0.5, 3.0])
    ember.clamp_(t, min=-1, max=1)
    assert t.tolist() == [-1.0, 0.5, 1.0]
    ember.clip_(t, 0.0)
    assert t.tolist() == [0.0, 0.5, 1.0]
    ember.clamp_min_(t, 0.25)
    ember.clamp_max_(t, 0.75)
    assert t.tolist() == [0.25, 0.5, 0.75]
    ember.fill_(t, 2.5)
    assert t.tolist() == [2.5, 2.5, 2.5]
    r = ember.tensor([-1.0, 2.0])
    assert ember.relu_(r) is r and r.tolist() == [0.0, 2.0]
    ember.threshold_(r, 1.0, -5.0)
    assert r.tolist() == [-5.0, 2.0]
    n = ember.tensor([float("nan"), float("inf"), 1.0])
    ember.nan_to_num_(n, nan=0.0, posinf=9.0)
    assert n.tolist() == [0.0, 9.0, 1.0]
    c = ember.tensor([-1.0, 1.0])
    ember.celu_(c, alpha=2.0)
    np.testing.assert_allclose(c.numpy(), [2.0 * (math.exp(-0.5) - 1), 1.0])
    x = ember.tensor([0.0, 2.0])
    ember.xlogy_(x, ember.tensor([3.0, 4.0]))
    np.testing.assert_allclose(x.numpy(), [0.0, 2 * math.log(4.0)])


def test_inplace_function_bad_input_raises_like_the_method():
    t = ember.tensor([1, 2])
    with pytest.raises(RuntimeError) as f:
        ember.exp_(t)
    with pytest.raises(RuntimeError) as m:
        t.exp_()
    assert str(f.value) == str(m.value)
    with pytest.raises(TypeError):
        ember.exp_([1.0])


def test_inplace_function_records_autograd_like_the_method():
    w = ember.tensor([0.5, 1.0], requires_grad=True)
    y = w * 1
    ember.exp_(y)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.exp([0.5, 1.0]))


ALIASES = {"divide": "div", "multiply": "mul", "subtract": "sub", "greater": "gt", "greater_equal": "ge",
           "less": "lt", "less_equal": "le", "not_equal": "ne"}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_alias_function_method_and_inplace_match_the_op(alias):
    target = ALIASES[alias]
    a = ember.tensor([1.0, 2.0, 3.0])
    b = ember.tensor([2.0, 2.0, 1.0])
    assert getattr(ember, alias)(a, b).tolist() == getattr(ember, target)(a, b).tolist()
    assert getattr(a, alias)(b).tolist() == getattr(a, target)(b).tolist()
    c, d = a.clone(), a.clone()
    getattr(c, alias + "_")(b)
    getattr(d, target + "_")(b)
    assert c.tolist() == d.tolist()
    out = ember.empty(0)
    getattr(ember, alias)(a, b, out=out)
    assert out.tolist() == getattr(ember, target)(a, b).tolist()


def test_alias_keeps_the_ops_keyword_arguments():
    a = ember.tensor([7, -7])
    assert ember.divide(a, 2, rounding_mode="floor").tolist() == [3, -4]
    assert ember.subtract(a, 1, alpha=3).tolist() == [4, -10]
    assert ember.row_stack([ember.tensor([1, 2]), ember.tensor([3, 4])]).tolist() == [[1, 2], [3, 4]]
    assert ember.divide.__doc__.startswith("divide(input, other")
    assert "Alias of div." in ember.Tensor.divide.__doc__


def test_aliases_are_declared_in_the_database_not_copied():
    ops = {o.name: o for o in opdb.load()}
    for alias, target in ALIASES.items():
        assert alias in ops[target].aliases and alias not in ops


def test_bad_aliases_key_is_refused(tmp_path):
    (tmp_path / "x.yaml").write_text(
        "- name: foo\n  schema: foo(Tensor input) -> Tensor\n  aliases: bar\n  differentiable: false\n")
    with pytest.raises(ValueError, match="foo: aliases: takes a list"):
        opdb.load(tmp_path)
    (tmp_path / "x.yaml").write_text(
        "- name: foo\n  schema: foo(Tensor input) -> Tensor\n  variants: [function, inplace_function]\n")
    with pytest.raises(ValueError, match="inplace_function needs the inplace variant"):
        opdb.load(tmp_path)
    (tmp_path / "x.yaml").write_text(
        "- name: foo\n  schema: foo(Tensor input) -> Tensor\n  aliases: [bar]\n"
        "- name: bar\n  schema: bar(Tensor input) -> Tensor\n")
    with pytest.raises(ValueError, match="alias bar is already an op"):
        opdb.load(tmp_path)
