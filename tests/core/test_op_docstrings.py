"""The op database's `doc:` strings are what users see: every generated function and Tensor method
has a docstring that starts with its Python-visible signature (as PyTorch's do), whose parameters
are the schema's, followed by the entry's doc."""
import ast
import keyword
import pydoc
import re

import pytest

import ember
from tools.opgen import opdb

OPS = opdb.load()
BY_NAME = {o.name: o for o in OPS}


def _bound(kind):
    """(op, name, callable) for every generated binding of this kind (overloads share their target's)."""
    out = []
    for op in OPS:
        if op.overload_of or kind not in op.variants:
            continue
        if kind == "function":
            out.append((op, op.py_name, _binding(op)))
        else:
            name = op.name + ("_" if kind == "inplace" else "")
            out.append((op, name, ember._C.TensorBase.__dict__[name]))
    return out


def _binding(op):
    """The generated function itself (`_C.exp`, `_C._linalg.cholesky`), not a Python override."""
    obj = ember
    for part in op.binding_path.split("."):
        obj = getattr(obj, part)
    return obj


def _params_of(first_line):
    """The parameter names of a `name(a, b=1, *, out=None) -> T` line, parsed as Python (a parameter
    named with a Python keyword, `from` of uniform_, as PyTorch's docstrings write it, parsed as from_)."""
    call, _, ret = first_line.partition(" -> ")
    assert ret, f"no return type in {first_line!r}"
    call = re.sub(r"\b(" + "|".join(keyword.kwlist) + r")=", r"\1_=", call)
    fn = ast.parse(f"def {call}: pass").body[0]
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    return fn.name, [n[:-1] if n.endswith("_") and keyword.iskeyword(n[:-1]) else n for n in names]


@pytest.mark.parametrize("kind", ["function", "method", "inplace"])
def test_every_binding_starts_with_its_signature(kind):
    bound = _bound(kind)
    assert len(bound) > (150 if kind != "inplace" else 20)
    for op, name, f in bound:
        doc = f.__doc__
        assert doc and doc.strip(), f"{name} has no docstring"
        fname, params = _params_of(doc.splitlines()[0])
        want = [a.name for a in op.args]
        if kind != "function":
            want = want[1:]
        if kind == "function" and "out" in op.variants:
            want.append("out")
        assert (fname, params) == (name, want), f"{kind} {name}: {doc.splitlines()[0]!r}"
        assert op.doc.strip() in doc, f"{name}: the entry's doc is missing from {doc!r}"


def test_every_function_and_method_has_a_doc():
    undocumented = [o.name for o in OPS if not o.doc.strip() and {"function", "method", "inplace"} & set(o.variants)]
    assert undocumented == []


def test_help_shows_the_signature_and_the_doc():
    for obj in (ember.exp, ember.Tensor.exp):
        text = pydoc.render_doc(obj)
        assert BY_NAME["exp"].doc in text
    assert "exp(input, *, out=None) -> Tensor" in pydoc.render_doc(ember.exp)
    assert "exp() -> Tensor" in pydoc.render_doc(ember.Tensor.exp)
    assert "cholesky(input, *, upper=False, out=None) -> Tensor" in pydoc.render_doc(ember.linalg.cholesky)


def test_overloads_list_every_signature():
    doc = ember.max.__doc__ if isinstance(ember.max, type(ember._C.max)) else ember._C.max.__doc__
    lines = doc.splitlines()
    assert lines[0] == "max(input) -> Tensor"
    assert "max(input, dim, keepdim=False, *, out=None) -> (Tensor values, Tensor indices)" in lines[:3]
