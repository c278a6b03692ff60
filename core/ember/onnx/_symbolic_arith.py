"""ONNX mappings of elementwise arithmetic (with broadcasting and PyTorch's type promotion: every operand is
cast to the traced result's dtype), matrix products, casts and reductions."""
from __future__ import annotations

from ._registry import bind_args, register, unsupported_option
from ._trace import Value


def _dtype_of_output(node):
    return node.outputs.dtype


def _binary(onnx_op, reflected=False):
    def fn(b, node):
        x, y = node.args[0], node.args[1] if len(node.args) > 1 else node.kwargs["other"]
        if reflected:
            x, y = y, x
        alpha = node.kwargs.get("alpha", 1)
        dt = _dtype_of_output(node)
        if onnx_op == "Div" and node.kwargs.get("rounding_mode") is not None:
            raise unsupported_option(node.op, f"rounding_mode={node.kwargs['rounding_mode']!r}")
        ys = b.operand(y, dt)
        if alpha != 1:
            ys = b.add("Mul", [ys, b.scalar(alpha, dt)])
        return b.add(onnx_op, [b.operand(x, dt), ys])
    return fn


for _names, _op in ((("add", "__add__", "__iadd__", "add_"), "Add"), (("sub", "__sub__", "__isub__", "sub_"), "Sub"),
                    (("mul", "__mul__", "__imul__", "mul_"), "Mul"),
                    (("div", "__truediv__", "__itruediv__", "div_", "true_divide"), "Div"),
                    (("pow", "__pow__"), "Pow"), (("maximum",), "Max"), (("minimum",), "Min")):
    register(*_names)(_binary(_op))
for _names, _op in ((("__radd__",), "Add"), (("__rsub__", "rsub"), "Sub"), (("__rmul__",), "Mul"),
                    (("__rtruediv__",), "Div"), (("__rpow__",), "Pow")):
    register(*_names)(_binary(_op, reflected=True))


def _comparison(onnx_op):
    def fn(b, node):
        x, y = node.args[0], node.args[1] if len(node.args) > 1 else node.kwargs["other"]
        tensor = x if isinstance(x, Value) else y
        dt = tensor.dtype
        return b.add(onnx_op, [b.operand(x, dt), b.operand(y, dt)])
    return fn


for _names, _op in ((("eq", "__eq__"), "Equal"), (("gt", "__gt__"), "Greater"), (("lt", "__lt__"), "Less"),
                    (("ge", "__ge__"), "GreaterOrEqual"), (("le", "__le__"), "LessOrEqual")):
    register(*_names)(_comparison(_op))


@register("matmul", "__matmul__", "mm", "bmm")
def matmul(b, node):
    x, y = node.args[0], node.args[1] if len(node.args) > 1 else node.kwargs[next(iter(node.kwargs))]
    return b.add("MatMul", [b.name(x), b.name(y)])


@register("__rmatmul__")
def rmatmul(b, node):
    return b.add("MatMul", [b.name(node.args[1]), b.name(node.args[0])])


@register("clamp", "clip")
def clamp(b, node):
    a = bind_args(node, ["input", "min", "max"], {"min": None, "max": None})
    dt = a["input"].dtype
    lo = b.operand(a["min"], dt) if a["min"] is not None else ""
    hi = b.operand(a["max"], dt) if a["max"] is not None else ""
    return b.add("Clip", [b.name(a["input"]), lo, hi])


@register("where")
def where(b, node):
    a = bind_args(node, ["condition", "input", "other"])
    dt = _dtype_of_output(node)
    return b.add("Where", [b.name(a["condition"]), b.operand(a["input"], dt), b.operand(a["other"], dt)])


@register("float", "double", "half", "long", "int", "bool", "to", "_to_copy", "type_as")
def cast(b, node):
    x = node.args[0]
    return b.cast(b.name(x), x.dtype, _dtype_of_output(node))


_REDUCE = {"mean": "ReduceMean", "sum": "ReduceSum", "amax": "ReduceMax", "amin": "ReduceMin", "prod": "ReduceProd"}


@register(*_REDUCE)
def reduce(b, node):
    a = bind_args(node, ["input", "dim", "keepdim", "dtype"], {"dim": None, "keepdim": False, "dtype": None})
    if node.op == "prod" and isinstance(a["dim"], (list, tuple)):
        raise unsupported_option("prod", "a list of dims")
    x, rank = a["input"], len(a["input"].shape)
    dims = a["dim"]
    if dims is None or dims == [] or dims == ():
        dims = list(range(rank))
    dims = [d % max(rank, 1) for d in ((dims,) if isinstance(dims, int) else dims)]
    name = b.name(x) if a["dtype"] is None else b.cast(b.name(x), x.dtype, a["dtype"])
    out_dt = _dtype_of_output(node)
    if node.op == "sum" and a["dtype"] is None:  # sum promotes integers and bools to int64
        name = b.cast(name, x.dtype, out_dt)
    op = _REDUCE[node.op]
    keep = int(bool(a["keepdim"]))
    # ReduceSum takes its axes as an input since opset 13, the other reductions since opset 18
    if op == "ReduceSum" or b.opset >= 18:
        return b.add(op, [name, b.ints(dims, "axes")], keepdims=keep)
    return b.add(op, [name], axes=dims, keepdims=keep)
