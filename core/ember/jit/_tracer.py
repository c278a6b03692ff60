"""The recorder behind ember.jit.trace: the example inputs are wrapped in a Tensor subclass whose
__torch_function__ runs each call on plain tensors (so the function computes exactly what it computes
eagerly) and appends the call to a script graph as the op-database op it names, chosen and checked by
the script compiler's own call resolution (so a traced graph is the same IR a scripted one is).

Why proxying rather than the op-call recorder hooks of core/csrc/base/trace.*: those hooks see an op's
name and argument shapes but not which earlier result each tensor argument is, and a graph needs that
data flow; the Tensor subclass carries it. Only the outermost call is recorded (inner calls run on
plain tensors), so one op-backed call is one node; F's Python-written functions record the ops their
eager bodies call (the path they take for these inputs, as a trace should; F.linear its script version),
and a ScriptFunction or ScriptModule called while tracing is inlined from its own graph.

Python values read out of traced tensors (item(), int(t), bool(t), tolist(), sizes) become constants
of the graph, with a TracerWarning, as PyTorch's tracer warns."""
from __future__ import annotations

import inspect
import warnings

import ember

from .. import _C
from ..overrides import DisableTorchFunctionSubclass
from . import _builtins, _ops
from . import _types as T
from ._compiler import ParsedFunction, SValue
from ._errors import FrontendError
from ._stmts import StmtCompiler


class TracerWarning(UserWarning):
    """A Python value computed from a traced tensor is a constant of the trace (PyTorch's warning)."""


