"""OpInfo: what generic tests need to know about one op beyond its schema: its NumPy/SciPy reference,
input domains, sample inputs and tolerances; and the helpers that run an op on the samples and
compare it with the reference (NumPy is imported with this module, never by `import ember`).

The core's op tests (tests/opdb) declare one OpInfo per op of core/ops/*.yaml. A domain package
declares OpInfos for its own ops the same way, against its own reference, and checks them:

    from ember.testing.opinfo import OpInfo, Sample, check_against_reference

    def nms_samples(dtype, rng):
        return [Sample((boxes_array, scores_array), {"iou_threshold": 0.5})]

    NMS = OpInfo("nms", ref=numpy_nms, sample_inputs=nms_samples)
    check_against_reference(NMS, embervision.ops.nms, "float32")

`register` adds an OpInfo to REGISTRY, the table the core's generic tests run over.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

import ember

REGISTRY: dict[str, "OpInfo"] = {}

NP_DTYPE = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
            "int64": np.int64, "float16": np.float16, "bfloat16": np.float32, "float32": np.float32,
            "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128}
FLOATS = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
INTS = ("uint8", "int8", "int16", "int32", "int64")
# (rtol, atol) when comparing against a float64 reference
TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (2e-6, 1e-5),
       "float64": (1e-10, 1e-12), "complex64": (2e-6, 1e-5), "complex128": (1e-10, 1e-12)}


@dataclasses.dataclass
class Sample:
    args: tuple                     # NumPy arrays (become tensors) or Python numbers
    kwargs: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class OpInfo:
    name: str
    ref: Callable | None = None          # NumPy reference, called on float64/complex128/int64 arrays
    domain: tuple = (-3.0, 3.0)          # float inputs drawn from here
    rhs_domain: tuple | None = None      # a second input's range, when it differs
    int_domain: tuple = (-9, 10)
    rhs_int_domain: tuple | None = None
    nonzero_rhs: bool = False            # keep the second input away from 0 (division)
    kwargs: list = dataclasses.field(default_factory=lambda: [{}])
    tol: dict = dataclasses.field(default_factory=dict)   # dtype -> (rtol, atol)
    sample_inputs: Callable[[str, np.random.Generator], list[Sample]] | None = None  # custom ops
    check: Callable[[Any, Sample, str], None] | None = None  # custom ops: check one sample's result
    skips: dict = dataclasses.field(default_factory=dict)  # test name -> reason
    extra: dict = dataclasses.field(default_factory=dict)


def register(*infos: OpInfo) -> None:
    for info in infos:
        if info.name in REGISTRY:
            raise ValueError(f"duplicate OpInfo {info.name}")
        REGISTRY[info.name] = info


def ember_dtype(name: str):
    return getattr(ember, name)


def to_ember(arr, dtype: str):
    """A NumPy array as an ember tensor of `dtype` (bfloat16 goes through float32)."""
    arr = np.asarray(arr)
    if dtype == "bfloat16":
        return ember.tensor(arr.astype(np.float32)).to(ember.bfloat16)
    return ember.tensor(arr.astype(NP_DTYPE[dtype]))


def to_numpy(t):
    """Any ember tensor as a NumPy array, widened to float64/complex128 for 16-bit floats; a sparse tensor as its
    dense values; a Python number (a result such as broadcast_shapes' sizes) as a 0-dim array."""
    if not isinstance(t, ember.Tensor):
        return np.asarray(t)
    if t.layout != ember.strided:
        t = t.to_dense()
    if t.dtype in (ember.bfloat16, ember.float16):
        t = t.to(ember.float64)
    return np.array(t.numpy(), copy=True)


def random_array(dtype: str, shape, rng: np.random.Generator, domain, int_domain, nonzero=False):
    """Always an ndarray (also for shape ()), drawn from the domain for its kind."""
    return np.asarray(_random(dtype, shape, rng, domain, int_domain, nonzero))


def _random(dtype, shape, rng, domain, int_domain, nonzero):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INTS:
        lo, hi = int_domain
        if dtype == "uint8":
            lo = max(lo, 0)
        a = rng.integers(lo, hi, size=shape)
        if nonzero:
            a[a == 0] = 1
        return a.astype(NP_DTYPE[dtype])
    lo, hi = domain
    a = rng.uniform(lo, hi, size=shape)
    if dtype in COMPLEX:
        a = a + 1j * rng.uniform(lo, hi, size=shape)
    if nonzero:
        a[np.abs(a) < 0.1] = 0.5
    return a


def assert_matches_reference(actual: np.ndarray, expected: np.ndarray, dtype: str, tol: dict | None = None, msg=""):
    if dtype in ("bool",) + INTS or actual.dtype == np.bool_ and expected.dtype == np.bool_:
        np.testing.assert_array_equal(actual, expected, err_msg=msg)
        return
    rtol, atol = (tol or {}).get(dtype, TOL.get(dtype, (1e-6, 1e-6)))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=msg)


