"""C++ classes registered for scripting (ember::jit::class_, ember.classes.NS.Name): constructed and called from
eager Python and from scripted code, passed and returned, held by scripted modules and saved with them (their
__getstate__ state), pickled, and the errors for unknown classes, methods and arguments. The registered classes
used are embertext's (its Vocab table), the first extension that registers any."""
import pickle
import subprocess
import sys
from typing import List

import pytest

import ember

embertext = pytest.importorskip("embertext")


def _vocab(tokens, default=None):
    return ember.classes.text.Vocab(tokens, default)


def test_eager_construction_and_methods():
    v = _vocab(["a", "b", "c"])
    assert isinstance(v, ember.classes.ScriptObject) and isinstance(v, ember.classes.text.Vocab)
    assert v._call("indices", ["c", "a"]) == [2, 0] and v._call("__len__") == 3
    assert v._call("__contains__", "b") and not v._call("__contains__", "z")
    v._call("append_token", "d")
    assert v._call("itos") == ["a", "b", "c", "d"] and v._call("stoi") == {"a": 0, "b": 1, "c": 2, "d": 3}
    with pytest.raises(RuntimeError, match="Token z not found and default index is not set"):
        v._call("index", "z")
    v._call("set_default_index", 1)
    assert v._call("index", "z") == 1 and v._call("default_index") == 1


def test_scripted_code_constructs_calls_and_returns():
    def f(tokens: List[str], extra: str) -> ember.classes.text.Vocab:
        v = ember.classes.text.Vocab(tokens, None)
        v.append_token(extra)
        v.set_default_index(len(v) - 1)
        return v

    sf = ember.jit.script(f)
    v = sf(["x", "y"], "<unk>")
    assert v._call("itos") == ["x", "y", "<unk>"] and v._call("index", "nope") == 2

    def g(v: ember.classes.text.Vocab, words: List[str]) -> List[int]:
        out = v.indices(words)
        if "y" in v:
            out.append(v["y"] * 100)
        return out

    assert ember.jit.script(g)(v, ["y", "q"]) == [1, 2, 100]


def test_objects_are_shared_not_copied():
    v = _vocab(["a"])

    def grow(v: ember.classes.text.Vocab) -> int:
        v.append_token("b")
        return len(v)

    assert ember.jit.script(grow)(v) == 2 and v._call("itos") == ["a", "b"]


def test_pickle_uses_the_state():
    v = _vocab(["a", "b"], 0)
    w = pickle.loads(pickle.dumps(v))
    assert w._call("itos") == ["a", "b"] and w._call("index", "zz") == 0
    assert v.__getstate__() == (["a", "b"], 0)


class Lookup(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = _vocab(["<unk>", "cat", "dog"], 0)

    def forward(self, words: List[str]) -> ember.Tensor:
        return ember.tensor(self.table.indices(words), dtype=ember.long)


def test_module_holding_an_object_saves_and_loads(tmp_path):
    m = Lookup()
    sm = ember.jit.script(m)
    assert sm(["dog", "x"]).tolist() == m(["dog", "x"]).tolist() == [2, 0]
    path = str(tmp_path / "lookup.pt")
    sm.save(path)
    ok = subprocess.run([sys.executable, "-c", f"import ember, embertext; m = ember.jit.load({path!r}); "
                         "print(m(['cat', 'dog', 'bird']).tolist())"], capture_output=True, text=True, check=True)
    assert ok.stdout.strip() == "[1, 2, 0]"
    missing = subprocess.run([sys.executable, "-c", f"import ember; ember.jit.load({path!r})"],
                             capture_output=True, text=True)
    assert missing.returncode != 0
    assert "RuntimeError" in missing.stderr and "text.Vocab" in missing.stderr
    assert "import the extension" in missing.stderr


def test_errors():
    with pytest.raises(RuntimeError, match="Tried to instantiate class 'nope.Thing', but it does not exist"):
        ember.classes.nope.Thing
    v = _vocab(["a"])
    with pytest.raises(AttributeError, match="no attribute 'frobnicate'"):
        v._call("frobnicate")
    with pytest.raises(TypeError, match="expected a value of type 'List\\[str\\]'"):
        v._call("indices", "a")
    with pytest.raises(TypeError, match="takes 2 argument"):
        ember.classes.text.Vocab(["a"])

    def bad_method(v: ember.classes.text.Vocab) -> int:
        return v.frobnicate()

    with pytest.raises(RuntimeError, match="has no method 'frobnicate'") as e:
        ember.jit.script(bad_method)
    assert "<--- HERE" in str(e.value)

    def bad_arg(v: ember.classes.text.Vocab) -> int:
        return v.index(3)

    with pytest.raises(RuntimeError, match="argument 1 of index\\(\\) expects str, got int"):
        ember.jit.script(bad_arg)
