"""The generated type stubs of ember._C (tools/opgen/pyi.py, installed as ember/_C/*.pyi beside the
extension): they are the generator's current output, declare every generated function (in its
namespace's stub) and Tensor method with the schema's parameters, and mypy reads them: a call with a
wrong argument is an error, a right one is not."""
import ast
import importlib.util
import keyword
import os
import pathlib
import subprocess
import sys

import pytest

import ember
from tools.opgen import opdb, pyi

OPS = opdb.load()
STUBS = pathlib.Path(ember.__file__).parent / "_C"


def _stub(rel):
    path = STUBS / rel
    assert path.is_file(), f"{path} is missing: the core's build writes it (make setup)"
    return path.read_text()


def _param_names(fn: ast.FunctionDef):
    a = fn.args
    return [p.arg[:-1] if p.arg.endswith("_") and keyword.iskeyword(p.arg[:-1]) else p.arg
            for p in a.posonlyargs + a.args + a.kwonlyargs]


def _defs(body):
    out = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, []).append(node)
    return out


def test_the_installed_stubs_are_the_generators_output():
    for rel, text in pyi.gen_stubs(OPS).items():
        assert _stub(rel[len("_C/"):]) == text, f"{rel} is stale: rebuild the core"


@pytest.mark.parametrize("namespace", [None, *opdb.NAMESPACES])
def test_every_function_is_declared_with_its_parameters(namespace):
    rel = f"{opdb.NAMESPACES[namespace]}.pyi" if namespace else "__init__.pyi"
    tree = ast.parse(_stub(rel))
    defs = _defs(tree.body)
    for op in OPS:
        if op.namespace != namespace or "function" not in op.variants:
            continue
        want = [a.name for a in op.args] + (["out"] if "out" in op.variants else [])
        assert any(_param_names(d) == want for d in defs.get(op.py_name, [])), f"{op.name} in {rel}"


def test_every_method_is_declared_on_tensorbase():
    tree = ast.parse(_stub("__init__.pyi"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "TensorBase"]
    defs = _defs(cls.body)
    for op in OPS:
        for kind in ("method", "inplace"):
            if kind in op.variants:
                name = op.public_name + ("_" if kind == "inplace" else "")
                want = ["self"] + [a.name for a in op.args[1:]]
                assert any(_param_names(d) == want for d in defs.get(name, [])), f"Tensor.{name}"


USER_CODE = '''
import ember

x = ember.ones(2, 3)
y: ember.Tensor = ember.exp(x)
z = ember.linalg.cholesky(x @ x.mT, upper=True)
v, i = ember.max(x, 1)
w = x.add(y, alpha=2).exp_().sum(dim=1)
s = ember.special.erfcx(y)
{bad}
'''


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (the Makefile installs it)")
@pytest.mark.parametrize("bad,error", [
    ("", None),
    ("ember.exp(x, upper=True)", 'Unexpected keyword argument "upper" for "exp"'),
    ("ember.linalg.cholesky(x, 3)", 'Too many positional arguments for "cholesky"'),
    ("x.exp_(1)", 'Too many arguments for "exp_" of "TensorBase"'),
    ("ember.special.erfcx('a')", 'Argument 1 to "erfcx" has incompatible type "str"'),
])
def test_mypy_reads_the_stubs(tmp_path, bad, error):
    (tmp_path / "user.py").write_text(USER_CODE.format(bad=bad))
    env = dict(os.environ, MYPYPATH=str(pathlib.Path(ember.__file__).parent.parent))
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
                        "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(tmp_path / "user.py")],
                       capture_output=True, text=True, env=env, timeout=600)
    errors = [line for line in r.stdout.splitlines() if "user.py" in line and ": error:" in line]
    if error is None:
        assert errors == [], r.stdout
    else:
        bad_line = f"user.py:{USER_CODE.count(chr(10))}:"  # only the last line is wrong
        assert errors and error in errors[0] and all(bad_line in e for e in errors), r.stdout
