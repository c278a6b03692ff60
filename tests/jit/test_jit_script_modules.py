"""ember.jit.script on nn.Module instances: forward with submodules inlined, parameters and buffers read
at each call, attributes as inputs (or constants through __constants__), methods, containers unrolled;
outputs equal the eager module's."""
from typing import Optional

import numpy as np
import pytest

import ember
import ember.jit
import ember.nn as nn
import ember.nn.functional as F


class Block(nn.Module):
    __constants__ = ["scale"]

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.scale = 2
        self.use_relu = True
        self.register_buffer("offset", ember.ones(3))

    def helper(self, y):
        return y * self.scale + self.offset

    def forward(self, x, extra: Optional[ember.Tensor] = None):
        y = self.lin(x)
        if self.use_relu:
            y = F.relu(y)
        if extra is not None:
            y = y + extra
        return self.helper(y)


def close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.fixture
def x():
    ember.manual_seed(0)
    return ember.randn(2, 4)


def test_module_with_submodule_method_buffer_and_optional(x):
    m = Block()
    s = ember.jit.script(m)
    close(s(x), m(x))
    close(s(x, ember.full((3,), -0.5)), m(x, ember.full((3,), -0.5)))
    assert "%self.weight : Tensor" in s.graph and "%self.offset : Tensor" in s.graph
    assert "prim::Constant[value=2]()" in s.graph  # scale is in __constants__: baked in


def test_attributes_and_parameters_are_read_at_each_call(x):
    m = Block()
    s = ember.jit.script(m)
    m.use_relu = False  # a bool attribute: a graph input, not a constant
    with ember.no_grad():
        m.lin.weight.mul_(-1.0)  # parameters are read at call time
    close(s(x), m(x))


def test_sequential_of_core_modules(x):
    seq = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Dropout(0.3), nn.Sequential(nn.Linear(5, 2), nn.ReLU()))
    seq.eval()
    s = ember.jit.script(seq)
    close(s(x), seq(x))
    assert "prim::Loop" not in s.graph  # the containers are unrolled
    assert s.parameters is not None and len(list(s.parameters())) == 4


def test_dropout_in_training_mode_zeroes_and_rescales():
    d = nn.Dropout(0.5)
    s = ember.jit.script(d)
    y = s(ember.ones(1000))
    values = set(np.unique(y.numpy()).tolist())
    assert values <= {0.0, 2.0} and 300 < int((y == 0).sum()) < 700
    d.eval()
    close(s(ember.ones(5)), ember.ones(5))


def test_gradients_reach_the_parameters(x):
    m = Block()
    ember.jit.script(m)(x).sum().backward()
    g1 = m.lin.weight.grad.clone()
    m.zero_grad()
    m(x).sum().backward()
    close(g1, m.lin.weight.grad)


def test_recursive_module_structure_is_not_recursion(x):
    inner = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Linear(4, 4)))
    s = ember.jit.script(inner)
    close(s(x), inner(x))


def test_unsupported_module_attribute_is_named():
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = {1, 2}

        def forward(self, x):
            return x * self.table

    with pytest.raises(ember.jit.NotSupportedError, match="the attribute 'table' of type set of Holder"):
        ember.jit.script(Holder())


def test_code_of_a_module_names_its_attributes(x):
    code = ember.jit.script(nn.Sequential(nn.Linear(4, 2))).code
    assert code.startswith("def forward(input: Tensor,\n    self_weight: Tensor,\n    self_bias: Tensor)")
