"""Archive version 3: a saved scripted module's submodules keep their own forwards, so a loaded module's
submodules are callable nn.Modules as the saved ones were (FORMAT.md `submodules`). References: the eager
modules' outputs, and the archive's records and meta.json entries written out."""
import io
import json
import zipfile

import pytest

import ember
import ember.jit
from ember import nn


def _saved(m) -> io.BytesIO:
    buf = io.BytesIO()
    ember.jit.save(m, buf)
    buf.seek(0)
    return buf


def _model():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2), nn.Tanh()))


def test_loaded_submodules_run_their_own_forward():
    eager = _model()
    loaded = ember.jit.load(_saved(ember.jit.script(eager)))
    x = ember.randn(3, 2)
    with ember.no_grad():
        assert ember.allclose(loaded[0](x), eager[0](x))
        assert ember.allclose(loaded[2](eager[1](eager[0](x))), eager[2](eager[1](eager[0](x))))
        assert ember.allclose(loaded[2][1](x), ember.tanh(x))
        assert ember.allclose(loaded(x), eager(x))
    assert isinstance(loaded[2], nn.Module) and loaded[2].original_name == "Sequential"


def test_loaded_module_owns_its_tensors_and_trains():
    eager = _model()
    loaded = ember.jit.load(_saved(ember.jit.script(eager)))
    assert loaded[0].weight is not eager[0].weight and ember.equal(loaded[0].weight, eager[0].weight)
    x = ember.randn(3, 2)
    opt = ember.optim.SGD(loaded.parameters(), lr=0.5)
    loaded(x).sum().backward()
    opt.step()
    with ember.no_grad():
        w, b = loaded[0].weight, loaded[0].bias
        assert ember.allclose(loaded[0](x), x.mm(w.t()) + b)  # the submodule's graph reads the stepped weight
        assert not ember.allclose(loaded(x), eager(x))


def test_archive_lists_the_submodules():
    data = _saved(ember.jit.script(_model()))
    with zipfile.ZipFile(data) as z:
        names = [n for n in z.namelist() if n.startswith("archive/code/")]
        meta = json.loads(z.read("archive/code/meta.json"))
    assert names == ["archive/code/forward.graph", "archive/code/submodules/0.graph",
                     "archive/code/submodules/1.graph", "archive/code/submodules/2.graph",
                     "archive/code/submodules/2.0.graph", "archive/code/submodules/2.1.graph",
                     "archive/code/meta.json"]
    assert meta["version"] == 3
    first = meta["submodules"][0]
    assert first["path"] == "0" and first["params"] == ["input"] and first["return_type"] == "Tensor"
    assert first["attr_inputs"] == [{"module": "0", "name": "weight", "kind": "tensor"},
                                    {"module": "0", "name": "bias", "kind": "tensor"}]


def test_traced_modules_submodules_have_no_forward_after_loading():
    x = ember.randn(3, 2)
    loaded = ember.jit.load(_saved(ember.jit.trace(_model(), x)))
    assert "submodules" not in json.loads(zipfile.ZipFile(_saved(ember.jit.trace(_model(), x)))
                                          .read("archive/code/meta.json"))
    with pytest.raises(RuntimeError, match=r"holds no forward of this submodule \(Linear\): it was traced"):
        loaded[0](x)
