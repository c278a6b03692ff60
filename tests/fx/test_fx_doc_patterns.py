"""The patterns of PyTorch's fx documentation and tutorials, written with `ember` for `torch`: a custom
tracer with leaf modules, replacing one op with another, inlining a submodule, a profiling Interpreter,
a decomposition built with Proxies, a Transformer that swaps ops, replace_pattern, conv+bn fusion,
ShapeProp and a transform that inverts a chain of invertible ops."""
import copy
import operator
import time

import ember
import ember.fx as fx
import ember.nn as nn
import ember.nn.functional as F
from ember.fx.experimental.optimization import fuse
from ember.fx.passes.shape_prop import ShapeProp


class MySpecialSubmodule(nn.Module):
    def forward(self, x):
        return ember.neg(x)


class WithSpecial(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.special = MySpecialSubmodule()

    def forward(self, x):
        return self.special(ember.relu(self.linear(x)))


class LeafTracer(fx.Tracer):
    def is_leaf_module(self, m, module_qualified_name):
        return isinstance(m, MySpecialSubmodule) or super().is_leaf_module(m, module_qualified_name)


def test_custom_tracer_with_leaf_modules():
    m = WithSpecial()
    default = fx.symbolic_trace(m)
    assert [n.target for n in default.graph.nodes if n.op == "call_module"] == ["linear"]
    assert ember.neg in [n.target for n in default.graph.nodes]
    graph = LeafTracer().trace(m)
    gm = fx.GraphModule(m, graph)
    assert [n.target for n in graph.nodes if n.op == "call_module"] == ["linear", "special"]
    x = ember.randn(2, 4)
    assert ember.equal(gm(x), m(x))


class AddThenRelu(nn.Module):
    def forward(self, x, y):
        return ember.relu(ember.add(x, y)) + ember.add(y, 1.0)


def test_replace_one_op_with_another():
    m = AddThenRelu()
    graph = fx.Tracer().trace(m)
    for node in graph.nodes:
        if node.op == "call_function" and node.target == ember.add:
            node.target = ember.mul
    graph.lint()
    gm = fx.GraphModule(m, graph)
    x, y = ember.randn(3), ember.randn(3)
    assert ember.allclose(gm(x, y), ember.relu(x * y) + y * 1.0)
    assert "ember.mul(x, y)" in gm.code and "ember.add" not in gm.code


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, y):
        return ember.tanh(self.fc(x)) * y


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x, x + 1).sum(dim=1)


class KeepInner(fx.Tracer):
    def is_leaf_module(self, m, name):
        return isinstance(m, Inner) or super().is_leaf_module(m, name)


def inline_submodule(gm, target):
    """Replaces the call_module nodes of `target` by a copy of its traced graph."""
    sub = fx.symbolic_trace(gm.get_submodule(target))
    for call in [n for n in gm.graph.nodes if n.op == "call_module" and n.target == target]:
        placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
        val_map = dict(zip(placeholders, call.args))
        with gm.graph.inserting_before(call):
            for node in sub.graph.nodes:
                if node.op == "placeholder":
                    continue
                if node.op == "output":
                    result = fx.map_arg(node.args[0], lambda n: val_map[n])
                    continue
                copied = gm.graph.node_copy(node, lambda n: val_map[n])
                if node.op in ("call_module", "get_attr"):
                    copied.target = f"{target}.{node.target}"
                val_map[node] = copied
        call.replace_all_uses_with(result)
        gm.graph.erase_node(call)
    gm.recompile()
    return gm


def test_inline_a_submodule():
    m = Outer()
    gm = fx.GraphModule(m, KeepInner().trace(m))
    assert [n.target for n in gm.graph.nodes if n.op == "call_module"] == ["inner"]
    inline_submodule(gm, "inner")
    assert [n.target for n in gm.graph.nodes if n.op == "call_module"] == ["inner.fc"]
    assert ember.tanh in [n.target for n in gm.graph.nodes]
    gm.graph.lint()
    x = ember.randn(2, 3)
    assert ember.allclose(gm(x), m(x))


class ProfilingInterpreter(fx.Interpreter):
    def __init__(self, mod):
        super().__init__(fx.symbolic_trace(mod))
        self.total_runtime_sec = []
        self.runtimes_sec = {}

    def run(self, *args):
        t0 = time.perf_counter()
        return_val = super().run(*args)
        self.total_runtime_sec.append(time.perf_counter() - t0)
        return return_val

    def run_node(self, n):
        t0 = time.perf_counter()
        return_val = super().run_node(n)
        self.runtimes_sec.setdefault(n, []).append(time.perf_counter() - t0)
        return return_val


def test_profiling_interpreter():
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 2))
    interp = ProfilingInterpreter(model)
    x = ember.randn(1, 1, 4, 4)
    for _ in range(2):
        assert ember.allclose(interp.run(x), model(x))
    assert len(interp.total_runtime_sec) == 2
    assert [n.name for n in interp.runtimes_sec] == [n.name for n in interp.graph.nodes]
    assert all(len(v) == 2 and min(v) >= 0 for v in interp.runtimes_sec.values())
    assert not interp.env or list(interp.env) == [n for n in interp.graph.nodes if n.op == "output"]


def relu_decomposition(x):
    return (x > 0) * x


