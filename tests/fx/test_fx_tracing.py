"""Symbolic tracing's rules: data-dependent control flow raises TraceError naming the line, concrete_args
specialises it (with a check of the specialised value), len/iteration behave as in PyTorch, fx.wrap and
autowrapped math functions stay leaves, and Proxy records operators, methods, attributes and ember
functions (through __torch_function__)."""
import inspect
import math
import operator

import pytest

import ember
import ember.fx as fx
import ember.nn as nn
import ember.nn.functional as F
from ember.fx.proxy import TraceError


class Branchy(nn.Module):
    def forward(self, x, flag=True):
        if x.sum() > 0:
            return x * 2
        return x


def test_control_flow_raises_trace_error_naming_the_line():
    with pytest.raises(TraceError) as info:
        fx.symbolic_trace(Branchy())
    msg = str(info.value)
    assert msg.startswith("symbolically traced variables cannot be used as inputs to control flow")
    line = inspect.getsourcelines(Branchy.forward)[1] + 1
    assert f"{__file__}:{line}" in msg and "if x.sum() > 0:" in msg


def flagged(x, negate):
    if negate:
        return -x
    return x + 1


def test_concrete_args_specialise_control_flow():
    with pytest.raises(TraceError):
        fx.symbolic_trace(flagged)
    gm = fx.symbolic_trace(flagged, concrete_args={"negate": False})
    x = ember.tensor([1.0, -2.0])
    assert ember.equal(gm(x, False), x + 1)
    with pytest.raises(AssertionError, match="negate has been specialized to have value False but got another value"):
        gm(x, True)
    assert "def forward(self, x, negate_1):" in gm.code
    none_gm = fx.symbolic_trace(specialised_on_none, concrete_args={"bias": None})
    assert ember.equal(none_gm(x, None), x * 3)
    with pytest.raises(AssertionError, match="bias has been specialized to have value None"):
        none_gm(x, 1.0)


def specialised_on_none(x, bias):
    return x * 3 if bias is None else x * 3 + bias


def test_len_and_iteration_errors():
    def uses_len(x):
        return len(x)

    def loops(x):
        total = 0
        for row in x:
            total = total + row
        return total

    with pytest.raises(RuntimeError, match=r"'len' is not supported in symbolic tracing by default. If you want this "
                                           r"call to be recorded, please call ember.fx.wrap\('len'\) at module scope"):
        fx.symbolic_trace(uses_len)
    with pytest.raises(TraceError, match="Proxy object cannot be iterated"):
        fx.symbolic_trace(loops)


def test_unpacking_a_proxy_is_traced():
    def split(x):
        a, b = x.chunk(2)
        return b - a
    gm = fx.symbolic_trace(split)
    x = ember.arange(6.0)
    assert ember.equal(gm(x), ember.full((3,), 3.0))
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [operator.getitem, operator.getitem,
                                                                             operator.sub]


def my_leaf(x, k):
    # would not trace: it branches on the value
    return x * k if x.sum() > 0 else x


fx.wrap("my_leaf")


def calls_leaf(x):
    return my_leaf(x, 3) + x.size(0)


def test_wrap_keeps_functions_as_leaves():
    gm = fx.symbolic_trace(calls_leaf)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets[0] is my_leaf
    assert "my_leaf = my_leaf_1(x, 3)" in gm.code  # the global is renamed, not shadowed by the node
    x = ember.ones(4)
    assert ember.equal(gm(x), x * 3 + 4)
    assert ember.equal(gm(-x), -x + 4)
    assert my_leaf(ember.ones(1), 2).item() == 2.0  # the global is restored after tracing


def uses_math(x):
    return x * math.sqrt(x.size(0))


def test_math_functions_are_autowrapped():
    gm = fx.symbolic_trace(uses_math)
    assert math.sqrt in [n.target for n in gm.graph.nodes]
    assert ember.allclose(gm(ember.ones(9)), ember.full((9,), 3.0))


def test_proxy_records_operators_methods_and_functions():
    def f(x, y):
        a = (x + 1) * y - 2 / x
        b = -a @ y.t() ** 2
        c = ember.cat([a, b], dim=0)
        d = F.softmax(c, dim=-1)[0, 1:]
        return d.shape, c.dtype, d.add(1), 3 - d, x <= y
    gm = fx.symbolic_trace(f)
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert {operator.add, operator.mul, operator.sub, operator.truediv, operator.neg, operator.matmul, operator.pow,
            ember.cat, F.softmax, operator.getitem, getattr, operator.le} <= targets
    methods = [n.target for n in gm.graph.nodes if n.op == "call_method"]
    assert methods == ["t", "add"]
    x, y = ember.rand(2, 2) + 1, ember.rand(2, 2)
    for got, want in zip(gm(x, y), f(x, y)):
        assert (got == want) if not isinstance(got, ember.Tensor) else ember.allclose(got, want)
    assert "cat = ember.cat([add, neg], dim = 0)" not in gm.code  # names come from the graph
    assert "ember.cat([" in gm.code and "ember.nn.functional.softmax(cat, dim = -1)" in gm.code


class WithParams(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(ember.randn(3, 3))
        self.sub = nn.Linear(3, 3)
        self.register_buffer("b", ember.ones(3))

    def forward(self, x):
        return F.linear(x, self.w) + self.sub.weight.sum() + self.b


def test_parameters_and_buffers_become_get_attr():
    m = WithParams()
    gm = fx.symbolic_trace(m)
    assert [n.target for n in gm.graph.nodes if n.op == "get_attr"] == ["w", "sub.weight", "b"]
    x = ember.randn(2, 3)
    assert ember.allclose(gm(x), m(x))
    tracer = fx.Tracer(param_shapes_constant=True)
    graph = tracer.trace(m)
    assert any(n.target == "w" for n in graph.nodes)


def test_proxies_from_two_tracers_do_not_mix():
    g1, g2 = fx.Graph(), fx.Graph()
    a, b = fx.Proxy(g1.placeholder("a")), fx.Proxy(g2.placeholder("b"))
    with pytest.raises(RuntimeError, match="Found multiple different tracers"):
        ember.add(a, b)


def test_unknown_argument_types_are_refused():
    class Opaque:
        pass

    def f(x):
        return ember.add(x, Opaque())
    with pytest.raises(NotImplementedError, match="argument of type"):
        fx.symbolic_trace(f)


def test_tracing_something_not_a_function():
    with pytest.raises(AssertionError, match="Expected FunctionType, got <class 'int'>"):
        fx.symbolic_trace(3)
