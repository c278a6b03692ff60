"""with_flops: the floating-point operations of an op call from its recorded input shapes and values,
counted as PyTorch's profiler counts them (a multiply-add is 2; elementwise add/mul 1 per element)."""
from __future__ import annotations

import ast
import math


def _prod(xs):
    return math.prod(xs) if xs else 1


def _ints(text, n, default):
    """An int-list argument as recorded ("[1, 1]" or "1"), spread to n entries."""
    if not text:
        return [default] * n
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return [default] * n
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    return v * n if len(v) == 1 else v


def _conv(shapes, concrete):
    """conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups) or
    convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)."""
    x, w = shapes[0], shapes[1]
    if len(x) < 3 or len(w) < 3:
        return 0
    nsp = len(w) - 2
    stride = _ints(concrete[3] if len(concrete) > 3 else "", nsp, 1)
    padding_text = concrete[4] if len(concrete) > 4 else ""
    dilation = _ints(concrete[5] if len(concrete) > 5 else "", nsp, 1)
    spatial = x[-nsp:]
    if padding_text.strip("'\"") == "same":
        out = list(spatial)
    else:
        pad = [0] * nsp if padding_text.strip("'\"") == "valid" else _ints(padding_text, nsp, 0)
        out = [(spatial[i] + 2 * pad[i] - dilation[i] * (w[2 + i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
    batch = x[0] if len(x) == nsp + 2 else 1
    return 2 * batch * _prod(out) * _prod(w[2:]) * w[1] * w[0]  # w[1] is in_channels / groups already


def flops_of(name, shapes, concrete):
    op = name.split("::")[-1]
    try:
        if op in ("mm", "addmm", "matmul", "bmm", "baddbmm") or op == "linear":
            if op == "addmm" or op == "baddbmm":
                shapes = shapes[1:]
            a, b = shapes[0], shapes[1]
            if op == "linear":  # x @ w.T: w is (out, in)
                return 2 * _prod(a) * b[0] if len(b) == 2 else 0
            if len(a) < 2 or len(b) < 2:
                return 2 * _prod(a) * (b[-1] if len(b) == 2 else 1) if a and b else 0
            batch = _prod(a[:-2]) if len(a) > 2 else _prod(b[:-2])
            return 2 * batch * a[-2] * a[-1] * b[-1]
        if op in ("conv1d", "conv2d", "conv3d"):
            return _conv(shapes, concrete)
        if op == "convolution":  # transposed ones are not counted (nor are they by PyTorch)
            return 0 if concrete[6] == "True" else _conv(shapes, concrete)
        if op in ("add", "mul", "add_", "mul_"):
            return _prod(shapes[0]) if shapes and shapes[0] else 0
    except (IndexError, TypeError, ValueError):
        return 0
    return 0