class TracingCheckError(Exception):
    """check_trace found that tracing again with other inputs records a different graph."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n" + (extra_msg or "")
        if graph_diff_error:
            self.message += "\nERROR: Graphs differed across invocations!\n" + graph_diff_error
        if tensor_compare_error:
            self.message += "\nERROR: Tensor-valued Constant nodes differed in value across invocations.\n" + \
                tensor_compare_error
        super().__init__(self.message)


def _emitter_anchor():  # the emitter's ParsedFunction (it compiles no source of its own)
    pass


# Tensor operators -> (op, whether the operands swap)
_DUNDER_OPS = {
    "__add__": ("add", False), "__radd__": ("add", True), "__iadd__": ("add_", False),
    "__sub__": ("sub", False), "__rsub__": ("sub", True), "__isub__": ("sub_", False),
    "__mul__": ("mul", False), "__rmul__": ("mul", True), "__imul__": ("mul_", False),
    "__truediv__": ("div", False), "__rtruediv__": ("div", True), "__itruediv__": ("div_", False),
    "__floordiv__": ("floor_divide", False), "__rfloordiv__": ("floor_divide", True),
    "__mod__": ("remainder", False), "__rmod__": ("remainder", True),
    "__pow__": ("pow", False), "__rpow__": ("pow", True), "__matmul__": ("matmul", False),
    "__rmatmul__": ("matmul", True), "__neg__": ("neg", False), "__abs__": ("abs", False),
    "__and__": ("bitwise_and", False), "__or__": ("bitwise_or", False), "__xor__": ("bitwise_xor", False),
    "__invert__": ("bitwise_not", False), "__lt__": ("lt", False), "__le__": ("le", False),
    "__gt__": ("gt", False), "__ge__": ("ge", False), "__eq__": ("eq", False), "__ne__": ("ne", False),
}
# Calls whose results are Python values about a tensor rather than data computed from it.
_METADATA = frozenset(("size", "shape", "dim", "ndim", "numel", "dtype", "device", "is_floating_point",
                       "is_complex", "requires_grad", "is_leaf", "layout", "stride", "element_size", "nelement",
                       "is_contiguous", "__len__", "data_ptr", "storage_offset", "get_device", "is_cuda"))
_SIZE_LIKE = frozenset(("size", "shape", "numel", "__len__", "nelement", "stride"))

_ACTIVE: list[Tracer] = []


def active() -> Tracer | None:
    return _ACTIVE[-1] if _ACTIVE else None


def warn_python_value(kind: str) -> None:
    warnings.warn(f"Converting a tensor to a Python {kind} might cause the trace to be incorrect. We can't record "
                  "the data flow of Python values, so this value will be treated as a constant in the future. This "
                  "means that the trace might not generalize to other inputs!", TracerWarning, stacklevel=3)


def plain(obj):
    if isinstance(obj, TracedTensor):
        with DisableTorchFunctionSubclass():
            return obj.as_subclass(ember.Tensor)
    if type(obj) in (tuple, list):
        return type(obj)(plain(o) for o in obj)
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    return obj


class Tracer:
    """One trace: the graph being recorded, the Value of each traced tensor, and (tracing a module) the
    parameters and buffers the graph reads as inputs."""

    def __init__(self, graph, owners: dict | None = None):
        self.g = graph
        self.em = StmtCompiler(graph, graph.top, ParsedFunction(_emitter_anchor), [])
        self.values: dict[int, SValue] = {}  # id(traced tensor) -> its value
        self.keep: list = []  # traced tensors and constants, so their ids stay theirs while tracing
        self.owners = owners or {}  # id(parameter or buffer) -> (module, name): read as graph inputs
        self.attr_inputs: list[tuple[object, str]] = []
        self.attr_values: dict[int, SValue] = {}
        self.constants: dict[int, SValue] = {}
        self.depth = 0  # how many Python-written library functions the trace is inside (see descend)

    # --- values -----------------------------------------------------------------------------------
    def input(self, example, name: str):
        traced = example.detach().as_subclass(TracedTensor)
        return self.bind(traced, SValue(self.g.add_param(self.g.top, "Tensor", name), T.TENSOR))

    def bind(self, traced, value: SValue):
        self.values[id(traced)] = value
        self.keep.append(traced)
        return traced

    def value_of(self, obj) -> SValue:
        """The graph value for a call argument: traced tensors by their Value, a module's parameters and
        buffers as inputs, other tensors and Python values as constants."""
        if isinstance(obj, TracedTensor):
            return self.values[id(obj)]
        if isinstance(obj, _C.TensorBase):
            if id(obj) in self.owners:
                if id(obj) not in self.attr_values:
                    module, name = self.owners[id(obj)]
                    self.attr_inputs.append((module, name))
                    self.attr_values[id(obj)] = SValue(self.g.add_param(self.g.top, "Tensor", name), T.TENSOR)
                return self.attr_values[id(obj)]
            if id(obj) not in self.constants:
                if self.depth:  # a factory call inside a library function (they take no tensor to dispatch on)
                    warnings.warn("ember.jit.trace: a tensor made inside a library function without a recorded call "
                                  f"(shape {tuple(obj.shape)}) is a constant of the trace; the trace might not "
                                  "generalize to inputs of other shapes", TracerWarning, stacklevel=4)
                self.keep.append(obj)
                self.constants[id(obj)] = SValue(self.g.constant(self.g.top, plain(obj).detach(), "Tensor"), T.TENSOR)
            return self.constants[id(obj)]
        if isinstance(obj, (list, tuple)):
            if any(isinstance(o, _C.TensorBase) for o in obj):
                items = [self.value_of(o) for o in obj]
                return self.em.emit1("prim::ListConstruct", items, T.list_of(T.TENSOR))
            if not obj:
                return self.em.emit1("prim::ListConstruct", [], T.list_of(T.INT))
            return self.em.const(list(obj))
        if isinstance(obj, ember.dtype):
            return self.em.const(_C._jit.dtype_code(obj))
        if isinstance(obj, ember.device):
            return self.em.const(str(obj))
        try:
            return self.em.const(obj)
        except TypeError:
            raise RuntimeError(f"ember.jit.trace: a {type(obj).__name__} argument cannot be recorded in the graph "
                               "(tensors, numbers, strings, None, dtypes, devices and lists of them can)") from None

    def wrap(self, result, value: SValue):
        """result (the plain result of a call) with its tensors traced as the graph values in `value`."""
        if isinstance(result, _C.TensorBase):
            return self.bind(result.as_subclass(TracedTensor), value)
        if isinstance(result, (tuple, list)):
            kind = "prim::TupleUnpack" if value.type.kind == "Tuple" else "prim::ListUnpack"
            elem_types = value.type.elems if value.type.kind == "Tuple" else [value.type.elems[0]] * len(result)
            parts = self.em.emit(kind, [value], list(elem_types))
            items = [self.wrap(r, v) for r, v in zip(result, parts)]
            if hasattr(result, "_fields") or type(result) not in (tuple, list):
                return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
            return type(result)(items)
        return result

    def output(self, result) -> SValue:
        """The graph value of the traced function's result."""
        if isinstance(result, (tuple, list)):
            items = [self.output(r) for r in result]
            if isinstance(result, list):
                return self.em.emit1("prim::ListConstruct", items, T.list_of(items[0].type if items else T.TENSOR))
            return self.em.emit1("prim::TupleConstruct", items, T.tuple_of(v.type for v in items))
        if isinstance(result, _C.TensorBase) and not isinstance(result, TracedTensor) and id(result) not in self.owners:
            warnings.warn("ember.jit.trace: an output of the traced function was not computed by recorded calls from "
                          "its inputs; it is a constant of the trace", TracerWarning, stacklevel=3)
        return self.value_of(result)

    # --- calls ------------------------------------------------------------------------------------
    def record(self, func, args, kwargs):
        name = getattr(func, "__name__", None) or repr(func)
        with DisableTorchFunctionSubclass():
            result = func(*plain(args), **plain(kwargs))
        if name in _METADATA or not _has_tensor(result):
            if name in _SIZE_LIKE:
                warnings.warn(f"ember.jit.trace: {name}() of a traced tensor is recorded as a constant (the example's "
                              "shape); the trace might not generalize to inputs of other shapes", TracerWarning,
                              stacklevel=3)
            return result
        if name == "__getitem__":
            return self.wrap(result, self.index(args[0], args[1], name))
        try:
            value, inplace = self.emit_call(func, name, args, kwargs)
        except FrontendError as e:
            raise RuntimeError(f"ember.jit.trace: cannot record the call of {name}: {e.msg}") from None
        except _NoOp:
            return self.descend(func, name, args, kwargs)
        if inplace:  # the tensor the op changed reads the op's result from here on
            self.values[id(args[0])] = value
            return args[0]
        return self.wrap(result, value)

    def index(self, base, key, name) -> SValue:
        """x[key] for ints, slices of step 1, None and Ellipsis: select / narrow / unsqueeze ops. A slice
        bound taken from the example's size (an open or negative end) is a constant of the trace."""
        keys = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, _C.TensorBase) or isinstance(k, (list, bool)) for k in keys):
            raise RuntimeError("ember.jit.trace: indexing with tensors, lists or bools is not supported")
        shape = list(plain(base).shape)
        dim, value = 0, self.value_of(base)
        consumed = sum(1 for k in keys if k is not None and k is not Ellipsis)
        for k in keys:
            if k is Ellipsis:
                dim += len(shape) - consumed
            elif k is None:
                value = self.em.call_op("unsqueeze", [value, self.em.const(dim)], {}, None)
                shape.insert(dim, 1)
                dim += 1
            elif isinstance(k, int):
                value = self.em.call_op("select", [value, self.em.const(dim), self.em.const(k)], {}, None)
                shape.pop(dim)
            elif isinstance(k, slice):
                start, stop, step = k.indices(shape[dim])
                if step != 1:
                    raise RuntimeError("ember.jit.trace: slices with a step are not supported")
                if (k.start, k.stop) != (None, None):
                    if k.stop is None or k.stop < 0 or k.stop > shape[dim] or (k.start or 0) < 0:
                        warnings.warn("ember.jit.trace: a slice bound that depends on the tensor's size is "
                                      "recorded as a constant (the example's size)", TracerWarning, stacklevel=4)
                    length = max(0, stop - start)
                    value = self.em.call_op("narrow", [value, self.em.const(dim), self.em.const(start),
                                                       self.em.const(length)], {}, None)
                    shape[dim] = length
                dim += 1
            else:
                raise RuntimeError(f"ember.jit.trace: indexing with a {type(k).__name__} is not supported")
        return value

    def descend(self, func, name, args, kwargs):
        """A Python-written function with no op of its own (F.conv2d...): its body runs on the traced
        tensors, so the calls inside it are recorded. Tensors it makes without a recorded call (factories)
        become constants of the graph, with a TracerWarning."""
        body = inspect.unwrap(func)
        if body is func or not hasattr(body, "__code__"):
            raise RuntimeError(f"ember.jit.trace: cannot record the call of {name}: no op of the op database "
                               "implements it")
        self.depth += 1
        try:
            result = body(*args, **kwargs)
        finally:
            self.depth -= 1
        if _has_untraced_tensor(result):
            raise RuntimeError(f"ember.jit.trace: cannot record the call of {name}: its result was computed by calls "
                               "that do not go through the recorded ops")
        return result

    def emit_call(self, func, name, args, kwargs):
        if func in _SCRIPT_VERSION_IN_TRACE():
            svals = [self.value_of(a) for a in args]
            skw = {k: self.value_of(v) for k, v in kwargs.items()}
            return self.em.inline_call(_builtins.SCRIPT_IMPLS[func], svals, skw, None), False
        op = _ops.op_name_of(func)
        if op is None and name in _DUNDER_OPS:
            op, swapped = _DUNDER_OPS[name]
            if swapped:
                args = (args[1], args[0]) + tuple(args[2:])
        if op is None and _ops.candidates(name):
            op = name
        if op is None:
            raise _NoOp(name)
        args, kwargs = _inplace_by_keyword(func, op, args, kwargs)
        if kwargs.get("inplace") is True and not _takes_inplace(op):
            op, kwargs = op + "_", {k: v for k, v in kwargs.items() if k != "inplace"}
        elif "inplace" in kwargs and not _takes_inplace(op):
            kwargs = {k: v for k, v in kwargs.items() if k != "inplace"}
        args = _pack_varargs(op, args)
        svals = [self.value_of(a) for a in args]
        skw = {k: self.value_of(v) for k, v in kwargs.items()}
        inplace = op.endswith("_") and not op.endswith("__") and isinstance(args[0], TracedTensor)
        return self.em.call_op(op, svals, skw, None), inplace

    def call_script(self, fn, args, extra_inputs=()):
        """A ScriptFunction or ScriptModule called while tracing: its graph inlined into the trace."""
        ins = [self.value_of(a) for a in args] + [self.value_of(x) for x in extra_inputs]
        outs = self.g.inline_graph(self.g.top, fn._g, [v.id for v in ins])
        with DisableTorchFunctionSubclass():
            result = fn._g.run(list(plain(args)) + list(extra_inputs))
        return self.wrap(result, SValue(outs[0], fn.return_type))


