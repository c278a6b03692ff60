"""OpInfo: what the generic op tests need to know about one op beyond its YAML entry: the
NumPy/SciPy reference, input domains, sample inputs and tolerances. Entries live in
tests/opdb/entries_<family>.py and register themselves with `register`."""
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
    """Any ember tensor as a NumPy array, widened to float64/complex128 for 16-bit floats."""
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


def assert_close(actual: np.ndarray, expected: np.ndarray, dtype: str, tol: dict | None = None, msg=""):
    if dtype in ("bool",) + INTS or actual.dtype == np.bool_ and expected.dtype == np.bool_:
        np.testing.assert_array_equal(actual, expected, err_msg=msg)
        return
    rtol, atol = (tol or {}).get(dtype, TOL.get(dtype, (1e-6, 1e-6)))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=msg)
