"""ember.jit.trace and trace_module: run a function or module once on example inputs, record the ops it
calls (see _tracer) as a script graph, and return the same ScriptFunction / ScriptModule that script
returns; check_trace runs the trace again against the eager function."""
from __future__ import annotations

import inspect
import warnings

import ember

from . import _types as T
from ._script_function import ScriptFunction, optimize
from ._script_module import ScriptMethod, ScriptModule, TopLevelTracedModule
from ._script_module_tree import make
from ._tracer import _ACTIVE, Tracer, TracerWarning, TracingCheckError


def _as_tuple(example_inputs):
    if isinstance(example_inputs, ember.Tensor):
        return (example_inputs,)
    if isinstance(example_inputs, (tuple, list)) and all(isinstance(a, ember.Tensor) for a in example_inputs):
        return tuple(example_inputs)
    raise TypeError("ember.jit.trace: example_inputs must be a Tensor or a tuple of Tensors, got "
                    f"{type(example_inputs).__name__}")


def _param_names(fn, n: int) -> list[str]:
    try:
        names = [p for p in inspect.signature(fn).parameters if p != "self"]
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"input_{i}" for i in range(n)]


def _record(fn, inputs, owners=None, names=None):
    """(graph, return type, attribute inputs) of fn run on inputs."""
    from ember._C import _jit

    g = _jit.Graph()
    tracer = Tracer(g, owners)
    traced = [tracer.input(x, name) for x, name in zip(inputs, names or _param_names(fn, len(inputs)))]
    _ACTIVE.append(tracer)
    try:
        with ember.no_grad():
            result = fn(*traced)
    finally:
        _ACTIVE.pop()
    out = tracer.output(result)
    g.set_returns(g.top, [out.id])
    optimize(g)
    return g, out.type, tracer.attr_inputs


def _compare_outputs(traced_out, eager_out, tol: float) -> None:
    def flat(o):
        if isinstance(o, (tuple, list)):
            return [x for item in o for x in flat(item)]
        return [o]
    for i, (a, b) in enumerate(zip(flat(traced_out), flat(eager_out))):
        if isinstance(a, ember.Tensor) and isinstance(b, ember.Tensor):
            same = a.shape == b.shape and a.dtype == b.dtype and bool(ember.allclose(
                a.detach().double(), b.detach().double(), rtol=tol, atol=tol, equal_nan=True))
        else:
            same = a == b
        if not same:
            warnings.warn(f"Output nr {i + 1}. of the traced function does not match the corresponding output of the "
                          "Python function. Detailed error:\nThe values are not close (rtol and atol "
                          f"{tol}).", TracerWarning, stacklevel=4)


def _check(traced, fn, graph_text, retrace, example, check_inputs, tol):
    """check_trace: the trace run on each check input agrees with fn, and tracing again records the same
    graph (a different one means the function's control flow depends on its inputs)."""
    for inputs in [example] + [_as_tuple(c) for c in (check_inputs or [])]:
        if inputs is not example:
            other = str(retrace(inputs))
            if other != graph_text:
                raise TracingCheckError(f"First diverging graph:\n{graph_text}\nThe other graph:\n{other}", None)
        with ember.no_grad():
            _compare_outputs(traced(*inputs), fn(*inputs), tol)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """Traces a function (a ScriptFunction) or an nn.Module's forward (a ScriptModule) on example_inputs."""
    if isinstance(func, (ScriptFunction, ScriptModule)):
        warnings.warn("The input to trace is already a ScriptModule, tracing it is a no-op. Returning the object "
                      "as is.", stacklevel=2)
        return func
    if example_kwarg_inputs is not None:
        raise NotImplementedError("ember.jit.trace: example_kwarg_inputs is not supported; pass example_inputs")
    if isinstance(func, ember.nn.Module):
        return trace_module(func, {"forward": example_inputs}, None, check_trace, check_inputs and
                            [{"forward": c} for c in check_inputs], check_tolerance, strict)
    if not callable(func):
        raise TypeError(f"ember.jit.trace: expected a function or an nn.Module, got {type(func).__name__}")
    example = _as_tuple(example_inputs)
    g, ret_type, _ = _record(func, example)
    traced = ScriptFunction(func, g, [T.TENSOR] * len(example), ret_type)
    traced._traced = True
    if check_trace:
        _check(traced, func, str(g), lambda ins: _record(func, ins)[0], example, check_inputs, check_tolerance)
    return traced


def _owners(module) -> dict[int, tuple[object, str]]:
    out = {}
    for m in module.modules():
        for name, t in list(m._parameters.items()) + list(m._buffers.items()):
            if t is not None:
                out.setdefault(id(t), (m, name))
    return out


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5, strict=True,
                 _force_outplace=False, _module_class=None, _compilation_unit=None, example_inputs_is_kwarg=False,
                 _store_inputs=True):
    """Traces mod's forward on inputs["forward"] (and each other method named in inputs on its inputs) into a
    ScriptModule; parameters and buffers stay inputs the
    module is read for at each call (so training it further, or load_state_dict, changes the traced one)."""
    if not isinstance(mod, ember.nn.Module):
        raise AttributeError("expected ember.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    if "forward" not in inputs:
        raise NotImplementedError("ember.jit.trace_module: inputs must include 'forward' (the module's other "
                                  f"methods are traced beside it), got {list(inputs)}")
    unknown = [name for name in inputs if not callable(getattr(type(mod), name, None))]
    if unknown:
        raise AttributeError(f"ember.jit.trace_module: {type(mod).__name__} has no method {unknown[0]!r}")

    def record(name, ins):
        fn = mod if name == "forward" else getattr(mod, name)  # forward through __call__, as eager runs it
        return _record(fn, ins, _owners(mod), _param_names(getattr(mod, name), len(ins)))

    traced, methods = None, {}
    for name, example_inputs in inputs.items():
        example = _as_tuple(example_inputs)
        g, ret_type, attr_inputs = record(name, example)
        names = _param_names(getattr(mod, name), len(example))  # a bound method: without self
        sig = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
        if name == "forward":
            traced = compiled = make(TopLevelTracedModule, mod, origin="trace", _g=g, _attr_inputs=attr_inputs,
                                     _sig=sig, return_type=ret_type, _methods=methods)
        else:
            compiled = methods[name] = ScriptMethod(mod, name, g, attr_inputs, sig, ret_type)
        if check_trace:
            checks = [c[name] for c in check_inputs] if check_inputs else None
            _check(compiled, mod if name == "forward" else getattr(mod, name), str(g),
                   lambda ins, name=name: record(name, ins)[0], example, checks, check_tolerance)
    traced.__dict__["_traced"] = True
    return traced
