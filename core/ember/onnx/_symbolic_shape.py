"""ONNX mappings of the shape ops: reshape/view/flatten, permute/transpose, (un)squeeze, cat/stack,
split/chunk and basic indexing.

Sizes read from a tensor while tracing (x.size(0)) are plain numbers in the trace. So that a dynamic axis
keeps working, a target size equal to the input's size at the same position is written as 0, which
ONNX Reshape reads as "copy this dimension from the input"."""
from __future__ import annotations

import numpy as np

from ._registry import bind_args, register, unsupported_option
from ._trace import Value

_INT64_MAX = 2 ** 63 - 1


def _shape_args(node):
    rest = list(node.args[1:])
    if "shape" in node.kwargs or "size" in node.kwargs:
        rest = [node.kwargs.get("shape", node.kwargs.get("size"))]
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
        rest = list(rest[0])
    if not all(isinstance(s, int) for s in rest):
        raise unsupported_option(node.op, "a shape that is not a list of ints (a dtype view)")
    return rest


def _reshape(b, x, target):
    in_shape = x.shape
    if any(t == 0 for t in target):  # a zero-size dimension: ONNX must not read 0 as "copy"
        return b.add("Reshape", [b.name(x), b.ints(target, "shape")], allowzero=1)
    spec = [0 if i < len(in_shape) and t == in_shape[i] else t for i, t in enumerate(target)]
    return b.add("Reshape", [b.name(x), b.ints(spec, "shape")])


@register("view", "reshape")
def reshape(b, node):
    return _reshape(b, node.args[0], _shape_args(node))


@register("view_as", "reshape_as")
def reshape_as(b, node):
    return _reshape(b, node.args[0], list(node.args[1].shape))


@register("flatten")
def flatten(b, node):
    a = bind_args(node, ["input", "start_dim", "end_dim"], {"start_dim": 0, "end_dim": -1})
    x = a["input"]
    rank = len(x.shape)
    if rank == 0:
        return _reshape(b, x, [1])
    start, end = a["start_dim"] % rank, a["end_dim"] % rank
    if start == 1 and end == rank - 1:
        return b.add("Flatten", [b.name(x)], axis=1)
    target = list(x.shape[:start]) + [-1] + list(x.shape[end + 1:])
    return _reshape(b, x, target)


@register("permute")
def permute(b, node):
    dims = _shape_args(node) if "dims" not in node.kwargs else list(node.kwargs["dims"])
    rank = len(node.args[0].shape)
    return b.add("Transpose", [b.name(node.args[0])], perm=[d % rank for d in dims])


@register("transpose", "swapaxes", "swapdims")
def transpose(b, node):
    a = bind_args(node, ["input", "dim0", "dim1"])
    rank = len(a["input"].shape)
    perm = list(range(rank))
    d0, d1 = a["dim0"] % rank, a["dim1"] % rank
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return b.add("Transpose", [b.name(a["input"])], perm=perm)


@register("t")
def t(b, node):
    x = node.args[0]
    return b.add("Transpose", [b.name(x)], perm=[1, 0]) if len(x.shape) == 2 else b.add("Identity", [b.name(x)])


@register("unsqueeze")
def unsqueeze(b, node):
    a = bind_args(node, ["input", "dim"])
    rank = len(a["input"].shape) + 1
    return b.add("Unsqueeze", [b.name(a["input"]), b.ints([a["dim"] % rank], "axes")])


@register("squeeze")
def squeeze(b, node):
    a = bind_args(node, ["input", "dim"], {"dim": None})
    x = a["input"]
    rank = max(len(x.shape), 1)
    dims = a["dim"]
    if dims is None:
        dims = [i for i, s in enumerate(x.shape) if s == 1]
    dims = [d % rank for d in ((dims,) if isinstance(dims, int) else dims) if x.shape and x.shape[d % rank] == 1]
    if not dims:
        return b.add("Identity", [b.name(x)])
    return b.add("Squeeze", [b.name(x), b.ints(dims, "axes")])


def _tensors_and_dim(node):
    a = bind_args(node, ["tensors", "dim"], {"dim": 0})
    return list(a["tensors"]), a["dim"]


@register("cat", "concat", "concatenate")
def cat(b, node):
    tensors, dim = _tensors_and_dim(node)
    dt = node.outputs.dtype
    tensors = [x for x in tensors if not (len(x.shape) == 1 and x.shape[0] == 0)]  # PyTorch skips empty 1-D
    rank = len(node.outputs.shape)
    return b.add("Concat", [b.operand(x, dt) for x in tensors], axis=dim % rank)


@register("stack")
def stack(b, node):
    tensors, dim = _tensors_and_dim(node)
    rank = len(node.outputs.shape)
    axes = b.ints([dim % rank], "axes")
    dt = node.outputs.dtype
    return b.add("Concat", [b.add("Unsqueeze", [b.operand(x, dt), axes]) for x in tensors], axis=dim % rank)


def _split(b, x, sizes, dim):
    out = b.add("Split", [b.name(x), b.ints(sizes, "split")], outputs=len(sizes), axis=dim)
    return tuple(out) if len(sizes) > 1 else (out,)


@register("split", "split_with_sizes")
def split(b, node):
    x = node.args[0] if node.args else node.kwargs["tensor"]
    dim = node.kwargs.get("dim", node.args[2] if len(node.args) > 2 else 0) % len(x.shape)
    return _split(b, x, [o.shape[dim] for o in node.outputs], dim)


@register("chunk", "tensor_split", "unbind")
def chunk(b, node):
    x = node.args[0]
    rank = len(x.shape)
    dim = node.kwargs.get("dim", node.args[2] if len(node.args) > 2 else 0) % rank
    if node.op == "unbind":
        dim = node.kwargs.get("dim", node.args[1] if len(node.args) > 1 else 0) % rank
        parts = _split(b, x, [1] * x.shape[dim], dim)
        axes = b.ints([dim], "axes")
        return tuple(b.add("Squeeze", [p, axes]) for p in parts)
    return _split(b, x, [o.shape[dim] for o in node.outputs], dim)


@register("__getitem__")
def getitem(b, node):
    x, index = node.args[0], node.args[1]
    items = list(index) if isinstance(index, tuple) else [index]
    if sum(1 for i in items if isinstance(i, Value) or hasattr(i, "numpy")) > 1:
        raise unsupported_option("index", "more than one tensor index")
    rank = len(x.shape)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        used = sum(1 for i in items if i is not None and i is not Ellipsis)
        items[at:at + 1] = [slice(None)] * (rank - used)
    name, axis = b.name(x), 0
    for item in items:
        if item is None:
            name = b.add("Unsqueeze", [name, b.ints([axis], "axes")])
            axis += 1
        elif isinstance(item, bool):
            raise unsupported_option("index", "a bool index")
        elif isinstance(item, int):
            name = b.add("Gather", [name, b.tensor(np.asarray(item, np.int64), "index")], axis=axis)
        elif isinstance(item, slice):
            if item != slice(None):
                start = 0 if item.start is None else item.start
                stop = _INT64_MAX if item.stop is None else item.stop
                step = 1 if item.step is None else item.step
                name = b.add("Slice", [name, b.ints([start], "starts"), b.ints([stop], "ends"), b.ints([axis], "axes"),
                                       b.ints([step], "steps")])
            axis += 1
        else:  # one integer tensor: the indexed dimension becomes the index's dimensions
            if str(item.dtype) == "ember.bool":
                raise unsupported_option("index", "a bool mask index")
            name = b.add("Gather", [name, b.name(item)], axis=axis)
            axis += len(item.shape)
    return name if name != b.name(x) else b.add("Identity", [name])
