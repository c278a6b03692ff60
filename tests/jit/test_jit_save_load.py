"""ember.jit.save / load: the archive loads in a fresh process that imports only ember and gives the same
outputs; the graph text round-trips through the IR parser; storages shared by views stay shared;
_extra_files and map_location; bad files are refused by name."""
import io
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import ember
import ember.jit
import ember.nn as nn
from ember._C import _jit


def test_graph_text_round_trips_through_the_parser():
    def f(x, n: int, s: str):
        y = x
        for i in range(n):
            if i % 2 == 0:
                y = y * 1.5
            else:
                y = y - 0.25
        if s == "quote\" and\nnewline":
            y = y + 1
        return y, [n, 2], (0.1, True, None)
    g = ember.jit.script(f)._g
    text, tensors = g.saved_text()
    assert str(_jit.parse_graph(text, tensors)) == str(g)


def test_parser_names_the_line_of_bad_text():
    with pytest.raises(ValueError, match="line 2"):
        _jit.parse_graph("graph(%x : Tensor):\n  %1 : Tensor = aten::sin(%y)\n  return (%1)\n", [])
    with pytest.raises(ValueError, match="unknown op"):
        _jit.parse_graph("graph(%x : Tensor):\n  %1 : Tensor = aten::no_such_op(%x)\n  return (%1)\n", [])


@pytest.mark.parametrize("compile", ["script", "trace"])
def test_module_loads_in_a_fresh_process_without_its_source(tmp_path, compile):
    x = ember.randn(2, 2, 6, 6)
    if compile == "script":
        m = nn.Sequential(nn.Flatten(), nn.Linear(72, 5), nn.ReLU(), nn.Dropout(0.2), nn.Linear(5, 2)).eval()
        s = ember.jit.script(m)
        params = {"1.weight", "4.bias"}
    else:
        m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(48, 2)).eval()
        s = ember.jit.trace(m, x)
        params = {"1.running_mean", "0.weight"}
    s.save(str(tmp_path / "m.pt"), _extra_files={"note.txt": "hello"})
    ember.save({"x": x, "y": m(x).detach()}, str(tmp_path / "io.pt"))
    code = ("import ember, ember.jit, sys\n"
            f"d = ember.load({str(tmp_path / 'io.pt')!r})\n"
            "extra = {'note.txt': '', 'absent.txt': 'left'}\n"
            f"m = ember.jit.load({str(tmp_path / 'm.pt')!r}, _extra_files=extra)\n"
            "assert extra == {'note.txt': b'hello', 'absent.txt': 'left'}, extra\n"
            "assert set(sys.modules).isdisjoint({'numpy.testing', 'pytest'})\n"
            "print((m(d['x']) - d['y']).abs().max().item())\n"
            "print(sorted(dict(m.state_dict())))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    err, keys = out.stdout.splitlines()
    assert float(err) < 1e-5
    assert all(p in keys for p in params)


def test_traced_function_with_tensor_constants_and_shared_storage():
    base = ember.arange(6.0)
    a, b = base[:3], base[3:]  # two views of one storage, captured as constants

    def f(x):
        return x * a + b
    t = ember.jit.trace(f, ember.ones(3))
    buf = io.BytesIO()
    ember.jit.save(t, buf)
    buf.seek(0)
    with zipfile.ZipFile(buf) as z:
        storages = [n for n in z.namelist() if "/data/" in n]
    assert len(storages) == 1  # one storage for both views
    buf.seek(0)
    loaded = ember.jit.load(buf)
    x = ember.tensor([2.0, 3.0, 4.0])
    np.testing.assert_allclose(loaded(x).numpy(), (x * a + b).numpy())
    assert loaded.graph == t.graph


def test_tied_parameters_load_sharing_memory():
    m = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3))
    m[1].weight = m[0].weight
    buf = io.BytesIO()
    ember.jit.save(ember.jit.script(m), buf)
    buf.seek(0)
    loaded = ember.jit.load(buf)
    w0, w1 = loaded.original_module.get_submodule("0").weight, loaded.original_module.get_submodule("1").weight
    with ember.no_grad():
        w0.fill_(2.0)
    assert w1.sum().item() == 18.0


def test_map_location_moves_tensors():
    buf = io.BytesIO()
    ember.jit.save(ember.jit.script(nn.Linear(2, 2)), buf)
    buf.seek(0)
    loaded = ember.jit.load(buf, map_location="meta")
    assert loaded.weight.device.type == "meta"


def test_save_refuses_what_it_cannot_write_and_load_what_it_did_not():
    with pytest.raises(TypeError, match="ScriptModule or ScriptFunction"):
        ember.jit.save(nn.Linear(2, 2), io.BytesIO())
    buf = io.BytesIO()
    ember.save({"w": ember.ones(2)}, buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="ember.jit.save"):
        ember.jit.load(buf)
