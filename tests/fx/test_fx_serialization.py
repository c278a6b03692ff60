"""GraphModule copies and files: deepcopy, pickle, ember.save/ember.load (a GraphModule is not a
weights-only object: ember.load's default weights_only=True refuses it, weights_only=False loads it, as
in PyTorch), to_folder (an importable package), and the printed forms."""
import copy
import importlib
import pickle
import sys

import pytest

import ember
import ember.fx as fx
import ember.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm2d(3)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(48, 5))
        self.register_buffer("offset", ember.arange(5.0))
        self.scale = nn.Parameter(ember.full((5,), 0.5))

    def forward(self, x):
        y = ember.relu(self.bn(self.conv(x)))
        return self.head(y) * self.scale + self.offset + ember.tensor([1.0, 0.0, 0.0, 0.0, 2.0])


@pytest.fixture
def traced():
    ember.manual_seed(0)
    model = Net().eval()
    return model, fx.symbolic_trace(model), ember.randn(2, 2, 4, 4)


def test_deepcopy_is_independent(traced):
    model, gm, x = traced
    dup = copy.deepcopy(gm)
    assert ember.equal(dup(x), model(x))
    assert dup.code == gm.code and str(dup.graph) == str(gm.graph)
    assert dup.graph is not gm.graph and dup.graph.owning_module is dup
    with ember.no_grad():
        dup.scale.fill_(0.0)
    assert not ember.equal(dup(x), gm(x)) and ember.equal(gm(x), model(x))
    assert type(dup) is not type(gm)  # each GraphModule has its own class for its forward


def test_pickle_round_trip(traced):
    model, gm, x = traced
    back = pickle.loads(pickle.dumps(gm))
    assert isinstance(back, fx.GraphModule)
    assert ember.equal(back(x), model(x))
    assert [n.op for n in back.graph.nodes] == [n.op for n in gm.graph.nodes]
    assert type(back).__name__ == "Net"


def test_ember_save_load_needs_weights_only_false(traced, tmp_path):
    model, gm, x = traced
    path = tmp_path / "gm.pt"
    ember.save(gm, path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ember.load(path)  # the default is weights_only=True: a GraphModule is code, not weights
    back = ember.load(path, weights_only=False)
    assert ember.equal(back(x), model(x))
    assert back.code == gm.code


def test_to_folder_writes_an_importable_module(traced, tmp_path, monkeypatch):
    model, gm, x = traced
    folder = tmp_path / "exported_net"
    gm.to_folder(folder, "ExportedNet")
    assert {p.name for p in folder.iterdir()} >= {"__init__.py", "module.py", "state_dict.pt", "head.pt"}
    source = (folder / "module.py").read_text()
    assert "self.conv = Conv2d(2, 3, kernel_size=(3, 3)" in source  # a safe repr is written as a constructor
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("exported_net", None)
    mod = importlib.import_module("exported_net")
    rebuilt = mod.ExportedNet().eval()
    assert not isinstance(rebuilt, fx.GraphModule)
    assert ember.equal(rebuilt(x), model(x))


def test_printed_forms(traced):
    _, gm, _ = traced
    code = gm.code
    assert "def forward(self, x):" in code
    assert "relu = ember.relu(bn);  bn = None" in code
    assert "head_0 = getattr(self.head, \"0\")(relu);  relu = None" in code
    text = str(gm)
    assert text.startswith("Net(") and code in text
    assert "graph_module.print_readable()" in text
    readable = gm.print_readable(print_output=False)
    assert readable.startswith("class Net(ember.nn.Module):") and "    def forward(self, x):" in readable


def test_constants_in_code_survive_pickling():
    def f(x):
        y = x.to(device=ember.device("cpu"), dtype=ember.float64)
        return y.masked_fill(y > 1e30, float("inf")).contiguous(memory_format=ember.contiguous_format)
    gm = fx.symbolic_trace(f)
    assert "device = device('cpu'), dtype = ember.float64" in gm.code
    back = pickle.loads(pickle.dumps(gm))
    x = ember.tensor([1.0, 2e38])
    assert ember.equal(back(x), f(x)) and back(x).dtype == ember.float64
