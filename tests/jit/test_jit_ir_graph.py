"""The script IR through ember._C._jit directly: building graphs, TorchScript's graph text, the
interpreter's If/Loop semantics and op-table calls, and the passes (constant propagation, CSE of pure
nodes only, dead-code elimination that keeps effects)."""
import numpy as np
import pytest

import ember
import ember.jit
from ember._C import _jit


def new_graph(*params):
    g = _jit.Graph()
    return g, [g.add_param(g.top, t, n) for n, t in params]


def test_graph_text_is_torchscripts_format():
    g, (x, n) = new_graph(("x", "Tensor"), ("n", "int"))
    one = g.constant(g.top, 1, "int")
    _, (s,) = g.append(g.top, "prim::add", [n, one], ["int"])
    _, (y,) = g.append(g.top, "aten::add", [x, s, one], ["Tensor"])
    g.set_returns(g.top, [y])
    assert str(g) == (
        "graph(%x : Tensor,\n"
        "      %n : int):\n"
        "  %2 : int = prim::Constant[value=1]()\n"
        "  %3 : int = prim::add(%n, %2)\n"
        "  %4 : Tensor = aten::add(%x, %3, %2)\n"
        "  return (%4)\n")
    np.testing.assert_allclose(g.run([ember.ones(2), 3]).numpy(), [5.0, 5.0])


def test_types_parse_and_print():
    g, (a,) = new_graph(("a", "Optional[Tuple[List[int], float]]"))
    assert g.value_type(a) == "Optional[Tuple[List[int], float]]"
    with pytest.raises(ValueError, match="invalid script type \"Lst\\[int\\]\": unknown type name \"Lst\""):
        g.add_param(g.top, "Lst[int]", "b")
    with pytest.raises(ValueError, match="List takes one type"):
        g.add_param(g.top, "List[int, int]", "b")


def test_op_nodes_are_checked_against_the_op_table():
    g, (x,) = new_graph(("x", "Tensor"))
    with pytest.raises(ValueError, match="unknown op aten::no_such_op"):
        g.append(g.top, "aten::no_such_op", [x], ["Tensor"])
    with pytest.raises(TypeError, match="aten::relu takes 1 arguments"):
        g.append(g.top, "aten::relu", [x, x], ["Tensor"])
    with pytest.raises(ValueError, match="unknown node kind prim::Bogus"):
        g.append(g.top, "prim::Bogus", [x], ["Tensor"])


def loop_sum_graph():
    """s = 0; for i in range(n): if i == stop: break; s += i  -- as a Loop with a carried value."""
    g, (n, stop) = new_graph(("n", "int"), ("stop", "int"))
    zero, true = g.constant(g.top, 0, "int"), g.constant(g.top, True, "bool")
    loop, _ = g.append(g.top, "prim::Loop", [n, true, zero], [])
    body = g.add_block(loop)
    i, s = g.add_param(body, "int", "i"), g.add_param(body, "int", "s")
    _, (hit,) = g.append(body, "prim::eq", [i, stop], ["bool"])
    _, (go,) = g.append(body, "prim::not", [hit], ["bool"])
    _, (s2,) = g.append(body, "prim::add", [s, i], ["int"])
    g.set_returns(body, [go, s2])
    out = g.add_output(loop, "int")
    g.set_returns(g.top, [out])
    return g


@pytest.mark.parametrize("n,stop", [(0, 9), (5, 9), (10, 4), (3, 0)])
def test_loop_runs_trip_count_and_condition(n, stop):
    s = 0
    for i in range(n):
        s += i
        if i == stop:
            break
    assert loop_sum_graph().run([n, stop]) == s


