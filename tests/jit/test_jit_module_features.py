"""Scripted modules: @ember.jit.export methods, __constants__ and Final attributes, attributes inferred from
their values (str, list, dict, tuple, Optional), ModuleList and ModuleDict (iteration, indexing by a
constant, len), calls of other methods and of super()'s; scripted against eager."""
from typing import Dict, Final, List, Optional

import numpy as np
import pytest

import ember
import ember.nn as nn


class Features(nn.Module):
    __constants__ = ["scale"]
    use_bias: Final[bool]

    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.use_bias = True
        self.names = ["a", "b"]
        self.table = {"a": 1, "b": 2}
        self.shape = (2, 2)
        self.tag = "feat"
        self.maybe: Optional[int] = None
        self.layers = nn.ModuleList([nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 4)])
        self.heads = nn.ModuleDict({"x": nn.Linear(4, 4), "y": nn.Tanh()})

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        x = x + self.layers[0].bias.sum()
        for name, head in self.heads.items():
            x = head(x) if name == "x" else x + head(x)
        x = self.heads["y"](x)
        if self.maybe is not None:
            x = x + self.maybe
        return self.helper(x).reshape([x.size(0), self.shape[0], self.shape[1]]) * self.scale + len(self.layers)

    def helper(self, x):
        return x + self.table["b"] if self.use_bias else x

    @ember.jit.export
    def describe(self, n: int) -> List[str]:
        return [f"{self.tag}:{k}{n}" for k in self.names]

    @ember.jit.export
    def counts(self) -> Dict[str, int]:
        out = {k: v * 10 for k, v in self.table.items()}
        out["layers"] = len(self.layers)
        return out


def test_module_features_match_eager():
    m = Features()
    s = ember.jit.script(m)
    x = ember.randn(5, 3)
    np.testing.assert_allclose(s(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    assert s.describe(3) == m.describe(3) == ["feat:a3", "feat:b3"]
    assert s.counts() == m.counts() == {"a": 10, "b": 20, "layers": 3}


def test_constants_are_baked_in_and_other_numbers_read_each_call():
    class Scaled(nn.Module):
        __constants__ = ["fixed"]

        def __init__(self):
            super().__init__()
            self.fixed, self.live = 2.0, 3.0

        def forward(self, x):
            return x * self.fixed + self.live

    m = Scaled()
    s = ember.jit.script(m)
    x = ember.ones(2)
    m.fixed, m.live = 100.0, 5.0
    assert s(x).tolist() == [7.0, 7.0]  # fixed was a constant when scripted; live is read now


class Base(nn.Module):
    def shift(self, x):
        return x + 1.0


class Child(Base):
    def shift(self, x):
        return super().shift(x) * 2.0

    def forward(self, x):
        return self.shift(x)


def test_super_method_calls():
    x = ember.tensor([1.0, 2.0])
    assert ember.jit.script(Child())(x).tolist() == Child()(x).tolist() == [4.0, 6.0]


def test_module_container_index_must_be_constant():
    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.ReLU()])

        def forward(self, x, i: int):
            return self.layers[i](x)

    with pytest.raises(ember.jit.ScriptTypeError, match="a module container can only be indexed by an int or str "
                                                         "constant"):
        ember.jit.script(Bad())
