"""ONNX mappings of the remaining common ops: *_like factories (shaped at run time, so they follow dynamic
axes), expand/repeat, masked_fill, constant padding, argmax/argmin and a few activations."""
from __future__ import annotations

import numpy as np

from ._builder import numpy_dtype
from ._registry import bind_args, register, unsupported_option


@register("zeros_like", "ones_like", "full_like")
def like(b, node):
    x = node.args[0] if node.args else node.kwargs["input"]
    fill = {"zeros_like": 0, "ones_like": 1}.get(node.op)
    if fill is None:
        fill = node.args[1] if len(node.args) > 1 else node.kwargs["fill_value"]
    dt = node.outputs.dtype
    value = b.onnx.numpy_helper.from_array(np.asarray([fill], dtype=numpy_dtype(dt)), "value")
    return b.add("ConstantOfShape", [b.add("Shape", [b.name(x)])], value=value)


@register("expand")
def expand(b, node):
    x = node.args[0]
    sizes = list(node.args[1:]) if "size" not in node.kwargs else [node.kwargs["size"]]
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = list(sizes[0])
    # -1 keeps the input's size: ONNX Expand broadcasts, so 1 there does the same
    offset = len(sizes) - len(x.shape)
    target = [1 if s == -1 or (i >= offset and s == x.shape[i - offset]) else s for i, s in enumerate(sizes)]
    return b.add("Expand", [b.name(x), b.ints(target, "shape")])


@register("expand_as")
def expand_as(b, node):
    return b.add("Expand", [b.name(node.args[0]), b.add("Shape", [b.name(node.args[1])])])


@register("repeat")
def repeat(b, node):
    x = node.args[0]
    reps = list(node.args[1:])
    if len(reps) == 1 and isinstance(reps[0], (list, tuple)):
        reps = list(reps[0])
    name = b.name(x)
    if len(reps) > len(x.shape):  # leading new dims, as PyTorch adds them
        name = b.add("Reshape", [name, b.ints([1] * (len(reps) - len(x.shape)) + list(x.shape), "shape")])
    return b.add("Tile", [name, b.ints(reps, "repeats")])


@register("masked_fill", "masked_fill_")
def masked_fill(b, node):
    a = bind_args(node, ["input", "mask", "value"])
    dt = node.outputs.dtype
    return b.add("Where", [b.name(a["mask"]), b.operand(a["value"], dt), b.name(a["input"])])


@register("pad")
def pad(b, node):
    a = bind_args(node, ["input", "pad", "mode", "value"], {"mode": "constant", "value": None})
    if a["mode"] != "constant":
        raise unsupported_option("pad", f"mode={a['mode']!r}")
    x, widths = a["input"], list(a["pad"])
    rank = len(x.shape)
    # PyTorch lists (begin, end) pairs from the last dim backwards; ONNX all begins then all ends, in order
    begins, ends = [0] * rank, [0] * rank
    for i in range(len(widths) // 2):
        begins[rank - 1 - i], ends[rank - 1 - i] = widths[2 * i], widths[2 * i + 1]
    value = b.scalar(0 if a["value"] is None else a["value"], x.dtype)
    return b.add("Pad", [b.name(x), b.ints(begins + ends, "pads"), value], mode="constant")


@register("argmax", "argmin")
def argmax(b, node):
    a = bind_args(node, ["input", "dim", "keepdim"], {"dim": None, "keepdim": False})
    name = b.name(a["input"])
    dim = a["dim"]
    if dim is None:  # over the flattened tensor
        name, dim = b.add("Reshape", [name, b.ints([-1], "shape")]), 0
    return b.add("ArgMax" if node.op == "argmax" else "ArgMin", [name], axis=int(dim),
                 keepdims=int(bool(a["keepdim"])))


@register("elu")
def elu(b, node):
    a = bind_args(node, ["input", "alpha", "inplace"], {"alpha": 1.0, "inplace": False})
    return b.add("Elu", [b.name(a["input"])], alpha=float(a["alpha"]))


@register("hardtanh", "relu6")
def hardtanh(b, node):
    lo, hi = (0.0, 6.0) if node.op == "relu6" else (-1.0, 1.0)
    a = bind_args(node, ["input", "min_val", "max_val", "inplace"] if node.op == "hardtanh" else ["input", "inplace"],
                  {"min_val": lo, "max_val": hi, "inplace": False})
    x = a["input"]
    return b.add("Clip", [b.name(x), b.scalar(a["min_val"], x.dtype), b.scalar(a["max_val"], x.dtype)])


@register("max", "min")
def max_min(b, node):
    """max(x) over all elements, max(x, dim) as (values, indices), max(x, other) elementwise."""
    x = node.args[0]
    rest = list(node.args[1:])
    dim = node.kwargs.get("dim", rest[0] if rest and isinstance(rest[0], int) else None)
    other = node.kwargs.get("other", rest[0] if rest and not isinstance(rest[0], int) else None)
    keep = int(bool(node.kwargs.get("keepdim", rest[1] if len(rest) > 1 else False)))
    reduce, arg = ("ReduceMax", "ArgMax") if node.op == "max" else ("ReduceMin", "ArgMin")
    if other is not None:
        dt = node.outputs.dtype
        return b.add("Max" if node.op == "max" else "Min", [b.operand(x, dt), b.operand(other, dt)])
    if dim is None:
        axes = list(range(len(x.shape)))
        return _reduce(b, reduce, b.name(x), axes, 0)
    dim %= max(len(x.shape), 1)
    return (_reduce(b, reduce, b.name(x), [dim], keep), b.add(arg, [b.name(x)], axis=dim, keepdims=keep))


def _reduce(b, op, name, axes, keep):
    if b.opset >= 18:  # axes became an input in opset 18
        return b.add(op, [name, b.ints(axes, "axes")], keepdims=keep)
    return b.add(op, [name], axes=axes, keepdims=keep)
