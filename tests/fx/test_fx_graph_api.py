"""Graph and Node: node creation by op kind, args/kwargs/users bookkeeping, rewiring, insertion points,
copying, dead-code elimination, lint, printing, print_tabular, map_arg/map_aggregate, and graphs built
by hand (directly and through Proxies)."""
import operator
import sys
import types

import pytest

import ember
import ember.fx as fx
from ember.fx.node import map_aggregate
from ember.fx.immutable_collections import immutable_list


def _chain_graph():
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y", default_value=2.0)
    a = g.call_function(ember.add, (x, y))
    b = g.call_method("mul", (a, a))
    c = g.call_function(ember.relu, (b,))
    g.output(c)
    return g, (x, y, a, b, c)


def test_nodes_users_and_links():
    g, (x, y, a, b, c) = _chain_graph()
    assert [n.op for n in g.nodes] == ["placeholder", "placeholder", "call_function", "call_method",
                                       "call_function", "output"]
    assert list(a.users) == [b] and list(x.users) == [a]
    assert b.args == (a, a) and b.all_input_nodes == [a]
    assert x.next is y and a.prev is y
    assert [n.name for n in reversed(g.nodes)] == ["output", "relu", "mul", "add", "y", "x"]
    assert len(g.nodes) == 6
    assert y.args == (2.0,)
    gm = fx.GraphModule(ember.nn.Module(), g)
    assert ember.equal(gm(ember.tensor([-3.0, 1.0])), ember.tensor([1.0, 9.0]))
    assert ember.equal(gm(ember.tensor([1.0]), 0.0), ember.tensor([1.0]))


def test_args_are_immutable_and_setters_update_users():
    g, (x, y, a, b, c) = _chain_graph()
    with pytest.raises(NotImplementedError, match="does not support mutation"):
        immutable_list([1]).append(2)
    c.args = (a,)
    assert c not in b.users and c in a.users
    a.update_kwarg("alpha", 3)
    assert a.kwargs == {"alpha": 3}
    a.update_arg(1, x)
    assert a.args == (x, x) and a not in y.users


def test_replace_all_uses_and_replace_input_with():
    g, (x, y, a, b, c) = _chain_graph()
    with g.inserting_after(a):
        sub = g.call_function(ember.sub, (x, y))
    changed = a.replace_all_uses_with(sub)
    assert changed == [b] and b.args == (sub, sub) and not a.users
    g.erase_node(a)
    c.replace_input_with(b, sub)
    assert c.args == (sub,)
    assert g.eliminate_dead_code()  # mul has no users any more
    assert [n.name for n in g.nodes] == ["x", "y", "sub", "relu", "output"]
    gm = fx.GraphModule(ember.nn.Module(), g)
    assert ember.equal(gm(ember.tensor([5.0, 1.0])), ember.tensor([3.0, 0.0]))


def test_inserting_before_and_after_keep_order():
    g, (x, y, a, b, c) = _chain_graph()
    with g.inserting_before(b):
        n1 = g.call_function(ember.neg, (a,))
        n2 = g.call_function(ember.abs, (n1,))
    with g.inserting_after(x):
        n3 = g.call_function(ember.exp, (x,))
        n4 = g.call_function(ember.log, (n3,))
    names = [n.name for n in g.nodes]
    assert names.index("x") < names.index(n3.name) < names.index(n4.name) < names.index("y")
    assert names.index("add") < names.index(n1.name) < names.index(n2.name) < names.index("mul")
    with pytest.raises(RuntimeError, match="still had 1 users"):
        g.erase_node(n1)


def test_dead_code_keeps_impure_nodes():
    g = fx.Graph()
    x = g.placeholder("x")
    g.call_function(ember.sin, (x,))                # dead, pure
    g.call_method("add_", (x, 1))                   # in place: kept
    g.call_function(operator.setitem, (x, 0, 5.0))  # kept
    g.output(x)
    assert g.eliminate_dead_code()
    assert [n.name for n in g.nodes] == ["x", "add_", "setitem", "output"]


def test_node_copy_graph_copy_and_deepcopy():
    g, (x, y, a, b, c) = _chain_graph()
    g2 = fx.Graph()
    env = {}
    out = g2.graph_copy(g, env)
    assert out is env[c]
    g2.output(out)
    assert str(g2) == str(g)
    import copy
    g3 = copy.deepcopy(g)
    assert str(g3) == str(g) and all(n.graph is g3 for n in g3.nodes)


def test_lint_finds_broken_graphs():
    g, (x, y, a, b, c) = _chain_graph()
    g.lint()
    other = fx.Graph()
    foreign = other.placeholder("z")
    c.args = (foreign,)
    with pytest.raises(RuntimeError, match="does not belong to this Graph"):
        g.lint()
    g, (x, y, a, b, c) = _chain_graph()
    a.args = (c, y)  # use before definition
    with pytest.raises(RuntimeError, match="used before it has been defined"):
        g.lint()
    g = fx.Graph()
    g.output(g.get_attr("missing.weight"))
    gm = fx.GraphModule({"missing.weight": ember.ones(1)}, g)
    del gm.missing.weight
    with pytest.raises(RuntimeError, match="references nonexistent attribute"):
        gm.graph.lint()


def test_graph_str_and_python_code():
    g, _ = _chain_graph()
    assert str(g) == (
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %y : [num_users=1] = placeholder[target=y](default=2.0)\n"
        "    %add : [num_users=1] = call_function[target=ember.add](args = (%x, %y), kwargs = {})\n"
        "    %mul : [num_users=1] = call_method[target=mul](args = (%add, %add), kwargs = {})\n"
        "    %relu : [num_users=1] = call_function[target=ember.relu](args = (%mul,), kwargs = {})\n"
        "    return relu")
    code = g.python_code("self").src
    assert "def forward(self, x, y = 2.0):" in code
    assert "add = ember.add(x, y);  x = y = None" in code
    assert "mul = add.mul(add);  add = None" in code
    assert "return relu" in code


