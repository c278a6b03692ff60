"""The table from a traced op name to the function that writes its ONNX nodes, and argument helpers."""
from __future__ import annotations

from .errors import OnnxExporterError

__all__ = ["SYMBOLICS", "register", "bind_args", "unsupported_option"]

# op name -> fn(builder, node) returning the ONNX name(s) of node.outputs, in the same structure
SYMBOLICS: dict = {}


def register(*names):
    def deco(fn):
        for n in names:
            SYMBOLICS[n] = fn
        return fn
    return deco


def bind_args(node, names, defaults=None):
    """{parameter: value} of node's call for the parameter names in order (positional then keyword)."""
    out = dict(defaults or {})
    args = list(node.args)
    if len(args) > len(names):
        raise OnnxExporterError(f"ONNX export of '{node.op}': {len(args)} positional arguments, expected at most "
                                f"{len(names)}")
    out.update(zip(names, args))
    for k, v in node.kwargs.items():
        if k not in names:
            raise OnnxExporterError(f"ONNX export of '{node.op}': unexpected argument '{k}'")
        out[k] = v
    missing = [n for n in names if n not in out]
    if missing:
        raise OnnxExporterError(f"ONNX export of '{node.op}': missing argument '{missing[0]}'")
    return out


def unsupported_option(op, what):
    return OnnxExporterError(f"Exporting the operator 'aten::{op}' to ONNX is not supported with {what}")
