"""fx passes in detail: split_module, ShapeProp on structured outputs, replace_pattern's matching rules,
fuse for conv1d/linear + batchnorm, and nn.utils.fusion's weight folding against a NumPy reference."""
import operator

import numpy as np
import pytest

import ember
import ember.fx as fx
import ember.nn as nn
from ember.fx.experimental.optimization import fuse
from ember.fx.passes.shape_prop import ShapeProp, TensorMetadata
from ember.fx.passes.split_module import split_module
from ember.nn.utils.fusion import fuse_conv_bn_weights


class SplitMe(nn.Module):
    def __init__(self):
        super().__init__()
        self.param = nn.Parameter(ember.rand(4, 3))
        self.linear = nn.Linear(3, 5)

    def forward(self, x, y):
        z = self.linear(x + self.param).clamp(min=0.0, max=1.0)
        w = self.linear(y).clamp(min=0.0, max=1.0)
        return z + w


def test_split_module_partitions_by_callback():
    model = SplitMe()
    traced = fx.symbolic_trace(model)
    # the x branch in partition 0, the y branch in partition 1, the sum in partition 2
    part = {"add": 0, "linear": 0, "clamp": 0, "linear_1": 1, "clamp_1": 1, "add_1": 2}
    qualname_map = {}
    split = split_module(traced, model, lambda node: part[node.name], qualname_map)
    assert qualname_map == {"submod_0.linear": "linear", "submod_1.linear": "linear"}
    calls = [n for n in split.graph.nodes if n.op == "call_module"]
    assert [n.target for n in calls] == ["submod_0", "submod_1", "submod_2"]
    assert [a.name for a in calls[2].args] == ["submod_0", "submod_1"]
    assert [n.op for n in split.submod_0.graph.nodes].count("get_attr") == 1  # the parameter moves with its user
    x, y = ember.rand(4, 3), ember.rand(4, 3)
    assert ember.allclose(split(x, y), model(x, y))


def test_split_module_orders_partitions_by_dependency_and_unpacks_outputs():
    def f(a, b):
        c = a * 2
        d = b + c
        e = c - 1
        return d * e
    traced = fx.symbolic_trace(f)
    # partition "late" is seen first but depends on "early"; "early" returns two values
    part = {"mul": "early", "add": "early", "sub": "early", "mul_1": "late"}
    split = split_module(traced, None, lambda n: part[n.name])
    assert [n.target for n in split.graph.nodes if n.op == "call_module"] == ["submod_early", "submod_late"]
    assert [n.target for n in split.graph.nodes if n.op == "call_function"] == [operator.getitem, operator.getitem]
    a, b = ember.randn(3), ember.randn(3)
    assert ember.allclose(split(a, b), f(a, b))


def test_split_module_refuses_cyclic_partitions():
    def f(a):
        b = a + 1
        c = b * 2
        return c - b
    traced = fx.symbolic_trace(f)
    part = {"add": 0, "mul": 1, "sub": 0}
    with pytest.raises(RuntimeError, match="cycle exists between partitions"):
        split_module(traced, None, lambda n: part[n.name])


def test_shape_prop_structured_results():
    def f(x):
        a, b = x.split(2, dim=1)
        return a.t(), b.to(ember.float64), x.size()
    gm = fx.symbolic_trace(f)
    ShapeProp(gm).propagate(ember.randn(3, 4))
    nodes = {n.name: n for n in gm.graph.nodes}
    split_meta = nodes["split"].meta["tensor_meta"]
    assert isinstance(split_meta, tuple) and all(isinstance(m, TensorMetadata) for m in split_meta)
    assert [m.shape for m in split_meta] == [(3, 2), (3, 2)]
    assert nodes["t"].meta["tensor_meta"].stride == (1, 4)  # a view of the input's columns
    assert nodes["t"].meta["tensor_meta"].memory_format is None
    assert nodes["to"].meta["tensor_meta"].dtype == ember.float64
    assert "tensor_meta" not in nodes["size"].meta and nodes["size"].meta["type"] is ember.Size


def test_replace_pattern_respects_outside_uses_and_constants():
    def f(x):
        a = ember.relu(x) * 2.0   # matches
        b = ember.relu(x) * 3.0   # another constant: no match
        c = ember.relu(x)
        d = c * 2.0               # relu's value is used again below: no match
        return a + b + d + c

    def pattern(x):
        return ember.relu(x) * 2.0

    def replacement(x):
        return ember.nn.functional.gelu(x)
    gm = fx.symbolic_trace(f)
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 1 and matches[0].nodes_map[matches[0].anchor].name == "mul"
    x = ember.randn(6)
    assert ember.allclose(gm(x), ember.nn.functional.gelu(x) + ember.relu(x) * 3 + ember.relu(x) * 3)


def test_replace_pattern_brings_replacement_modules():
    class Pattern(nn.Module):
        def forward(self, x):
            return ember.sigmoid(x)

    class Replacement(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.Tanh()

        def forward(self, x):
            return self.act(x)
    gm = fx.symbolic_trace(_sig_twice)  # the second match's input is the first match's output
    matches = fx.replace_pattern(gm, Pattern(), Replacement())
    assert len(matches) == 2
    assert [n.target for n in gm.graph.nodes if n.op == "call_module"] == ["act", "act"]
    x = ember.randn(5)
    assert ember.allclose(gm(x), ember.tanh(ember.tanh(x)))


def _sig_twice(x):
    return ember.sigmoid(ember.sigmoid(x))


def test_fuse_conv1d_and_linear_with_batchnorm():
    ember.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(2, 3, 3)
            self.bn = nn.BatchNorm1d(3)
            self.fc = nn.Linear(18, 4)
            self.bn_fc = nn.BatchNorm1d(4)
            self.conv_shared = nn.Conv1d(2, 3, 3)
            self.bn_shared = nn.BatchNorm1d(3)

        def forward(self, x):
            y = self.bn(self.conv(x)).flatten(1)
            s = self.conv_shared(x)
            return self.bn_fc(self.fc(y)), self.bn_shared(s) + s  # conv_shared's output is used twice
    model = M()
    for _ in range(2):
        model(ember.randn(5, 2, 8))
    model.eval()
    fused = fuse(model)
    targets = [n.target for n in fused.graph.nodes if n.op == "call_module"]
    assert targets == ["conv", "conv_shared", "fc", "bn_shared"]
    x = ember.randn(3, 2, 8)
    for got, want in zip(fused(x), model(x)):
        assert ember.allclose(got, want, atol=1e-5)


def test_fuse_conv_bn_weights_against_numpy():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((4, 2, 3, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    mean, var = rng.standard_normal(4).astype(np.float32), rng.random(4).astype(np.float32) + 0.5
    gamma, beta = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    eps = 1e-3
    fw, fb = fuse_conv_bn_weights(ember.tensor(w, requires_grad=True), *(ember.tensor(a) for a in (b, mean, var)),
                                  eps, ember.tensor(gamma), ember.tensor(beta))
    scale = gamma / np.sqrt(var + eps)
    np.testing.assert_allclose(fw.detach().numpy(), w * scale[:, None, None, None], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fb.detach().numpy(), (b - mean) * scale + beta, rtol=1e-5, atol=1e-6)
    assert isinstance(fw, nn.Parameter) and fw.requires_grad and not fb.requires_grad  # as the inputs
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        ember.nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))