def test_names_avoid_builtins_and_repeat():
    g = fx.Graph()
    x = g.placeholder("x")
    s1 = g.call_method("sum", (x,))
    s2 = g.call_method("sum", (s1,))
    ga = g.call_function(getattr, (x, "shape"))
    g.output((s1, s2, ga))
    assert [s1.name, s2.name, ga.name] == ["sum_1", "sum_2", "getattr_1"]
    assert "getattr_1 = x.shape" in g.python_code("self").src


def test_map_arg_and_map_aggregate():
    g, (x, y, a, b, c) = _chain_graph()
    structure = (x, [y, {"k": a}], slice(None, b), 3)
    assert fx.map_arg(structure, lambda n: n.name) == ("x", ["y", {"k": "add"}], slice(None, "mul", None), 3)
    assert map_aggregate((1, [2, 3]), lambda v: v * 10) == (10, [20, 30])
    with pytest.raises(AssertionError, match="must be a callable"):
        fx.map_arg(structure, 3)


def test_graph_built_with_proxies():
    """The fx docs' "Proxy/Retracing" way of writing graphs: operate on Proxies of a graph's nodes."""
    graph = fx.Graph()
    x = fx.Proxy(graph.placeholder("x"))
    y = fx.Proxy(graph.placeholder("y"))
    z = ember.sigmoid(x * 2 + y).sum(dim=0)
    graph.output(z.node)
    gm = fx.GraphModule(ember.nn.Module(), graph)
    a, b = ember.randn(3, 2), ember.randn(3, 2)
    assert ember.allclose(gm(a, b), ember.sigmoid(a * 2 + b).sum(dim=0))
    assert [n.target for n in graph.nodes if n.op != "placeholder"][:3] == [operator.mul, operator.add, ember.sigmoid]


def test_print_tabular_without_tabulate(monkeypatch, capsys):
    g, _ = _chain_graph()
    monkeypatch.setitem(sys.modules, "tabulate", None)
    with pytest.raises(ImportError):
        g.print_tabular()
    assert "`print_tabular` relies on the library `tabulate`" in capsys.readouterr().out


def test_print_tabular_uses_tabulate(monkeypatch, capsys):
    seen = {}

    def fake_tabulate(rows, headers):
        seen["rows"], seen["headers"] = rows, headers
        return "TABLE"
    monkeypatch.setitem(sys.modules, "tabulate", types.SimpleNamespace(tabulate=fake_tabulate))
    g, (x, y, a, b, c) = _chain_graph()
    g.print_tabular()
    assert capsys.readouterr().out == "TABLE\n"
    assert seen["headers"] == ["opcode", "name", "target", "args", "kwargs"]
    assert seen["rows"][2] == ["call_function", "add", ember.add, (x, y), {}]
    assert seen["rows"][-1] == ["output", "output", "output", (c,), {}]


def test_graph_module_submodule_editing():
    m = ember.nn.Sequential(ember.nn.Linear(3, 3), ember.nn.ReLU())
    gm = fx.symbolic_trace(m)
    assert gm.add_submodule("extra.inner", ember.nn.Tanh())
    last = [n for n in gm.graph.nodes if n.op == "call_module"][-1]
    with gm.graph.inserting_after(last):
        t = gm.graph.call_module("extra.inner", (last,))
    last.replace_all_uses_with(t, delete_user_cb=lambda u: u is not t)
    gm.recompile()
    x = ember.randn(2, 3)
    assert ember.allclose(gm(x), ember.tanh(m(x)))
    assert "extra_inner = self.extra.inner(_1)" in gm.code
    assert not gm.delete_submodule("nothing.here")
    gm.add_submodule("unused", ember.nn.Linear(1, 1))
    gm.delete_all_unused_submodules()
    assert not hasattr(gm, "unused") and hasattr(gm.extra, "inner")


def test_graph_setter_recompiles():
    gm = fx.symbolic_trace(doubled)
    g, _ = _chain_graph()
    gm.graph = g
    assert g.owning_module is gm and "ember.relu(mul)" in gm.code
    assert ember.equal(gm(ember.tensor([1.0, -5.0]), 1.0), ember.tensor([4.0, 16.0]))


def doubled(x):
    return x * 2


def test_generated_code_sees_replaced_children():
    """Children the code calls are cached on the GraphModule's class for speed: every way of changing
    them must still be seen by the next call."""
    seq = ember.nn.Sequential(ember.nn.Linear(4, 4), ember.nn.ReLU())
    gm = fx.symbolic_trace(seq)
    x = ember.randn(3, 4)
    lin = seq[0](x)
    gm._modules["1"] = ember.nn.Tanh()
    assert ember.allclose(gm(x), ember.tanh(lin))
    gm.add_module("1", ember.nn.Sigmoid())
    assert ember.allclose(gm(x), ember.sigmoid(lin))
    setattr(gm, "1", ember.nn.Identity())
    assert ember.allclose(gm(x), lin)
    delattr(gm, "1")
    assert not hasattr(gm, "1")
    with pytest.raises(AttributeError, match="has no attribute '1'"):
        gm(x)
    gm.register_module("1", ember.nn.ReLU())
    assert ember.allclose(gm(x), ember.relu(lin))
    other = fx.symbolic_trace(seq)  # another GraphModule of the same module is not affected
    gm._modules.pop("1")
    assert ember.allclose(other(x), seq(x))
