"""Random and hostile argument values for the fuzzer, as specs: plain data that `build` turns into the
real value (a tensor, a list, a number) and `describe` prints as Python, so every call can be shown
and replayed. Tensors stay small (at most MAX_ELEMENTS real elements); huge sizes appear only as
expanded views (no memory) or as integer arguments, which ops must refuse before allocating."""
from __future__ import annotations

import math
import random

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]
FLOATS = ["float32", "float64"]
MAX_ELEMENTS = 4096
HUGE_INTS = [2**31 - 1, 2**31, 2**32 + 1, 2**40, 2**62, 2**63 - 1, -2**63, -2**31]
STRINGS = ["mean", "sum", "none", "batchmean", "reflect", "replicate", "circular", "constant", "zeros",
           "nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact", "tanh",
           "reduced", "complete", "r", "L", "U", "fro", "nuc", "ortho", "forward", "backward", "prod",
           "amax", "amin", "ij", "ii->i", "ij,jk->ik", "...", "", "bogus", "i" * 40]


class Spec:
    """One argument: `kind` says how to build it, `data` holds what it needs."""
    __slots__ = ("kind", "data")

    def __init__(self, kind: str, data=None):
        self.kind, self.data = kind, data


# ---- tensors ----------------------------------------------------------------------------------

def _shape(rng: random.Random, base: list[int] | None) -> list[int]:
    if base is not None and rng.random() < 0.65:
        return list(base)
    nd = rng.choice([0, 1, 1, 2, 2, 3, 4, 5])
    return [rng.choice([0, 1, 1, 2, 3, 4, 5, 7]) for _ in range(nd)]


def tensor_spec(rng: random.Random, base: list[int] | None = None, dtype: str | None = None,
                index_like: bool = False) -> Spec:
    """A tensor: dtype, shape, layout (contiguous, transposed, strided slice, expanded, overlapping,
    meta) and values (normal, special floats, small integers usable as indices)."""
    shape = _shape(rng, base)
    if dtype is None:
        dtype = rng.choice(DTYPES + FLOATS * 4 + ["int64"] * 2)
    if index_like and rng.random() < 0.7:
        dtype = "int64"
    n = math.prod(shape)
    if n > MAX_ELEMENTS:
        shape, n = [3, 4], 12
    layout = rng.choice(["contig"] * 5 + ["transposed", "sliced", "expanded", "overlap", "meta", "zero_dim", "huge"])
    values = rng.choice(["normal", "normal", "special", "indices", "zeros", "large"])
    if index_like:
        values = "indices"
    return Spec("tensor", dict(shape=shape, dtype=dtype, layout=layout, values=values, seed=rng.randrange(2**31),
                               grad=rng.random() < 0.1))


def _values(np, d: dict, count: int):
    r = np.random.default_rng(d["seed"])
    v = d["values"]
    if v == "indices":
        a = r.integers(-4, 9, size=count).astype("float64")
    elif v == "special":
        a = r.choice([0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), -float("inf"), 1e-310, 3e38, 0.5], size=count)
    elif v == "zeros":
        a = np.zeros(count)
    elif v == "large":
        a = r.choice([1e10, -1e10, 2.0**31, 2.0**62, 1e300], size=count)
    else:
        a = r.standard_normal(count) * 3
    return a


def _make_tensor(ember, np, d: dict):
    shape, dtype, layout = d["shape"], getattr(ember, d["dtype"]), d["layout"]
    if layout == "meta":
        return ember.empty(shape, dtype=dtype, device="meta")
    if layout == "zero_dim":
        shape = []
    if layout == "huge":  # a 1-element tensor expanded to a huge size: no memory behind it
        base = ember.tensor(_values(np, d, 1), dtype=ember.float64).to(dtype)
        return base.reshape([1] * (len(shape) or 1)).expand([2**40] + [1] * (max(len(shape), 1) - 1))
    numpy_shape = list(shape)
    if layout == "transposed" and len(shape) >= 2:
        numpy_shape = shape[:-2] + [shape[-1], shape[-2]]
    if layout == "sliced":
        numpy_shape = [s * 2 for s in shape]
    if layout == "expanded":
        numpy_shape = [1 if i % 2 == 0 else s for i, s in enumerate(shape)]
    count = max(math.prod(numpy_shape), 0)
    a = _values(np, d, count).reshape(numpy_shape)
    if d["dtype"].startswith("complex"):
        a = a + 1j * _values(np, dict(d, seed=d["seed"] + 1), count).reshape(numpy_shape)
    t = ember.tensor(a, dtype=ember.complex128 if d["dtype"].startswith("complex") else ember.float64)
    if d["dtype"] == "bool":
        t = t != 0
    else:
        with _quiet():
            t = t.to(dtype)
    if layout == "transposed" and len(shape) >= 2:
        t = t.transpose(-1, -2)
    elif layout == "sliced":
        t = t[tuple(slice(None, None, 2) for _ in shape)] if shape else t
    elif layout == "expanded":
        t = t.expand(shape)
    elif layout == "overlap" and t.numel() > 0 and len(shape) >= 1:
        strides = [0] + list(t.stride()[1:])  # the first dim re-reads the same memory
        t = t.as_strided(shape, strides)
    if d["grad"] and t.dtype.is_floating_point and layout != "meta":
        t = t.detach().requires_grad_()
    return t


