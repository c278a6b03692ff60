"""`import ember` loads neither NumPy nor the heavy optional submodules (they load on first use), so
the import stays fast (tools/bench 'import time' measures it); each still works when asked for."""
import subprocess
import sys

HEAVY = ["numpy", "ember.distributions", "ember.hub", "ember.testing.opinfo", "http.client"]


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def test_import_ember_leaves_heavy_modules_unloaded():
    loaded = _run(f"import sys, ember; print(*[m for m in {HEAVY!r} if m in sys.modules])")
    assert loaded == []


def test_lazy_submodules_load_on_first_use():
    out = _run("import ember; print(ember.distributions.Normal.__name__, type(ember.hub.get_dir()).__name__)")
    assert out == ["Normal", "str"]
    out = _run("import ember.distributions as D; print(D.Bernoulli.__name__)")
    assert out == ["Bernoulli"]