def test_if_picks_its_block():
    g, (c, x) = new_graph(("c", "bool"), ("x", "Tensor"))
    node, _ = g.append(g.top, "prim::If", [c], [])
    then_b, else_b = g.add_block(node), g.add_block(node)
    _, (a,) = g.append(then_b, "aten::neg", [x], ["Tensor"])
    _, (b,) = g.append(else_b, "aten::exp", [x], ["Tensor"])
    g.set_returns(then_b, [a])
    g.set_returns(else_b, [b])
    g.set_returns(g.top, [g.add_output(node, "Tensor")])
    x_val = ember.tensor([0.0, 1.0])
    np.testing.assert_allclose(g.run([True, x_val]).numpy(), [0.0, -1.0])
    np.testing.assert_allclose(g.run([False, x_val]).numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    assert "prim::If(%c)\n    block0():\n" in str(g)


def test_constant_propagation_folds_numbers_and_constant_ifs():
    def f(x):
        a = 2 + 3 * 4
        if a > 10:
            return x * a
        return x

    s = ember.jit.script(f)
    graph = s.graph
    assert "prim::If" not in graph and "prim::add" not in graph and "prim::mul" not in graph
    assert "prim::Constant[value=14]()" in graph
    np.testing.assert_allclose(s(ember.ones(2)).numpy(), [14.0, 14.0])


def test_folding_leaves_errors_to_run_time():
    def f(x, take: bool) -> int:
        if take:
            return 1 // 0
        return 2

    s = ember.jit.script(f)
    assert "prim::floordiv" in s.graph
    assert s(ember.ones(1), False) == 2
    with pytest.raises(ZeroDivisionError):
        s(ember.ones(1), True)


def test_cse_merges_pure_ops_but_not_random_ones():
    def f(x):
        a = ember.sin(x) + ember.sin(x)
        b = ember.rand([2]) - ember.rand([2])
        return a, b

    graph = ember.jit.script(f).graph
    assert graph.count("aten::sin(") == 1
    assert graph.count("aten::rand(") == 2


def test_cse_keeps_lists_apart():
    def f(x) -> int:
        a = [1, 2]
        b = [1, 2]
        a.append(3)
        return len(a) * 10 + len(b)

    s = ember.jit.script(f)
    assert s.graph.count("prim::ListConstruct") == 2
    assert s(ember.ones(1)) == 32


def test_dead_code_is_removed_but_effects_stay():
    def f(x):
        unused = ember.cos(x) * 2  # noqa: F841
        y = x.clone()
        y += 1  # in place: kept though its result is unused
        assert x.numel() > 0
        return y

    s = ember.jit.script(f)
    graph = s.graph
    assert "aten::cos" not in graph and "aten::mul" not in graph
    assert "aten::add_(" in graph and "prim::RaiseException" in graph
    np.testing.assert_allclose(s(ember.ones(2)).numpy(), [2.0, 2.0])


def test_called_functions_are_inlined():
    def inner(a, k: int):
        return a * k

    def outer(x):
        return inner(x, 3) + inner(x, 3)

    s = ember.jit.script(outer)
    assert "prim::CallFunction" not in s.graph and s.graph.count("aten::mul(") == 1
    np.testing.assert_allclose(s(ember.ones(2)).numpy(), [6.0, 6.0])


def test_database_ops_are_in_the_op_table():
    names = set(_jit.op_names())
    assert {"add", "add_", "relu", "max_dim", "linalg_cholesky"} <= names
    assert _jit.op_schema("aten::max_dim") == "max_dim(Tensor input, int dim, bool keepdim=False) -> " \
                                              "(Tensor values, Tensor indices)"
    assert ("max_dim", "max") in _jit.overloads()
    assert ember.ops.aten.add(ember.ones(2), 2.0).tolist() == [3.0, 3.0]  # the op table's Python callable


def test_int_peepholes_drop_range_arithmetic():
    def f(n: int) -> int:
        s = 0
        for i in range(n):
            s += i
        return s

    graph = ember.jit.script(f).graph
    assert "prim::mul" not in graph and graph.count("prim::add") == 1  # only s + i remains


def test_code_runs_as_python_and_gives_the_same_results():
    """`.code` is Python: executed with ember in scope it computes what the scripted function does."""
    import test_jit_script_programs as progs

    for fn, args in [(progs.nested_break, (7,)), (progs.while_break_continue, (10,)), (progs.appended, (X,)),
                     (progs.branches, (X[0], X[1])), (progs.early_none_return, (None,)),
                     (progs.early_none_return, (X,)), (progs.number_arith, (7, -2))]:
        s = ember.jit.script(fn)
        scope = {"ember": ember, "Tensor": ember.Tensor, "Optional": __import__("typing").Optional,
                 "List": list}
        exec(s.code, scope)
        progs.same(scope[fn.__name__](*args), fn(*args))


def test_code_of_a_loop_reads_as_a_for_loop():
    def f(x, n: int):
        for i in range(n):
            x = x * 2
        return x

    code = ember.jit.script(f).code
    assert code.startswith("def f(x: Tensor,\n    n: int) -> Tensor:\n")
    assert "  for _" in code and " in range(" in code and "ember.ops.aten.mul(" in code


X = ember.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])


def test_op_table_aten_ops_record_autograd_from_python():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    ember.ops.aten.mul(x, x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
