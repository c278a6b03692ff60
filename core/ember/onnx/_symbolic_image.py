"""ONNX mappings for image models beyond the basic CNN: group and instance normalization, pixel (un)shuffle
(super-resolution) and interpolate (Resize)."""
from __future__ import annotations

import numpy as np

from ._builder import numpy_dtype
from ._registry import bind_args, register, unsupported_option


def _affine(b, name, weight, bias, rank):
    """name * weight + bias with weight/bias (C,) broadcast over the dims after the channels."""
    trailing = [1] * (rank - 2)
    if weight is not None:
        name = b.add("Mul", [name, b.add("Reshape", [b.name(weight), b.ints([-1] + trailing, "shape")])])
    if bias is not None:
        name = b.add("Add", [name, b.add("Reshape", [b.name(bias), b.ints([-1] + trailing, "shape")])])
    return name


@register("group_norm")
def group_norm(b, node):
    a = bind_args(node, ["input", "num_groups", "weight", "bias", "eps"], {"weight": None, "bias": None, "eps": 1e-5})
    x, groups = a["input"], int(a["num_groups"])
    dt = numpy_dtype(x.dtype)
    # each group as one "channel" of InstanceNormalization over (N, G, rest), then back to the input's shape
    grouped = b.add("Reshape", [b.name(x), b.ints([0, groups, -1], "shape")])
    normed = b.add("InstanceNormalization", [grouped, b.tensor(np.ones(groups, dt), "gn_scale"),
                                             b.tensor(np.zeros(groups, dt), "gn_bias")], epsilon=float(a["eps"]))
    restored = b.add("Reshape", [normed, b.add("Shape", [b.name(x)])])
    return _affine(b, restored, a["weight"], a["bias"], len(x.shape))


@register("instance_norm")
def instance_norm(b, node):
    a = bind_args(node, ["input", "running_mean", "running_var", "weight", "bias", "use_input_stats", "momentum",
                         "eps"], {"running_mean": None, "running_var": None, "weight": None, "bias": None,
                                  "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})
    x = a["input"]
    channels, dt = x.shape[1], numpy_dtype(x.dtype)
    scale = b.name(a["weight"]) if a["weight"] is not None else b.tensor(np.ones(channels, dt), "in_scale")
    bias = b.name(a["bias"]) if a["bias"] is not None else b.tensor(np.zeros(channels, dt), "in_bias")
    if a["use_input_stats"]:
        return b.add("InstanceNormalization", [b.name(x), scale, bias], epsilon=float(a["eps"]))
    return b.add("BatchNormalization", [b.name(x), scale, bias, b.name(a["running_mean"]), b.name(a["running_var"])],
                 epsilon=float(a["eps"]))


@register("pixel_shuffle")
def pixel_shuffle(b, node):
    a = bind_args(node, ["input", "upscale_factor"])
    if len(a["input"].shape) != 4:
        raise unsupported_option("pixel_shuffle", "an input that is not 4-D")
    # PyTorch's channel order (c, i, j) is DepthToSpace's column-row-depth mode
    return b.add("DepthToSpace", [b.name(a["input"])], blocksize=int(a["upscale_factor"]), mode="CRD")


@register("pixel_unshuffle")
def pixel_unshuffle(b, node):
    a = bind_args(node, ["input", "downscale_factor"])
    x, r = a["input"], int(a["downscale_factor"])
    if len(x.shape) != 4:
        raise unsupported_option("pixel_unshuffle", "an input that is not 4-D")
    _, c, h, w = x.shape
    split = b.add("Reshape", [b.name(x), b.ints([0, c, h // r, r, w // r, r], "shape")])
    moved = b.add("Transpose", [split], perm=[0, 1, 3, 5, 2, 4])
    return b.add("Reshape", [moved, b.ints([0, c * r * r, h // r, w // r], "shape")])


# mode -> (ONNX mode, coordinate transformation without align_corners, nearest rounding)
_RESIZE = {"nearest": ("nearest", "asymmetric", "floor"), "nearest-exact": ("nearest", "half_pixel",
                                                                            "round_prefer_ceil"),
           "linear": ("linear", "half_pixel", None), "bilinear": ("linear", "half_pixel", None),
           "bicubic": ("cubic", "half_pixel", None)}


@register("interpolate", "upsample")
def interpolate(b, node):
    a = bind_args(node, ["input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor",
                         "antialias"], {"size": None, "scale_factor": None, "mode": "nearest", "align_corners": None,
                                        "recompute_scale_factor": None, "antialias": False})
    if a["antialias"]:
        raise unsupported_option("interpolate", "antialias=True")
    if a["mode"] not in _RESIZE:
        raise unsupported_option("interpolate", f"mode={a['mode']!r}")
    x, out = a["input"], node.outputs
    spatial = len(x.shape) - 2
    mode, coords, nearest = _RESIZE[a["mode"]]
    if a["align_corners"]:
        coords = "align_corners"
    attrs = {"mode": mode, "coordinate_transformation_mode": coords}
    if nearest:
        attrs["nearest_mode"] = nearest
    if mode == "cubic":
        attrs["cubic_coeff_a"] = -0.75
    if a["scale_factor"] is not None and not a["recompute_scale_factor"]:
        # PyTorch maps coordinates by the given factor, as Resize does with scales
        factors = a["scale_factor"]
        factors = list(factors) if isinstance(factors, (list, tuple)) else [factors] * spatial
        scales = b.tensor(np.asarray([1.0, 1.0] + [float(f) for f in factors], np.float32), "scales")
        return b.add("Resize", [b.name(x), "", scales], **attrs)
    # a size: the output sizes, with N and C read from the input at run time
    lead = b.add("Shape", [b.name(x)], start=0, end=2)
    sizes = b.add("Concat", [lead, b.ints(out.shape[2:], "sizes")], axis=0)
    return b.add("Resize", [b.name(x), "", "", sizes], **attrs)
