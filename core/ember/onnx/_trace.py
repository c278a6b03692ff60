"""Records a model's computation as a small graph by tracing: the example inputs are wrapped in a Tensor
subclass whose __torch_function__ runs each call on plain tensors and writes it down as a Node.

The graph is deliberately small so that ember.fx's graph can replace it later:
  Graph.inputs  -- Values for the traced inputs, in order
  Graph.nodes   -- Nodes in execution order; each has `op` (the callable's name, e.g. 'conv2d', '__add__'),
                   `target` (the callable, or the Module for a leaf module), `args`/`kwargs` (Values where a
                   traced tensor was passed; plain tensors (parameters, constants) and Python values as they
                   were) and `outputs` (the result with Values in place of its tensors)
  Graph.outputs -- the model's result with Values in place of its tensors
Only the outermost call is recorded (inner calls run with the subclass switched off), so one
`F.conv2d` is one node. Leaf modules (the recurrent layers, which ember runs as a fused per-layer op)
are recorded whole as one node whose op is 'module:<ClassName>'."""
from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Any

import ember

from .. import _C
from ..overrides import DisableTorchFunctionSubclass
from .errors import OnnxExporterError

__all__ = ["Value", "Node", "Graph", "trace", "leaf_module_types", "TracerWarning"]


class TracerWarning(UserWarning):
    """A value read out of a traced tensor into Python is a constant in the trace (PyTorch's warning)."""


@dataclass(eq=False)
class Value:
    """One tensor flowing through the graph: its example tensor (from the trace) gives shape and dtype."""
    index: int
    example: Any  # a plain ember.Tensor

    @property
    def shape(self):
        return tuple(self.example.shape)

    @property
    def dtype(self):
        return self.example.dtype


@dataclass(eq=False)
class Node:
    op: str
    target: Any
    args: tuple
    kwargs: dict
    outputs: Any


@dataclass(eq=False)
class Graph:
    inputs: list = field(default_factory=list)
    nodes: list = field(default_factory=list)
    outputs: Any = None


def leaf_module_types():
    """Module classes recorded whole (a mapping exists for each in the exporter)."""
    from ..nn import GRU, LSTM
    return (LSTM, GRU)


_ACTIVE: list = []  # the tracer being run (one at a time)


class _Tracer:
    def __init__(self):
        self.graph = Graph()
        self.values = {}  # id(traced tensor) -> Value
        self.keep = []  # the traced tensors, so their ids are not reused while tracing
        self.aliases = {}  # Value -> the list of Values that may share its memory (views of one another)
        self.stale = set()  # Values whose memory an in-place op changed after they were recorded

    def new_value(self, plain):
        return Value(len(self.keep), plain)

    def wrap(self, plain):
        """A traced tensor for the plain result `plain`, and its Value."""
        traced = plain.as_subclass(_TracedTensor)
        value = self.new_value(plain)
        self.values[id(traced)] = value
        self.keep.append(traced)
        return traced, value

    def wrap_result(self, ret):
        """(ret with traced tensors, ret with Values) for a call's result."""
        if isinstance(ret, _C.TensorBase):
            return self.wrap(ret.as_subclass(ember.Tensor))
        if isinstance(ret, (tuple, list)):
            pairs = [self.wrap_result(r) for r in ret]
            traced = [p[0] for p in pairs]
            values = [p[1] for p in pairs]
            if hasattr(ret, "_fields"):
                return type(ret)(*traced), tuple(values)
            if type(ret) in (tuple, list):
                return type(ret)(traced), tuple(values)
            return type(ret)(traced), tuple(values)  # ember.return_types struct sequences
        return ret, ret

    def to_values(self, obj):
        """obj with each traced tensor replaced by its Value and other tensors made plain."""
        if isinstance(obj, _TracedTensor):
            return self.values[id(obj)]
        if isinstance(obj, _C.TensorBase):
            return obj
        if isinstance(obj, (tuple, list)):
            return type(obj)(self.to_values(o) for o in obj) if type(obj) in (tuple, list) else \
                tuple(self.to_values(o) for o in obj)
        if isinstance(obj, dict):
            return {k: self.to_values(v) for k, v in obj.items()}
        return obj

    def record(self, op, target, args, kwargs, run):
        """Runs `run()` (on plain tensors), records the node and returns the traced result."""
        arg_values, kwarg_values = self.to_values(args), self.to_values(kwargs)
        self.check_fresh(op, (arg_values, kwarg_values))
        ret = run()
        traced, out_values = self.wrap_result(ret)
        self.graph.nodes.append(Node(op, target, arg_values, kwarg_values, out_values))
        first = arg_values[0] if arg_values and isinstance(arg_values[0], Value) else None
        if first is not None and op in _VIEW_OPS:
            group = self.aliases.setdefault(first, [first])
            for v in _values_in(out_values):
                group.append(v)
                self.aliases[v] = group
        if first is not None and _is_inplace(op, kwargs) and isinstance(out_values, Value):
            self.values[id(args[0])] = out_values  # later uses of the mutated tensor read the new value
            # the graph has no memory: a view of the mutated tensor (or the base of a mutated view) would not
            # see the change, so using one later is refused
            self.stale.update(v for v in self.aliases.get(first, [first]))
            return args[0]  # as eager in-place ops return their own tensor
        return traced

    def check_fresh(self, op, values):
        for v in _values_in(values):
            if v in self.stale:
                raise OnnxExporterError(
                    f"ONNX export of '{op}': its input shares memory with a tensor an in-place op changed (a view "
                    "and its base); the exported graph could not see the change. Write the in-place op out of "
                    "place (y = x.mul(2) instead of x.mul_(2)).")


