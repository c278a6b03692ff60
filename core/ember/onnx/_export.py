"""ember.onnx.export: trace the model (ember/onnx/_trace.py), write each recorded call through its mapping
(_symbolic_*.py) and save the ONNX model with the `onnx` package's protobuf helpers."""
from __future__ import annotations

import contextlib
import enum
import inspect
import os
import warnings

import ember

from . import (_symbolic_arith, _symbolic_attention, _symbolic_image, _symbolic_misc, _symbolic_nn,  # noqa: F401
               _symbolic_rnn, _symbolic_shape)
from ._builder import GraphBuilder
from ._registry import SYMBOLICS
from ._trace import Value, trace
from .errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["export", "is_in_onnx_export", "TrainingMode", "DEFAULT_OPSET", "MIN_OPSET", "MAX_OPSET"]

DEFAULT_OPSET = 17
MIN_OPSET = 17  # LayerNormalization is an ONNX op from 17 on
MAX_OPSET = 21  # the newest opset whose changes to the ops written here are handled

_EXPORTING = [False]


def is_in_onnx_export():
    """Whether an ember.onnx.export call is running (a model may take a different path while traced)."""
    return _EXPORTING[0]


def _import_onnx():
    try:
        import onnx
        import onnx.numpy_helper  # noqa: F401
    except ImportError as e:
        raise ImportError("ember.onnx.export needs the 'onnx' package to write the model: pip install onnx") from e
    return onnx


@contextlib.contextmanager
def _eval_mode(model):
    """Exports in eval mode (PyTorch's TrainingMode.EVAL default), restoring each module's flag after."""
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    _EXPORTING[0] = True
    try:
        yield
    finally:
        _EXPORTING[0] = False
        for m, was_training in modes:
            m.training = was_training


def _flatten_values(structure):
    if isinstance(structure, Value) or structure is None:
        return [] if structure is None else [structure]
    if isinstance(structure, (tuple, list)):
        return [v for s in structure for v in _flatten_values(s)]
    if isinstance(structure, dict):
        return [v for s in structure.values() for v in _flatten_values(s)]
    raise OnnxExporterError(f"ember.onnx.export: the model returned a {type(structure).__name__} that depends on no "
                            "input (only tensors computed from the inputs can be outputs)")


def _bind_outputs(b, structure, names):
    if structure is None:
        return
    if isinstance(structure, Value):
        if not isinstance(names, str):
            raise OnnxExporterError("ember.onnx.export: a mapping returned outputs of another structure")
        b.bind(structure, names)
        return
    if isinstance(structure, (tuple, list)):
        for s, n in zip(structure, names):
            _bind_outputs(b, s, n)


_DUNDER_NAMES = {"__getitem__": "index", "__setitem__": "index_put_", "__truediv__": "div", "__rtruediv__": "div",
                 "__rsub__": "rsub", "__floordiv__": "floor_divide", "__mod__": "remainder", "__and__": "bitwise_and",
                 "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__invert__": "bitwise_not", "__lshift__":
                 "bitwise_left_shift", "__rshift__": "bitwise_right_shift"}


def _aten_name(op):
    """The name PyTorch's message would give a traced call ('__setitem__' -> 'index_put_')."""
    if op in _DUNDER_NAMES:
        return _DUNDER_NAMES[op]
    if op.startswith("__") and op.endswith("__"):
        core = op[2:-2]
        return core[1:] if core.startswith(("r", "i")) and core[1:] in ("add", "mul", "sub", "pow", "matmul") else core
    return op


def _write_nodes(b, graph):
    for node in graph.nodes:
        fn = SYMBOLICS.get(node.op)
        if fn is None:
            raise UnsupportedOperatorError(f"aten::{_aten_name(node.op)}", b.opset, None)
        _bind_outputs(b, node.outputs, fn(b, node))


def _input_names(model, count, kwarg_names, given):
    """input_names, completed by forward's parameter names for the positional inputs and the keywords for the
    keyword inputs."""
    names = list(given or [])
    names = names[:count + len(kwarg_names)]  # PyTorch's ignores names beyond the inputs too
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    for i in range(len(names), count):
        names.append(params[i].name if i < len(params) else f"input_{i}")
    return names + kwarg_names[max(0, len(names) - count):]


def _output_names(count, given):
    names = list(given or [])
    if len(names) > count:
        raise RuntimeError(f"number of output names provided ({len(names)}) exceeded number of outputs ({count})")
    return names + [f"output_{i}" for i in range(len(names), count)]


def _reserve(b, names):
    seen = set()
    for name in names:
        if not isinstance(name, str) or not name:
            raise TypeError(f"ember.onnx.export: input and output names must be non-empty strings, got {name!r}")
        if name in seen:
            raise ValueError(f"ember.onnx.export: the name '{name}' is given to more than one input or output")
        seen.add(name)
        b.used.add(name)