class _quiet:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        self._w.__exit__(*a)


# ---- everything else ----------------------------------------------------------------------------

def int_value(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.55:
        return rng.choice([-3, -2, -1, 0, 1, 1, 2, 2, 3, 4])
    if r < 0.8:
        return rng.randrange(-8, 16)
    return rng.choice(HUGE_INTS)


def float_value(rng: random.Random) -> float:
    return rng.choice([0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 1e-12, 1e30, -1e30, 1e308,
                       float("nan"), float("inf"), -float("inf"), 3.0, 0.1])


def hostile(rng: random.Random, base) -> Spec:
    """A value of the wrong kind: None, a string, a dict, a float for an int, a tensor for a number."""
    return rng.choice([Spec("lit", None), Spec("lit", "x"), Spec("lit", {}), Spec("lit", 1.5),
                       Spec("lit", [1, "a"]), Spec("lit", -1), Spec("lit", True), Spec("lit", 2**70),
                       Spec("lit", float("nan")), Spec("lit", (1, 2)), tensor_spec(rng, base), Spec("lit", object)])


def for_type(rng: random.Random, typ: str, name: str, base, default) -> Spec:
    """A value for a schema type (core/ops/*.yaml), mostly well-formed, sometimes hostile."""
    optional = typ.endswith("?")
    t = typ.rstrip("?")
    if rng.random() < 0.08:
        return hostile(rng, base)
    if optional and rng.random() < 0.25:
        return Spec("lit", None)
    index_like = name in ("index", "indices", "target", "offsets", "boundaries", "indices_or_sections", "mask")
    if t in ("Tensor", "TensorLike"):
        if t == "TensorLike" and rng.random() < 0.15:
            return Spec("lit", rng.choice([int_value(rng), float_value(rng), True, 1j]))
        spec = tensor_spec(rng, base, index_like=index_like)
        if name == "mask" and rng.random() < 0.7:
            spec.data["dtype"] = "bool"
        return spec
    if t == "Tensor[]":
        return Spec("list", [tensor_spec(rng, base) for _ in range(rng.choice([0, 1, 2, 2, 3]))])
    if t == "int":
        return Spec("lit", int_value(rng))
    if t == "int[]":
        if rng.random() < 0.1:
            return Spec("lit", int_value(rng))
        return Spec("lit", [int_value(rng) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4]))])
    if t == "float":
        return Spec("lit", float_value(rng))
    if t == "Scalar":
        return Spec("lit", rng.choice([int_value(rng), float_value(rng), True, False, 1 + 2j, 300, -129]))
    if t == "bool":
        return Spec("lit", rng.choice([True, False, True, False, 2, "yes"]))
    if t == "str":
        return Spec("lit", rng.choice(STRINGS + ([default.strip("'\"")] * 4 if default else [])))
    if t == "ScalarType":
        return Spec("dtype", rng.choice(DTYPES))
    if t == "Device":
        return Spec("device", rng.choice(["cpu", "meta", "cuda", "bogus"]))
    if t == "Generator":
        return Spec("lit", None)
    return hostile(rng, base)


# ---- building and printing -------------------------------------------------------------------------

def build(spec: Spec, ember, np):
    if spec.kind == "lit":
        return spec.data
    if spec.kind == "tensor":
        return _make_tensor(ember, np, spec.data)
    if spec.kind == "list":
        return [build(s, ember, np) for s in spec.data]
    if spec.kind == "tuple":
        return tuple(build(s, ember, np) for s in spec.data)
    if spec.kind == "dtype":
        return getattr(ember, spec.data)
    if spec.kind == "device":
        return spec.data
    raise ValueError(spec.kind)


def describe(spec: Spec) -> str:
    if spec.kind == "lit":
        return "object" if spec.data is object else repr(spec.data)
    if spec.kind == "tensor":
        d = spec.data
        extra = f", {d['layout']}" if d["layout"] != "contig" else ""
        extra += f", {d['values']}" if d["values"] != "normal" else ""
        extra += ", grad" if d["grad"] else ""
        return f"T({d['dtype']}, {d['shape']}{extra})"
    if spec.kind == "list":
        return "[" + ", ".join(describe(s) for s in spec.data) + "]"
    if spec.kind == "tuple":
        return "(" + ", ".join(describe(s) for s in spec.data) + ("," if len(spec.data) == 1 else "") + ")"
    if spec.kind == "dtype":
        return f"ember.{spec.data}"
    return repr(spec.data)