# ---- running an op on an OpInfo's samples -----------------------------------------------------

def sample_args(sample: Sample, dtype: str) -> tuple[list, dict]:
    """A sample's arguments with its arrays (and lists of arrays) as ember tensors of dtype."""
    def convert(x):
        if isinstance(x, np.ndarray):
            return to_ember(x, dtype)
        if isinstance(x, (list, tuple)) and x and all(isinstance(i, np.ndarray) for i in x):
            return type(x)(to_ember(i, dtype) for i in x)
        return x
    return [convert(a) for a in sample.args], dict(sample.kwargs)


def numpy_tree(x):
    """Tensors (also inside lists and tuples) as NumPy arrays, 16-bit floats widened; named tuples (return_types)
    become plain tuples."""
    if isinstance(x, (list, tuple)):
        return (list if isinstance(x, list) else tuple)(numpy_tree(i) for i in x)
    return to_numpy(x)


def reference_args(args: list) -> list:
    """ember arguments as the reference takes them: tensors as (widened) NumPy arrays."""
    def wide(a):
        return to_numpy(a) if isinstance(a, ember.Tensor) else a
    return [([wide(i) for i in a] if isinstance(a, (list, tuple)) else wide(a)) for a in args]


def compare(got, want, dtype: str, info: OpInfo, msg: str) -> None:
    """got (tensors, or lists/tuples of them) against the reference's want, with info's tolerances."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), msg
        for g, w in zip(got, want):
            compare(g, w, dtype, info, msg)
        return
    want = np.asarray(want)
    g = got if isinstance(got, np.ndarray) else to_numpy(got)
    assert g.shape == want.shape, f"{msg}: shape {g.shape} != {want.shape}"
    assert_matches_reference(
        g, want.astype(g.dtype) if want.dtype != g.dtype and g.dtype.kind == want.dtype.kind else want, dtype,
        info.tol, msg=msg)


def check_against_reference(info: OpInfo, fn: Callable, dtype: str, seed: int = 7) -> int:
    """Calls fn on each of info's samples in dtype and compares with info.ref (through
    info.extra["compare_as"] when results are unique only up to signs); runs info.check too.
    Returns how many samples were checked; raises AssertionError naming the sample that differs."""
    if info.sample_inputs is None or info.ref is None:
        raise ValueError(f"OpInfo {info.name}: check_against_reference needs sample_inputs and ref")
    n = 0
    for sample in info.sample_inputs(dtype, np.random.default_rng(seed)):
        args, kwargs = sample_args(sample, dtype)
        want = info.ref(*reference_args(args), **kwargs)  # first: an in-place op changes its arguments
        got = fn(*args, **kwargs)
        if info.check:
            info.check(got, sample, dtype)
        if "compare_as" in info.extra:
            got, want = info.extra["compare_as"](numpy_tree(got)), info.extra["compare_as"](want)
        compare(got, want, dtype, info, f"{info.name}({dtype}) sample {sample.kwargs}")
        n += 1
    return n
