"""ONNX mappings of the nn.functional calls the core modules make: linear, convolutions, normalization,
pooling, activations, dropout (eval) and embedding."""
from __future__ import annotations

import math

import numpy as np

from ._builder import numpy_dtype
from ._registry import bind_args, register, unsupported_option


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _bias_or_empty(b, bias):
    return b.name(bias) if bias is not None else ""


@register("linear")
def linear(b, node):
    a = bind_args(node, ["input", "weight", "bias"], {"bias": None})
    x, w, bias = a["input"], a["weight"], a["bias"]
    if len(x.shape) == 2 and len(w.shape) == 2:
        inputs = [b.name(x), b.name(w)] + ([b.name(bias)] if bias is not None else [])
        return b.add("Gemm", inputs, transB=1)
    wt = b.add("Transpose", [b.name(w)], perm=[1, 0]) if len(w.shape) == 2 else b.name(w)
    out = b.add("MatMul", [b.name(x), wt])
    return out if bias is None else b.add("Add", [out, b.name(bias)])


def _conv_pads(padding, kernel, dilation, dims):
    if padding == "valid":
        return [0] * (2 * dims)
    if padding == "same":
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [t // 2 for t in total] + [t - t // 2 for t in total]
    p = list(_tuple(padding, dims))
    return p + p


def _conv(b, node, dims):
    a = bind_args(node, ["input", "weight", "bias", "stride", "padding", "dilation", "groups"],
                  {"bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1})
    kernel = list(a["weight"].shape[2:])
    dilation = list(_tuple(a["dilation"], dims))
    return b.add("Conv", [b.name(a["input"]), b.name(a["weight"]), _bias_or_empty(b, a["bias"])],
                 kernel_shape=kernel, strides=list(_tuple(a["stride"], dims)), dilations=dilation,
                 pads=_conv_pads(a["padding"], kernel, dilation, dims), group=int(a["groups"]))


@register("conv1d")
def conv1d(b, node):
    return _conv(b, node, 1)


@register("conv2d")
def conv2d(b, node):
    return _conv(b, node, 2)


@register("conv_transpose1d", "conv_transpose2d")
def conv_transpose(b, node):
    dims = 1 if node.op == "conv_transpose1d" else 2
    a = bind_args(node, ["input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation"],
                  {"bias": None, "stride": 1, "padding": 0, "output_padding": 0, "groups": 1, "dilation": 1})
    pads = list(_tuple(a["padding"], dims))
    return b.add("ConvTranspose", [b.name(a["input"]), b.name(a["weight"]), _bias_or_empty(b, a["bias"])],
                 kernel_shape=list(a["weight"].shape[2:]), strides=list(_tuple(a["stride"], dims)),
                 dilations=list(_tuple(a["dilation"], dims)), pads=pads + pads,
                 output_padding=list(_tuple(a["output_padding"], dims)), group=int(a["groups"]))


@register("batch_norm")
def batch_norm(b, node):
    a = bind_args(node, ["input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps"],
                  {"weight": None, "bias": None, "training": False, "momentum": 0.1, "eps": 1e-5})
    if a["training"] or a["running_mean"] is None:
        raise unsupported_option("batch_norm", "batch statistics (training mode or track_running_stats=False)")
    channels, dt = a["input"].shape[1], numpy_dtype(a["input"].dtype)
    scale = b.name(a["weight"]) if a["weight"] is not None else b.tensor(np.ones(channels, dt), "bn_scale")
    bias = b.name(a["bias"]) if a["bias"] is not None else b.tensor(np.zeros(channels, dt), "bn_bias")
    return b.add("BatchNormalization", [b.name(a["input"]), scale, bias, b.name(a["running_mean"]),
                                        b.name(a["running_var"])], epsilon=float(a["eps"]))


@register("layer_norm")
def layer_norm(b, node):
    a = bind_args(node, ["input", "normalized_shape", "weight", "bias", "eps"],
                  {"weight": None, "bias": None, "eps": 1e-5})
    shape = list(_tuple(a["normalized_shape"], 1))
    dt = numpy_dtype(a["input"].dtype)
    scale = b.name(a["weight"]) if a["weight"] is not None else b.tensor(np.ones(shape, dt), "ln_scale")
    inputs = [b.name(a["input"]), scale] + ([b.name(a["bias"])] if a["bias"] is not None else [])
    return b.add("LayerNormalization", inputs, axis=-len(shape), epsilon=float(a["eps"]))


def _pool_common(a, dims):
    kernel = list(_tuple(a["kernel_size"], dims))
    stride = a["stride"]
    stride = kernel if stride is None or stride == [] or stride == () else list(_tuple(stride, dims))
    pads = list(_tuple(a["padding"], dims))
    return kernel, stride, pads + pads


@register("max_pool1d", "max_pool2d")
def max_pool(b, node):
    dims = 1 if node.op == "max_pool1d" else 2
    a = bind_args(node, ["input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"],
                  {"stride": None, "padding": 0, "dilation": 1, "ceil_mode": False, "return_indices": False})
    if a["return_indices"]:
        raise unsupported_option(node.op, "return_indices=True")
    kernel, stride, pads = _pool_common(a, dims)
    return b.add("MaxPool", [b.name(a["input"])], kernel_shape=kernel, strides=stride, pads=pads,
                 dilations=list(_tuple(a["dilation"], dims)), ceil_mode=int(bool(a["ceil_mode"])))


@register("avg_pool1d", "avg_pool2d")
def avg_pool(b, node):
    dims = 1 if node.op == "avg_pool1d" else 2
    names = ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]
    if dims == 2:
        names.append("divisor_override")
    a = bind_args(node, names, {"stride": None, "padding": 0, "ceil_mode": False, "count_include_pad": True,
                                "divisor_override": None})
    if a.get("divisor_override") is not None:
        raise unsupported_option(node.op, "divisor_override")
    kernel, stride, pads = _pool_common(a, dims)
    return b.add("AveragePool", [b.name(a["input"])], kernel_shape=kernel, strides=stride, pads=pads,
                 ceil_mode=int(bool(a["ceil_mode"])), count_include_pad=int(bool(a["count_include_pad"])))


@register("adaptive_avg_pool1d", "adaptive_avg_pool2d")
def adaptive_avg_pool(b, node):
    a = bind_args(node, ["input", "output_size"])
    dims = 1 if node.op == "adaptive_avg_pool1d" else 2
    spatial = list(a["input"].shape[-dims:])
    out = [s if o is None else o for o, s in zip(_tuple(a["output_size"], dims), spatial)]
    if all(o == 1 for o in out):
        return b.add("GlobalAveragePool", [b.name(a["input"])])
    if any(s % o for s, o in zip(spatial, out)):  # uneven windows have no single ONNX pooling op
        raise unsupported_option(node.op, f"an output size {out} that does not divide the input size {spatial}")
    kernel = [s // o for s, o in zip(spatial, out)]
    return b.add("AveragePool", [b.name(a["input"])], kernel_shape=kernel, strides=kernel)


def _unary(onnx_op):
    def fn(b, node):
        return b.add(onnx_op, [b.name(node.args[0] if node.args else node.kwargs["input"])])
    return fn


for _name, _op in (("relu", "Relu"), ("relu_", "Relu"), ("sigmoid", "Sigmoid"), ("tanh", "Tanh"), ("exp", "Exp"),
                   ("log", "Log"), ("sqrt", "Sqrt"), ("abs", "Abs"), ("neg", "Neg"), ("__neg__", "Neg"),
                   ("erf", "Erf"), ("sin", "Sin"), ("cos", "Cos"), ("floor", "Floor"), ("ceil", "Ceil"),
                   ("softplus", "Softplus"), ("reciprocal", "Reciprocal"), ("contiguous", "Identity"),
                   ("clone", "Identity"), ("detach", "Identity")):
    register(_name)(_unary(_op))


@register("rsqrt")
def rsqrt(b, node):
    return b.add("Reciprocal", [b.add("Sqrt", [b.name(node.args[0])])])


@register("silu")
def silu(b, node):
    x = b.name(node.args[0])
    return b.add("Mul", [x, b.add("Sigmoid", [x])])


@register("gelu")
def gelu(b, node):
    a = bind_args(node, ["input", "approximate"], {"approximate": "none"})
    x, dt = b.name(a["input"]), a["input"].dtype
    half = b.add("Mul", [x, b.scalar(0.5, dt)])
    if a["approximate"] == "tanh":
        cube = b.add("Mul", [b.add("Pow", [x, b.scalar(3.0, dt)]), b.scalar(0.044715, dt)])
        inner = b.add("Mul", [b.add("Add", [x, cube]), b.scalar(math.sqrt(2.0 / math.pi), dt)])
        gate = b.add("Tanh", [inner])
    else:
        gate = b.add("Erf", [b.add("Div", [x, b.scalar(math.sqrt(2.0), dt)])])
    return b.add("Mul", [half, b.add("Add", [gate, b.scalar(1.0, dt)])])


@register("leaky_relu")
def leaky_relu(b, node):
    a = bind_args(node, ["input", "negative_slope", "inplace"], {"negative_slope": 0.01, "inplace": False})
    return b.add("LeakyRelu", [b.name(a["input"])], alpha=float(a["negative_slope"]))


def _legacy_softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


@register("softmax", "log_softmax")
def softmax(b, node):
    a = bind_args(node, ["input", "dim", "_stacklevel", "dtype"], {"dim": None, "_stacklevel": 3, "dtype": None})
    x = a["input"]
    dim = _legacy_softmax_dim(len(x.shape)) if a["dim"] is None else a["dim"]
    name = b.name(x) if a["dtype"] is None else b.cast(b.name(x), x.dtype, a["dtype"])
    return b.add("Softmax" if node.op == "softmax" else "LogSoftmax", [name], axis=int(dim))


@register("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
def dropout(b, node):
    a = bind_args(node, ["input", "p", "training", "inplace"], {"p": 0.5, "training": True, "inplace": False})
    if a["training"] and a["p"] > 0:
        raise unsupported_option(node.op, "training=True (export runs the model in eval mode)")
    return b.add("Identity", [b.name(a["input"])])


@register("embedding")
def embedding(b, node):
    a = bind_args(node, ["input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"],
                  {"padding_idx": None, "max_norm": None, "norm_type": 2.0, "scale_grad_by_freq": False,
                   "sparse": False})
    if a["max_norm"] is not None:
        raise unsupported_option("embedding", "max_norm (it renormalizes the weight in place)")
    return b.add("Gather", [b.name(a["weight"]), b.name(a["input"])], axis=0)