def _pack_varargs(op: str, args):
    """x.view(2, 3) / x.permute(1, 0): the ints after the tensor are the op's one int[] argument."""
    sch = _ops.schema(op)
    if sch is None or len(args) < 2 or len(sch.args) < 2 or sch.args[1].type != "int[]":
        return args
    positional = [a for a in sch.args if not a.kwonly]
    rest = args[1:]
    if len(args) > len(positional) or (len(rest) == 1 and isinstance(rest[0], int)):
        if all(isinstance(a, int) and not isinstance(a, bool) for a in rest):
            return (args[0], list(rest))
    return args


class _NoOp(Exception):
    pass


def _has_untraced_tensor(obj) -> bool:
    if isinstance(obj, _C.TensorBase):
        return not isinstance(obj, TracedTensor)
    return isinstance(obj, (tuple, list)) and any(_has_untraced_tensor(o) for o in obj)


def _has_tensor(obj) -> bool:
    if isinstance(obj, _C.TensorBase):
        return True
    return isinstance(obj, (tuple, list)) and any(_has_tensor(o) for o in obj)


def _SCRIPT_VERSION_IN_TRACE():
    """F functions recorded as their script versions: F.linear's eager body transposes the weight with a
    method of the Parameter, which dispatches to no tracer (the transpose would be a constant)."""
    import ember.nn.functional as F
    return (F.linear,) if F.linear in _builtins.SCRIPT_IMPLS else ()