# calls whose result may share memory with their first argument
_VIEW_OPS = frozenset(("__getitem__", "view", "view_as", "reshape", "reshape_as", "transpose", "t", "permute",
                       "squeeze", "unsqueeze", "expand", "expand_as", "narrow", "select", "split", "split_with_sizes",
                       "chunk", "tensor_split", "unbind", "flatten", "unflatten", "diagonal", "detach", "contiguous",
                       "swapaxes", "swapdims", "movedim", "moveaxis", "as_strided", "unfold", "real", "imag", "T",
                       "mT", "H", "mH", "view_as_real", "view_as_complex"))


def _values_in(obj):
    if isinstance(obj, Value):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [v for o in obj for v in _values_in(o)]
    if isinstance(obj, dict):
        return [v for o in obj.values() for v in _values_in(o)]
    return []


def _is_inplace(op, kwargs):
    if op.startswith("__i") and op.endswith("__"):
        return True
    return (op.endswith("_") and not op.endswith("__")) or bool(kwargs.get("inplace", False))


def _plain(obj):
    if isinstance(obj, _TracedTensor):
        with DisableTorchFunctionSubclass():
            return obj.as_subclass(ember.Tensor)
    if type(obj) in (tuple, list):
        return type(obj)(_plain(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


def _warn_python_value(kind):
    warnings.warn(f"Converting a tensor to a Python {kind} might cause the trace to be incorrect. We can't record "
                  "the data flow of Python values, so this value will be treated as a constant in the future. This "
                  "means that the trace might not generalize to other inputs!", TracerWarning, stacklevel=3)


class _TracedTensor(ember.Tensor):
    """A tensor seen by the tracer: every overridable call on it is recorded. Reading its data into Python
    (item, bool(), tolist...) does not dispatch, so those methods warn here as PyTorch's tracer does."""

    def item(self):
        _warn_python_value("number")
        return _plain(self).item()

    def tolist(self):
        _warn_python_value("list")
        return _plain(self).tolist()

    def numpy(self, *args, **kwargs):
        _warn_python_value("NumPy array")
        return _plain(self).numpy(*args, **kwargs)

    def __bool__(self):
        _warn_python_value("boolean")
        return bool(_plain(self))

    def __float__(self):
        _warn_python_value("float")
        return float(_plain(self))

    def __int__(self):
        _warn_python_value("integer")
        return int(_plain(self))

    def __index__(self):
        _warn_python_value("index")
        return _plain(self).__index__()

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", None) or repr(func)
        if not _ACTIVE or name in ("__repr__", "__format__", "__str__"):
            with DisableTorchFunctionSubclass():
                return func(*_plain(args), **_plain(kwargs))
        tracer = _ACTIVE[-1]

        def run():
            with DisableTorchFunctionSubclass():
                return func(*_plain(args), **_plain(kwargs))
        return tracer.record(name, func, args, kwargs, run)


@contextlib.contextmanager
def _leaf_modules_recorded(model, tracer):
    """Makes each leaf module inside model record itself as one node while tracing."""
    leaves = leaf_module_types()
    patched = []
    for module in model.modules():
        if isinstance(module, leaves) and "forward" not in module.__dict__:
            def forward(*args, _module=module, **kwargs):
                def run():
                    return type(_module).forward(_module, *_plain(args), **_plain(kwargs))
                return tracer.record(f"module:{type(_module).__name__}", _module, args, kwargs, run)
            module.forward = forward
            patched.append(module)
    try:
        yield
    finally:
        for module in patched:
            del module.forward


def trace(model, args, kwargs):
    """Runs model(*args, **kwargs) with the tensors among args and kwargs traced (they become the graph's
    inputs: args in order, then the tensor kwargs in their order; other values are constants) and returns
    the Graph and the names of the traced kwargs."""
    tracer = _Tracer()

    def traced_input(a):
        t, v = tracer.wrap(a.detach().as_subclass(ember.Tensor))
        tracer.graph.inputs.append(v)
        return t
    traced_args = []
    for a in args:
        if not isinstance(a, _C.TensorBase):
            raise TypeError(f"ember.onnx.export: the example inputs must be tensors, got {type(a).__name__}")
        traced_args.append(traced_input(a))
    traced_kwargs = {k: traced_input(v) if isinstance(v, _C.TensorBase) else v for k, v in kwargs.items()}
    kwarg_names = [k for k, v in kwargs.items() if isinstance(v, _C.TensorBase)]
    _ACTIVE.append(tracer)
    try:
        with ember.no_grad(), _leaf_modules_recorded(model, tracer):
            result = model(*traced_args, **traced_kwargs)
    finally:
        _ACTIVE.pop()
    tracer.graph.outputs = tracer.to_values(result)
    tracer.check_fresh("output", tracer.graph.outputs)
    return tracer.graph, kwarg_names