def _check_dynamic_axes(dynamic_axes, ranks):
    """{name: {axis: dim_param}} from PyTorch's forms ({axis: name} or [axes], whose names are generated)."""
    out = {}
    for key, axes in (dynamic_axes or {}).items():
        if key not in ranks:  # PyTorch warns and goes on
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name")
            continue
        if isinstance(axes, dict):
            spec = dict(axes)
        elif isinstance(axes, (list, tuple)):
            spec = {a: f"{key}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}
        else:
            raise TypeError(f"ember.onnx.export: dynamic_axes['{key}'] must be a dict or a list of axes, got "
                            f"{type(axes).__name__}")
        for axis, name in spec.items():
            if not isinstance(axis, int):
                raise TypeError(f"ember.onnx.export: dynamic_axes['{key}'] keys must be ints, got {axis!r}")
            if not -ranks[key] <= axis < ranks[key]:
                raise RuntimeError(f"Dynamic shape axis should be no more than the shape dimension for {name}")
        out[key] = {a % ranks[key]: str(n) for a, n in spec.items()}
    return out


def _value_info(b, name, value, dims):
    shape = [dims.get(i, s) for i, s in enumerate(value.shape)]
    return b.helper.make_tensor_value_info(name, b.elem_type(value.dtype), shape)


def _output_dims(value, named, any_dynamic):
    """An output's declared dims: its named dynamic axes; when any axis of the model is dynamic, the others
    are left unknown (they may follow a dynamic input), else the traced sizes."""
    if not any_dynamic:
        return named
    return {i: named.get(i) for i in range(len(value.shape))}


class TrainingMode(enum.IntEnum):
    """torch.onnx.TrainingMode: the mode the model is exported in."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def _check_training(model, training):
    """Only eval-mode graphs are written (dropout as identity, batch norm on running statistics)."""
    if training is None or training == TrainingMode.EVAL:
        return
    if training == TrainingMode.PRESERVE and not any(m.training for m in model.modules()):
        return
    raise OnnxExporterError(f"ember.onnx.export writes eval-mode graphs only; training={training!r} (with the model "
                            "in training mode) is not supported: use TrainingMode.EVAL")


def _validate(model, args, opset_version, kwargs):
    if not isinstance(model, ember.nn.Module):
        raise TypeError(f"ember.onnx.export: model must be an ember.nn.Module, got {type(model).__name__}")
    if isinstance(args, ember.Tensor):
        args = (args,)
    if not isinstance(args, tuple):
        raise TypeError(f"ember.onnx.export: args must be a tuple of example inputs, got {type(args).__name__}")
    if args and isinstance(args[-1], dict):  # PyTorch's legacy form: keyword inputs last in args
        kwargs, args = {**args[-1], **(kwargs or {})}, args[:-1]
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if isinstance(opset, bool) or not isinstance(opset, int):
        raise TypeError(f"ember.onnx.export: opset_version must be an int, got {type(opset).__name__}")
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise RuntimeError(f"Unsupported onnx_opset_version: {opset} (ember.onnx.export writes opsets {MIN_OPSET} to "
                           f"{MAX_OPSET})")
    return args, kwargs or {}, opset


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamic_axes=None, export_params=True, keep_initializers_as_inputs=False,
           do_constant_folding=True, training=None, dynamo=False):
    """Exports model, traced on the example inputs args (a tuple, or one tensor), as an ONNX model to f (a
    path or a binary file object; None returns the onnx.ModelProto). Parameters and buffers become
    initializers (graph inputs instead when export_params=False; both with keep_initializers_as_inputs).
    dynamic_axes, as PyTorch's, names the axes of inputs and outputs whose size may change. Calls made while
    tracing that depend only on constants are computed then (do_constant_folding is always in effect);
    dynamo is accepted for PyTorch's signature (ember always traces)."""
    _check_training(model, training)
    args, kwargs, opset = _validate(model, args, opset_version, kwargs)
    onnx = _import_onnx()
    param_names = {id(t): n for n, t in list(model.named_parameters()) + list(model.named_buffers())}
    with _eval_mode(model):
        graph, kwarg_names = trace(model, args, kwargs)
    b = GraphBuilder(onnx, opset, param_names, export_params, keep_initializers_as_inputs)
    in_names = _input_names(model, len(args), kwarg_names, input_names)
    outputs = _flatten_values(graph.outputs)
    out_names = _output_names(len(outputs), output_names)
    _reserve(b, in_names + out_names)  # before any node is named, so no node takes a requested name
    for value, name in zip(graph.inputs, in_names):
        b.bind(value, name)
    ranks = {n: len(v.shape) for n, v in zip(in_names + out_names, graph.inputs + outputs)}
    dims = _check_dynamic_axes(dynamic_axes, ranks)
    _write_nodes(b, graph)
    for value, name in zip(outputs, out_names):
        b.nodes.append(b.helper.make_node("Identity", [b.name(value)], [name], name=b.fresh("output_node")))
    proto_graph = b.helper.make_graph(
        b.nodes, "main_graph",
        [_value_info(b, n, v, dims.get(n, {})) for n, v in zip(in_names, graph.inputs)] + b.extra_inputs,
        [_value_info(b, n, v, _output_dims(v, dims.get(n, {}), bool(dims))) for n, v in zip(out_names, outputs)],
        b.initializers)
    proto = b.helper.make_model(proto_graph, opset_imports=[b.helper.make_opsetid("", opset)],
                                producer_name="ember", producer_version=ember.__version__)
    proto.ir_version = min(onnx.IR_VERSION, 8 if opset < 19 else 9 if opset < 21 else 10)
    if verbose:
        print(b.helper.printable_graph(proto.graph))
    if f is None:
        return proto
    if isinstance(f, (str, os.PathLike)):
        onnx.save_model(proto, os.fspath(f))
    else:
        f.write(proto.SerializeToString())
    return None
