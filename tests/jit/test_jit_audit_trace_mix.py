"""Tracing and scripting mixed as a PyTorch user mixes them (issue 22's audit): trace_module traces the
methods named in its inputs besides forward (with check_trace on each), and a module being scripted may
hold a scripted, traced or loaded module as an attribute and call it. References: the eager modules."""
import pytest

import ember
import ember.nn as nn


class TwoMethods(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, x):
        return self.lin(x).relu()

    def scores(s, x, y):  # self under another name: the traced signature still starts after it
        return s.lin(x) * y.sum()


class Branchy(nn.Module):
    def forward(self, x):
        return x

    def sign_dependent(self, x):
        return x * 2 if bool(x.sum() > 0) else x - 1


def test_trace_module_traces_other_methods():
    m = TwoMethods()
    x, y = ember.randn(4, 3), ember.randn(5)
    t = ember.jit.trace_module(m, {"forward": (x,), "scores": (x, y)})
    x2, y2 = ember.randn(6, 3), ember.randn(2)
    with ember.no_grad():
        assert ember.allclose(t(x2), m(x2)) and ember.allclose(t.scores(x2, y2), m.scores(x2, y2))
    assert "%x : Tensor" in t.scores.graph and "%y : Tensor" in t.scores.graph
    with ember.no_grad():
        m.lin.weight.add_(1.0)  # parameters stay inputs of every traced method
        assert ember.allclose(t.scores(x2, y2), m.scores(x2, y2))


def test_trace_module_checks_each_method_and_names_bad_ones():
    with pytest.raises(ember.jit.TracingCheckError, match="Graphs differed across invocations"), \
            pytest.warns(ember.jit.TracerWarning, match="Python boolean"):
        ember.jit.trace_module(Branchy(), {"forward": ember.ones(2), "sign_dependent": ember.ones(2)},
                               check_inputs=[{"forward": ember.ones(2), "sign_dependent": -ember.ones(2)}])
    with pytest.raises(AttributeError, match="no method 'nope'"):
        ember.jit.trace_module(Branchy(), {"forward": ember.ones(2), "nope": ember.ones(2)})


class Scaled(nn.Module):
    def forward(self, x, k: int = 3):
        return x * k


@pytest.mark.parametrize("kind", ["script", "trace", "load"])
def test_scripted_module_calls_a_compiled_one(kind, tmp_path):
    lin = nn.Linear(3, 3)
    if kind == "script":
        inner = ember.jit.script(lin)
    elif kind == "trace":
        inner = ember.jit.trace(lin, ember.ones(1, 3))
    else:
        path = str(tmp_path / "lin.pt")
        ember.jit.script(lin).save(path)
        inner = ember.jit.load(path)

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x).tanh() + 1

    outer = ember.jit.script(Outer())
    x = ember.randn(2, 3)
    with ember.no_grad():
        assert ember.allclose(outer(x), lin(x).tanh() + 1)
        if kind != "load":  # the loaded one holds its own copy of the parameters
            lin.bias.add_(2.0)
            assert ember.allclose(outer(x), lin(x).tanh() + 1)


def test_compiled_module_call_binds_defaults_and_checks_types():
    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = ember.jit.script(Scaled())

        def forward(self, x):
            return self.s(x) + self.s(x, 2) + self.s(x, k=5)

    assert ember.jit.script(Outer())(ember.ones(2)).tolist() == [10.0, 10.0]

    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = ember.jit.script(Scaled())

        def forward(self, x):
            return self.s(x, 2.5)

    with pytest.raises(RuntimeError, match="argument 2 must be int, got float"):
        ember.jit.script(Bad())
