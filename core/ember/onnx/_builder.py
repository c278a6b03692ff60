"""The ONNX graph being written: unique names, initializers (parameters and constants) and nodes, built with
the `onnx` package's helpers. The op mappings (_symbolic_*.py) emit through it."""
from __future__ import annotations

import functools

import numpy as np

import ember

from ._trace import Value

__all__ = ["GraphBuilder", "numpy_dtype"]


@functools.lru_cache(maxsize=None)
def numpy_dtype(dtype):
    """The NumPy dtype of an ember dtype (bfloat16, which NumPy lacks, is refused by the caller)."""
    return ember.empty(0, dtype=dtype).numpy().dtype


class GraphBuilder:
    def __init__(self, onnx, opset, param_names, export_params, params_as_inputs=False):
        self.onnx = onnx
        self.helper = onnx.helper
        self.opset = opset
        self.nodes = []
        self.initializers = []
        self.extra_inputs = []  # parameters as graph inputs (export_params=False, keep_initializers_as_inputs)
        self.export_params = export_params
        self.params_as_inputs = params_as_inputs or not export_params
        self.param_names = param_names  # id(tensor) -> the module's name for it ('0.weight')
        self.value_names = {}  # Value -> ONNX name
        self.tensor_names = {}  # id(plain tensor) -> initializer name
        self.keep = []  # the tensors named above, so their ids stay theirs
        self.used = set()
        self.counter = 0

    def fresh(self, hint):
        hint = hint.replace(".", "_") if hint else "v"
        name = hint
        while name in self.used:
            self.counter += 1
            name = f"{hint}_{self.counter}"
        self.used.add(name)
        return name

    def bind(self, value, name):
        self.value_names[value] = name

    def name(self, x):
        """The ONNX name of a Value or a plain tensor (which becomes an initializer)."""
        if isinstance(x, Value):
            return self.value_names[x]
        if isinstance(x, ember.Tensor) or hasattr(x, "numpy"):
            key = id(x)
            if key not in self.tensor_names:
                param = self.param_names.get(key)
                self.tensor_names[key] = self.tensor(x.detach().numpy(), param or "const", is_param=param is not None)
                self.keep.append(x)
            return self.tensor_names[key]
        raise TypeError(f"ember.onnx.export: expected a tensor, got {type(x).__name__}")

    def tensor(self, array, hint="const", is_param=False):
        """A new initializer holding array; returns its name."""
        array = np.array(array, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
        name = self.fresh(hint)
        proto = self.onnx.numpy_helper.from_array(array, name)
        if is_param and self.params_as_inputs:
            self.extra_inputs.append(self.helper.make_tensor_value_info(
                name, self.helper.np_dtype_to_tensor_dtype(array.dtype), list(array.shape)))
        if self.export_params or not is_param:
            self.initializers.append(proto)
        return name

    def ints(self, values, hint="ints"):
        return self.tensor(np.asarray(list(values), dtype=np.int64), hint)

    def scalar(self, value, dtype, hint="scalar"):
        """A 0-d constant of the ember dtype."""
        return self.tensor(np.asarray(value, dtype=numpy_dtype(dtype)), hint)

    def elem_type(self, dtype):
        return self.helper.np_dtype_to_tensor_dtype(numpy_dtype(dtype))

    def add(self, op_type, inputs, outputs=1, hint=None, **attrs):
        """Appends one node; returns its output name (or the list of names when outputs > 1). An empty
        string among inputs marks an omitted optional input."""
        names = [self.fresh(hint or op_type.lower()) for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self.helper.make_node(op_type, list(inputs), names, name=self.fresh(f"{op_type}_node"),
                                                **attrs))
        return names[0] if outputs == 1 else names

    def cast(self, name, from_dtype, to_dtype):
        if from_dtype == to_dtype:
            return name
        return self.add("Cast", [name], to=self.elem_type(to_dtype))

    def operand(self, x, dtype):
        """The name of x (a Value, a tensor or a Python number) as an operand of dtype."""
        if isinstance(x, (bool, int, float)):
            return self.scalar(x, dtype)
        src = x.dtype
        return self.cast(self.name(x), src, dtype)
