"""Saving graphs that reach Python: print of tensors (and f-strings, warnings) are the language's own and load
back bound to ember's Python; a call of an @ember.jit.ignore'd function of the model refuses to save as
torch.jit.save does ("Could not export Python function call ..."), and @ember.jit.ignore(drop=True) compiles
to a raise that saves and raises again after loading."""
import subprocess
import sys
import warnings

import pytest

import ember
import ember.jit


def printing(x):
    print("x is", x)
    print(f"sum={x.sum()} of {x}")
    return x + 1


def warning(x):
    warnings.warn("scripted warning")
    return x * 2


@ember.jit.ignore
def python_side(x: ember.Tensor) -> ember.Tensor:
    return x * 3


def calls_ignored(x):
    return python_side(x) + 1


@ember.jit.ignore(drop=True)
def dropped(x: ember.Tensor) -> ember.Tensor:
    return x * 3


def calls_dropped(x, flag: bool):
    if flag:
        return dropped(x)
    return x - 1


def _run_fresh(path, code):
    """Runs code in a new interpreter that imports nothing but ember (the model's source is not there)."""
    prog = f"import ember, ember.jit\ng = ember.jit.load({str(path)!r})\n{code}"
    # -u: Python's prints and the interpreter's own (C++) ones reach the pipe in the order they are made
    return subprocess.run([sys.executable, "-u", "-c", prog], capture_output=True, text=True, timeout=120)


def test_print_of_tensors_saves_and_prints_after_loading(tmp_path):
    x = ember.tensor([1.0, 2.0])
    path = tmp_path / "printing.pt"
    ember.jit.save(ember.jit.script(printing), path)
    done = _run_fresh(path, "print(g(ember.tensor([1.0, 2.0])).tolist())")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"x is {x}\nsum={x.sum()} of {x}\n[2.0, 3.0]\n"  # Python's print of the same values


def test_warning_saves_and_warns_after_loading(tmp_path):
    path = tmp_path / "warning.pt"
    ember.jit.save(ember.jit.script(warning), path)
    loaded = ember.jit.load(path)
    with pytest.warns(UserWarning, match="scripted warning"):
        out = loaded(ember.ones(2))
    assert out.tolist() == [2.0, 2.0]


def test_ignored_call_refuses_to_save_as_pytorch(tmp_path):
    s = ember.jit.script(calls_ignored)
    assert s(ember.ones(2)).tolist() == [4.0, 4.0]  # it runs while the Python is there
    with pytest.raises(RuntimeError, match="Could not export Python function call 'python_side'. Remove calls to "
                                           "Python functions before export"):
        ember.jit.save(s, tmp_path / "ignored.pt")


def test_ignored_function_named_like_a_builtin_is_still_refused(tmp_path):
    ns = {"__name__": "shadowing"}
    exec("import ember\n@ember.jit.ignore\ndef print(x: ember.Tensor) -> ember.Tensor:\n    return x\n", ns)
    shadow = ns["print"]

    def uses_shadow(x):
        return shadow(x)

    s = ember.jit.script(uses_shadow)
    assert 'prim::PythonOp[name="shadowing.print"]' in s.graph  # qualified by its module, not the builtin print
    with pytest.raises(RuntimeError, match="Could not export Python function call 'shadowing.print'"):
        ember.jit.save(s, tmp_path / "shadow.pt")


def test_dropped_call_raises_before_and_after_saving(tmp_path):
    s = ember.jit.script(calls_dropped)
    assert s(ember.ones(2), False).tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="dropped is marked @ember.jit.unused and cannot run in scripted code"):
        s(ember.ones(2), True)
    path = tmp_path / "dropped.pt"
    ember.jit.save(s, path)
    loaded = ember.jit.load(path)
    assert loaded(ember.ones(2), False).tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="dropped is marked @ember.jit.unused"):
        loaded(ember.ones(2), True)


def test_graph_text_calling_an_unknown_python_function_is_refused():
    from ember._C import _jit

    text = 'graph(%x : Tensor):\n  %1 : Tensor = prim::PythonOp[name="helper"](%x)\n  return (%1)\n'
    with pytest.raises(ValueError, match='calls the Python function "helper"'):
        _jit.parse_graph(text, [])
    g = _jit.parse_graph(text.replace('"helper"', '"print"').replace("%1 : Tensor", "%1 : NoneType")
                         .replace("return (%1)", "return (%x)"), [], {"print": lambda v: None})
    assert g.run([ember.ones(1)]).tolist() == [1.0]
