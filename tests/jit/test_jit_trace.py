"""ember.jit.trace / trace_module: the recorded graph computes what the function computes (compared with
the function run eagerly on other inputs), Python values read from tensors warn and become constants,
check_trace catches input-dependent control flow, and traced and scripted code call each other."""
import warnings

import numpy as np
import pytest

import ember
import ember.jit
import ember.nn as nn


def close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_trace_function_records_ops_and_generalizes_to_new_values():
    def f(x, y):
        z = x * 2 + y.sin()
        a, b = z.chunk(2, 0)
        return ember.relu(a) - b, x.sum(0)
    t = ember.jit.trace(f, (ember.randn(4, 3), ember.randn(4, 3)))
    assert isinstance(t, ember.jit.ScriptFunction)
    assert "aten::chunk" in t.graph and "aten::relu" in t.graph
    x, y = ember.randn(4, 3), ember.randn(4, 3)
    got, want = t(x, y), f(x, y)
    close(got[0], want[0])
    close(got[1], want[1])


def test_trace_module_reads_current_parameters():
    m = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2))
    tm = ember.jit.trace(m, ember.randn(2, 3))
    assert isinstance(tm, ember.jit.ScriptModule)
    x = ember.randn(7, 3)  # another batch size: no shape was baked in
    close(tm(x), m(x))
    with ember.no_grad():
        m[0].weight.mul_(0.5)  # parameters are inputs of the graph, read at each call
    close(tm(x), m(x))
    assert "prim::Constant[value=<Tensor>]" not in tm.graph


def test_trace_module_entry_point_and_its_errors():
    m = nn.Linear(2, 2)
    tm = ember.jit.trace_module(m, {"forward": ember.randn(1, 2)})
    x = ember.randn(3, 2)
    close(tm(x), m(x))
    with pytest.raises(AttributeError, match="dictionary"):
        ember.jit.trace_module(m, ember.randn(1, 2))
    with pytest.raises(TypeError, match="example_inputs"):
        ember.jit.trace(lambda x: x, 3)


def test_in_place_ops_are_recorded_in_order():
    def f(x):
        y = x.clone()
        y.add_(1.0)
        y *= 3.0
        return y
    t = ember.jit.trace(f, ember.randn(3))
    x = ember.randn(3)
    close(t(x), (x + 1.0) * 3.0)
    close(x, x)  # the input itself is untouched (clone first)


def test_python_value_from_a_tensor_warns_and_is_a_constant():
    def f(x):
        k = x.max().item()
        return x * k
    with pytest.warns(ember.jit.TracerWarning, match="Python number"):
        t = ember.jit.trace(f, ember.tensor([1.0, 2.0]), check_trace=False)
    close(t(ember.tensor([1.0, 5.0])), ember.tensor([2.0, 10.0]))  # k stayed 2 from the example


def test_check_trace_catches_control_flow_that_depends_on_inputs():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ember.jit.TracerWarning)
        with pytest.raises(ember.jit.TracingCheckError, match="Graphs differed"):
            ember.jit.trace(f, ember.ones(2), check_inputs=[(-ember.ones(2),)])


def test_scripted_function_inside_a_trace_is_inlined():
    @ember.jit.script
    def inner(x):
        return x.cos() * 2.0
    def outer(x):
        return inner(x).sin()
    t = ember.jit.trace(outer, ember.randn(3))
    assert "aten::cos" in t.graph and "aten::sin" in t.graph
    x = ember.randn(3)
    close(t(x), (x.cos() * 2.0).sin())


def test_traced_function_called_from_scripted_code():
    def inner(x):
        return x.cos() * 2
    traced = ember.jit.trace(inner, ember.randn(3))

    def outer(x):
        return traced(x) + 1.0
    s = ember.jit.script(outer)
    assert "aten::cos" in s.graph
    x = ember.randn(4)
    close(s(x), x.cos() * 2 + 1.0)



def test_basic_indexing_is_recorded():
    def f(x):
        return x[0] + x[:, 1] + x[1:3, None, 2].sum() + x[..., -1]
    t = ember.jit.trace(f, ember.randn(4, 4))
    assert "aten::select" in t.graph and "aten::narrow" in t.graph and "aten::unsqueeze" in t.graph
    x = ember.randn(4, 4)  # same shape: the slice bounds are constants of the trace
    close(t(x), f(x))


@pytest.mark.parametrize("name", ["lstm", "gru", "mha", "encoder_layer", "conv_pool", "norm_act", "embedding"])
def test_core_modules_trace_to_their_eager_outputs(name):
    ember.manual_seed(0)
    shape = (2, 3, 8)
    m, example = {
        "lstm": (lambda: nn.LSTM(8, 5, batch_first=True), lambda: ember.randn(*shape)),
        "gru": (lambda: nn.GRU(8, 5), lambda: ember.randn(*shape)),
        "mha": (lambda: nn.MultiheadAttention(8, 2, batch_first=True), lambda: ember.randn(*shape)),
        "encoder_layer": (lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                          lambda: ember.randn(*shape)),
        "conv_pool": (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(1),
                                            nn.Flatten()), lambda: ember.randn(2, 1, 8, 8)),
        "norm_act": (lambda: nn.Sequential(nn.LayerNorm(8), nn.GELU(), nn.Softmax(-1)), lambda: ember.randn(*shape)),
        "embedding": (lambda: nn.Embedding(10, 3), lambda: ember.randint(0, 10, (2, 4))),
    }[name]
    m = m().eval()
    args = (example(),) * (3 if name == "mha" else 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ember.jit.TracerWarning)
        traced = ember.jit.trace(m, args)
    new = (example(),) * len(args)
    got, want = traced(*new), m(*new)
    got, want = (got[0], want[0]) if isinstance(want, tuple) else (got, want)
    close(got, want)
