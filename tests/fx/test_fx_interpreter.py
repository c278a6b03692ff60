"""Interpreter and Transformer in detail (per-op-kind overrides, initial_env, boxed_run, freeing values
after their last use, error context), and Tracer hooks (create_proxy overrides, autowrap_functions,
proxy_buffer_attributes)."""
import operator

import pytest

import ember
import ember.fx as fx
import ember.nn as nn


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.register_buffer("shift", ember.tensor([1.0, 2.0, 3.0]))

    def forward(self, x):
        return ember.sigmoid(self.fc(x)) + self.shift


def test_interpreter_runs_and_frees_values():
    m = Small()
    gm = fx.symbolic_trace(m)
    x = ember.randn(2, 3)
    interp = fx.Interpreter(gm)
    assert ember.equal(interp.run(x), m(x))
    assert list(interp.env) == [n for n in gm.graph.nodes if n.op == "output"]  # the rest was freed
    keep = fx.Interpreter(gm, garbage_collect_values=False)
    keep.run(x)
    assert list(keep.env) == list(gm.graph.nodes)
    assert ember.equal(keep.env[next(n for n in gm.graph.nodes if n.op == "get_attr")], m.shift)


def test_interpreter_overrides_and_initial_env():
    gm = fx.symbolic_trace(Small())

    class SigmoidIsRelu(fx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target is ember.sigmoid:
                return ember.relu(*args)
            return super().call_function(target, args, kwargs)
    x = ember.randn(2, 3)
    assert ember.equal(SigmoidIsRelu(gm).run(x), ember.relu(gm.fc(x)) + gm.shift)
    fc_node = next(n for n in gm.graph.nodes if n.op == "call_module")
    forced = ember.zeros(2, 3)
    out = fx.Interpreter(gm).run(x, initial_env={fc_node: forced})
    assert ember.equal(out, ember.full((2, 3), 0.5) + gm.shift)
    args = [x]
    assert ember.equal(fx.Interpreter(gm).boxed_run(args), gm(x)) and args == []


def test_interpreter_errors_name_the_node():
    gm = fx.symbolic_trace(Small())
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter x"):
        fx.Interpreter(gm).run()
    with pytest.raises(RuntimeError, match="While executing %fc : "):
        fx.Interpreter(gm).run(ember.randn(2, 4))


def test_transformer_keeps_attributes_and_defaults():
    def f(x, scale=2.0):
        return x * scale
    gm = fx.symbolic_trace(f)
    out = fx.Transformer(gm).transform()
    assert ember.equal(out(ember.ones(2)), ember.full((2,), 2.0))
    m = Small()
    t = fx.Transformer(fx.symbolic_trace(m)).transform()
    x = ember.randn(2, 3)
    assert ember.equal(t(x), m(x))
    assert [n.op for n in t.graph.nodes] == ["placeholder", "call_module", "call_function", "get_attr",
                                           "call_function", "output"]


def test_tracer_create_proxy_override_records_meta():
    class Tagging(fx.Tracer):
        def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
            proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)
            proxy.node.meta["tag"] = kind
            return proxy
    graph = Tagging().trace(Small())
    assert [n.meta.get("tag") for n in graph.nodes] == ["placeholder", "call_module", "call_function", None,
                                                       "call_function", None]


def clamp_positive(x):
    # data-dependent: traceable only as a leaf
    return x if bool((x > 0).all()) else x.clamp(min=0)


def test_autowrap_functions_and_buffer_proxies():
    def f(x):
        return clamp_positive(x) * 2
    with pytest.raises(fx.proxy.TraceError):
        fx.symbolic_trace(f)
    graph = fx.Tracer(autowrap_functions=(clamp_positive,)).trace(f)
    assert [n.target for n in graph.nodes if n.op == "call_function"] == [clamp_positive, operator.mul]
    gm = fx.GraphModule(nn.Module(), graph)
    assert ember.equal(gm(ember.tensor([-1.0, 2.0])), ember.tensor([0.0, 4.0]))

    class BufferProxies(fx.Tracer):
        proxy_buffer_attributes = True

    class UsesBufferAttr(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", ember.arange(4.0))

        def forward(self, x):
            return x + self.table.size(0)
    g = BufferProxies().trace(UsesBufferAttr())
    assert [n.op for n in g.nodes][:3] == ["placeholder", "get_attr", "call_method"]
    g_plain = fx.Tracer().trace(UsesBufferAttr())
    assert "get_attr" not in [n.op for n in g_plain.nodes]  # the size was read at trace time