def _inplace_by_keyword(func, op, args, kwargs):
    """F.relu(x, True): a Python wrapper's positional `inplace` (which the op does not take) as a keyword."""
    if _takes_inplace(op):
        return args, kwargs
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return args, kwargs
    if "inplace" in params and len(args) > params.index("inplace"):
        k = params.index("inplace")
        return tuple(args[:k]) + tuple(args[k + 1:]), {**kwargs, "inplace": bool(args[k])}
    return args, kwargs


def _takes_inplace(op: str) -> bool:
    sch = _ops.schema(op)
    return sch is not None and any(a.name == "inplace" for a in sch.args)


class TracedTensor(ember.Tensor):
    """A tensor seen by the tracer: every overridable call on it is recorded. Reading its data into Python
    (item, bool(), tolist...) does not dispatch, so those methods warn here as PyTorch's tracer does."""

    def __getitem__(self, key):  # ember.Tensor's indexing does not dispatch to __torch_function__
        tracer = active()
        if tracer is None:
            return plain(self)[key]
        return tracer.record(ember.Tensor.__getitem__, (self, key), {})

    def __repr__(self, *args, **kwargs):
        return plain(self).__repr__(*args, **kwargs)

    def item(self):
        warn_python_value("number")
        return plain(self).item()

    def tolist(self):
        warn_python_value("list")
        return plain(self).tolist()

    def numpy(self, *args, **kwargs):
        warn_python_value("NumPy array")
        return plain(self).numpy(*args, **kwargs)

    def __bool__(self):
        warn_python_value("boolean")
        return bool(plain(self))

    def __float__(self):
        warn_python_value("float")
        return float(plain(self))

    def __int__(self):
        warn_python_value("integer")
        return int(plain(self))

    def __index__(self):
        warn_python_value("index")
        return plain(self).__index__()

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", None)
        tracer = active()
        if tracer is None or name in ("__repr__", "__format__", "__str__"):
            with DisableTorchFunctionSubclass():
                return func(*plain(args), **plain(kwargs))
        return tracer.record(func, args, kwargs)
