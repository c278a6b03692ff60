"""Identity, Linear, Bilinear, LazyLinear, and NonDynamicallyQuantizableLinear (MultiheadAttention's
out_proj, under the name PyTorch's checkpoints and safe_globals lists use)."""
from __future__ import annotations

import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]  # NonDynamicallyQuantizableLinear is not in nn


def _factory(device, dtype):
    return {"device": device, "dtype": dtype if dtype is not None else _C.get_default_dtype()}


class Identity(Module):
    """Returns its input; takes (and ignores) any arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x A^T + b, with A (out_features, in_features) and b (out_features) initialized
    uniform(-1/sqrt(in_features), 1/sqrt(in_features)) as in PyTorch."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_C.empty(out_features, in_features, **_factory(device, dtype)))
        if bias:
            self.bias = Parameter(_C.empty(out_features, **_factory(device, dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)  # its shape error is PyTorch's "mat1 and mat2 ..."

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """y = x1^T A x2 + b, A (out, in1, in2) initialized uniform(-1/sqrt(in1), 1/sqrt(in1))."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(_C.empty(out_features, in1_features, in2_features, **_factory(device, dtype)))
        if bias:
            self.bias = Parameter(_C.empty(out_features, **_factory(device, dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(Linear):
    """A Linear whose in_features is read from the first input; until then its weight is empty."""

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self._factory = _factory(device, dtype)
        self.weight = Parameter(_C.empty(0, **self._factory))
        if bias:
            self.bias = Parameter(_C.empty(0, **self._factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, input):
        if self.in_features == 0:
            if input.dim() == 0:
                raise RuntimeError("LazyLinear: the input needs at least one dimension (the features)")
            self.in_features = input.shape[-1]
            self.weight = Parameter(_C.empty(self.out_features, self.in_features, **self._factory))
            if self.bias is not None:
                self.bias = Parameter(_C.empty(self.out_features, **self._factory))
            self.reset_parameters()
            self.__class__ = Linear  # materialized: an ordinary Linear from now on, as in PyTorch
        return Linear.forward(self, input)


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear that PyTorch's dynamic quantization leaves alone; here a Linear under that name."""