def test_decomposition_built_with_proxies():
    decomposition_rules = {F.relu: relu_decomposition}

    class M(nn.Module):
        def forward(self, x):
            return F.relu(x) + 1

    model = M()
    graph = fx.Tracer().trace(model)
    new_graph = fx.Graph()
    env = {}
    tracer = fx.proxy.GraphAppendingTracer(new_graph)
    for node in graph.nodes:
        if node.op == "call_function" and node.target in decomposition_rules:
            proxy_args = [fx.Proxy(env[a.name], tracer) if isinstance(a, fx.Node) else a for a in node.args]
            env[node.name] = decomposition_rules[node.target](*proxy_args).node
        else:
            env[node.name] = new_graph.node_copy(node, lambda a: env[a.name])
    gm = fx.GraphModule(model, new_graph)
    assert F.relu not in [n.target for n in gm.graph.nodes]
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [operator.gt, operator.mul, operator.add]
    x = ember.randn(10)
    assert ember.equal(gm(x), model(x))


class NegSigmSwapXformer(fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target == ember.sigmoid:
            return ember.neg(*args, **kwargs)
        return super().call_function(target, args, kwargs)

    def call_method(self, target, args, kwargs):
        if target == "neg":
            call_self, *args_tail = args
            return call_self.sigmoid(*args_tail, **kwargs)
        return super().call_method(target, args, kwargs)


def test_transformer_swaps_ops():
    def fn(x):
        return ember.sigmoid(x).neg()
    gm = fx.symbolic_trace(fn)
    transformed = NegSigmSwapXformer(gm).transform()
    x = ember.randn(3, 4)
    assert ember.allclose(transformed(x), ember.neg(x).sigmoid())
    assert isinstance(transformed, fx.GraphModule)


class CatSum(nn.Module):
    def forward(self, x, w1, w2):
        m1 = ember.cat([w1, w2]).sum()
        m2 = ember.cat([w1, w2]).sum()
        return x + ember.max(m1) + ember.max(m2)


def test_replace_pattern_docs_example():
    def pattern(w1, w2):
        return ember.cat([w1, w2])

    def replacement(w1, w2):
        return ember.stack([w1, w2])
    model = CatSum()
    gm = fx.symbolic_trace(model)
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 2
    assert all(isinstance(m.anchor, fx.Node) and m.anchor.target is ember.cat for m in matches)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets.count(ember.stack) == 2 and ember.cat not in targets
    x, w1, w2 = ember.randn(2), ember.randn(3), ember.randn(3)
    # sum of a stack and of a cat are the same number
    assert ember.allclose(gm(x, w1, w2), model(x, w1, w2))


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, bias=False)
        self.bn2 = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn2(self.conv2(ember.relu(self.bn1(self.conv1(x)))))


def test_conv_bn_fusion():
    ember.manual_seed(0)
    model = ConvBN()
    model.train()
    for _ in range(3):  # non-trivial running statistics
        model(ember.randn(4, 3, 6, 6) * 3 + 1)
    model.eval()
    before = copy.deepcopy(model)
    fused = fuse(model)
    assert not any(isinstance(m, nn.BatchNorm2d) for m in fused.modules())
    assert [n.target for n in fused.graph.nodes if n.op == "call_module"] == ["conv1", "conv2"]
    x = ember.randn(2, 3, 6, 6)
    assert ember.allclose(fused(x), model(x), atol=1e-5)
    # not in place by default
    assert all(ember.equal(a, b) for a, b in zip(model.state_dict().values(), before.state_dict().values()))


def test_shape_prop():
    class TwoLayerNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = nn.Linear(5, 7)
            self.linear2 = nn.Linear(7, 2)

        def forward(self, x):
            h_relu = self.linear1(x).clamp(min=0)
            return self.linear2(h_relu)
    gm = fx.symbolic_trace(TwoLayerNet())
    sample = ember.randn(3, 5)
    ShapeProp(gm).propagate(sample)
    meta = {n.name: n.meta["tensor_meta"] for n in gm.graph.nodes}
    assert meta["x"].shape == (3, 5) and meta["linear1"].shape == (3, 7) and meta["linear2"].shape == (3, 2)
    assert meta["clamp"].dtype == ember.float32 and meta["clamp"].stride == (7, 1)
    assert meta["linear2"].requires_grad and not meta["x"].requires_grad
    assert meta["x"].memory_format == ember.contiguous_format


INVERSES = [(ember.sin, ember.arcsin), (ember.cos, ember.arccos), (ember.tan, ember.arctan), (ember.exp, ember.log)]
INVERT = {a: b for a, b in INVERSES} | {b: a for a, b in INVERSES}


def invert(model):
    fx_model = fx.symbolic_trace(model)
    new_graph = fx.Graph()
    env = {}
    for node in reversed(fx_model.graph.nodes):
        if node.op == "call_function":
            new_node = new_graph.call_function(INVERT[node.target], (env[node.name],))
            env[node.args[0].name] = new_node
        elif node.op == "output":
            new_node = new_graph.placeholder(node.name)
            env[node.args[0].name] = new_node
        elif node.op == "placeholder":
            new_graph.output(env[node.name])
        else:
            raise RuntimeError("Not implemented")
    new_graph.lint()
    return fx.GraphModule(fx_model, new_graph)


def test_invert_a_chain_of_invertible_ops():
    def f(x):
        return ember.exp(ember.tan(x))
    inverted = invert(f)
    x = ember.tensor([0.1, 0.5, 1.0])
    assert ember.allclose(inverted(f(x)), x, atol=1e-6)
    assert [n.target for n in inverted.graph.nodes if n.op == "call_function"] == [ember.log, ember.arctan]
