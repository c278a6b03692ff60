"""Proxy: the stand-in value symbolic tracing runs a program on. Every operation on it (operators,
methods, attribute reads, ember functions through __torch_function__) records a Node instead of
computing; control flow that needs its value raises TraceError naming the user's line."""
from __future__ import annotations

import dis
import inspect
import operator
import os
import sys
from typing import Any

from .graph import Graph
from .node import Node, map_aggregate

__all__ = ["TraceError", "TracerBase", "GraphAppendingTracer", "Proxy", "Attribute", "ParameterProxy"]

_FX_DIR = os.path.dirname(os.path.abspath(__file__))


class TraceError(ValueError):
    """A traced program did something symbolic values cannot do (as torch.fx.proxy.TraceError)."""


def _user_location() -> str:
    """' (at file:line in fn: source)' for the innermost frame outside ember.fx: the line that asked."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_FX_DIR + os.sep):
            info = inspect.getframeinfo(frame, context=1)
            src = info.code_context[0].strip() if info.code_context else ""
            return f"\n  (at {info.filename}:{info.lineno} in {info.function}: {src})"
        frame = frame.f_back
    return ""


def _base_types() -> tuple:
    import ember
    return (str, int, float, bool, complex, ember.dtype, ember.Tensor, ember.device, ember.memory_format,
            ember.layout)


class TracerBase:
    """Turns operations on Proxies into Nodes of self.graph (create_proxy / create_arg)."""
    graph: Graph
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"

    def create_node(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                    type_expr: Any = None) -> Node:
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr: Any = None, proxy_factory_fn=None) -> Proxy:
        """A Proxy for a new node; args/kwargs are mapped through create_arg first."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple) or not isinstance(kwargs_, dict):
            raise AssertionError("create_arg must keep args a tuple and kwargs a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a: Any):
        """The node-argument form of a: Proxies become their nodes, containers are mapped, and only
        values generated code can hold are allowed (NotImplementedError otherwise)."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(elem) for elem in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(elem) for elem in a)
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if a is None or a is ... or isinstance(a, _base_types()) or callable(a):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow" + _user_location())

    def iter(self, obj: Proxy):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or"
                         " as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more"
                         " detailed explanation of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors" + _user_location())

    def keys(self, obj: Proxy):
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """The tracer of Proxies made by hand over an existing graph (fx.Proxy(node))."""

    def __init__(self, graph: Graph):
        super().__init__()
        self.graph = graph


class Proxy:
    """A symbolic value: the Node that will compute it, and the tracer recording operations on it."""

    def __init__(self, node: Node, tracer: TracerBase | None = None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)  # protocols (copy, pickle, numpy) probe these: they are not graph values
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        import copy
        new = Proxy.__new__(Proxy)
        memo[id(self)] = new
        new.__dict__ = copy.deepcopy(self.__dict__, memo)
        return new

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # `a, b = proxy` can be traced: the caller's next instruction says how many values it unpacks
        frame = sys._getframe(1)
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(inst.argval))
                break
        return self.tracer.iter(self)

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call ember.fx.wrap('len') at module scope")

    def keys(self):
        return self.tracer.keys(self)

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        from ..overrides import is_tensor_method_or_property
        kwargs = kwargs if kwargs else {}
        tracers: dict[TracerBase, None] = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None
        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying to trace operations "
                               f"{orig_method}")
        tracer = next(iter(tracers))
        if is_tensor_method_or_property(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(orig_method))


class Attribute(Proxy):
    """proxy.attr: a getattr node made only when used as a value; calling it records a method call."""

    def __init__(self, root: Proxy, attr: str):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A get_attr Proxy of a parameter: shape/size/dim/numel answer with the parameter's real values
    (Tracer(param_shapes_constant=True))."""

    def __init__(self, tracer: TracerBase, node: Node, name: str, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


_REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_", "xor",
                "matmul")
_MAGIC = _REFLECTABLE + ("eq", "ne", "lt", "gt", "le", "ge", "pos", "neg", "invert", "getitem")


def _install_magic_methods() -> None:
    for method in _MAGIC:
        target = getattr(operator, method)

        def impl(*args, target=target):
            return args[0].tracer.create_proxy("call_function", target, args, {})
        impl.__name__ = f"__{method.strip('_')}__"
        setattr(Proxy, impl.__name__, impl)
    for method in _REFLECTABLE:
        target = getattr(operator, method)

        def rimpl(self, rhs, target=target):
            return self.tracer.create_proxy("call_function", target, (rhs, self), {})
        rimpl.__name__ = f"__r{method.strip('_')}__"
        setattr(Proxy, rimpl.__name__, rimpl)


_install_magic_methods()
