"""Generic tests for every elementwise op in the op database, against NumPy/SciPy in float64:
values per declared dtype, function/method/in-place/out= agreement, non-contiguous, broadcast,
Python-scalar, zero-size and meta inputs, and a clear error for dtypes the op does not declare."""
import numpy as np
import pytest

import ember
from opdb import entries  # noqa: F401  (registers every OpInfo)
from ember.testing.opinfo import (
    COMPLEX, FLOATS, INTS, REGISTRY, assert_matches_reference, random_array, to_ember, to_numpy)
from tools.opgen import opdb

ALL_OPS = {op.name: op for op in opdb.load()}
POINTWISE = [op for op in ALL_OPS.values()
             if (op.pointwise is not None or op.entry.get("elementwise")) and not op.name.startswith("_")]


def dtypes_under_test(op):
    ds = list(op.dtypes)
    if op.promotion == "int_to_float":
        ds = ["bool", *INTS] + [d for d in ds if d not in INTS and d != "bool"]
    return ds


def result_dtype(op, dtype):
    if op.promotion == "bool_out":
        return "bool"
    if op.promotion == "complex_to_real":
        return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    if op.promotion == "int_to_float" and dtype in ("bool", *INTS):
        return "float32"
    return dtype


def n_inputs(op):
    return len(op.tensor_args)


def make_inputs(op, info, dtype, shapes, rng):
    arrays = []
    for i, shape in enumerate(shapes):
        dom = info.rhs_domain if (i == 1 and info.rhs_domain) else info.domain
        idom = info.rhs_int_domain if (i == 1 and info.rhs_int_domain) else info.int_domain
        arrays.append(random_array(dtype, shape, rng, dom, idom, nonzero=info.nonzero_rhs and i == 1))
    return [to_ember(a, dtype) for a in arrays]


def reference(op, info, tensors, dtype, kwargs):
    wide = [to_numpy(t) for t in tensors]
    rd = result_dtype(op, dtype)
    if dtype in FLOATS or (dtype in ("bool", *INTS) and rd in FLOATS):
        wide = [w.astype(np.float64) for w in wide]  # NumPy would compute bool/int8 math in float16
    elif dtype in INTS:
        wide = [w.astype(np.int64) for w in wide]
    with np.errstate(all="ignore"):
        expected = np.asarray(info.ref(*wide, **kwargs))
    rd = result_dtype(op, dtype)
    if rd in INTS or rd == "bool":
        expected = expected.astype({"bool": np.bool_, **{d: getattr(np, d) for d in INTS}}[rd])
    return expected


def ids(params):
    return [f"{op.name}-{d}" for op, d in params]


VALUE_PARAMS = [(op, d) for op in POINTWISE for d in dtypes_under_test(op)]


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def info_for(op):
    info = REGISTRY.get(op.name)
    if info is None:
        pytest.fail(f"{op.name} has no OpInfo entry")
    return info


@pytest.mark.parametrize("op,dtype", VALUE_PARAMS, ids=ids(VALUE_PARAMS))
def test_reference(op, dtype, rng):
    info = info_for(op)
    fn = op.function(ember)
    for kwargs in info.kwargs:
        ins = make_inputs(op, info, dtype, [(4, 5)] * n_inputs(op), rng)
        out = fn(*ins, **kwargs)
        assert repr(out.dtype) == f"ember.{result_dtype(op, dtype)}", f"{op.name} {dtype} {kwargs}"
        assert tuple(out.shape) == (4, 5)
        assert_matches_reference(to_numpy(out), reference(op, info, ins, dtype, kwargs), result_dtype(op, dtype),
                     info.tol, msg=f"{op.name} {dtype} {kwargs}")


@pytest.mark.parametrize("op,dtype", VALUE_PARAMS, ids=ids(VALUE_PARAMS))
def test_variants_agree(op, dtype, rng):
    info = info_for(op)
    kwargs = info.kwargs[0]
    ins = make_inputs(op, info, dtype, [(3, 4)] * n_inputs(op), rng)
    expected = to_numpy(op.function(ember)(*ins, **kwargs))
    rd = result_dtype(op, dtype)
    if "method" in op.variants:
        got = getattr(ins[0], op.name)(*ins[1:], **kwargs)
        np.testing.assert_array_equal(to_numpy(got), expected)
    if "out" in op.variants:
        out = ember.empty((3, 4), dtype=getattr(ember, rd))
        ret = op.function(ember)(*ins, **kwargs, out=out)
        assert ret is out
        np.testing.assert_array_equal(to_numpy(out), expected)
    if "inplace" in op.variants:
        target = ins[0].clone()
        if rd == dtype:
            ret = getattr(target, op.name + "_")(*ins[1:], **kwargs)
            assert ret is target
            np.testing.assert_array_equal(to_numpy(target), expected)
        elif not ember.can_cast(getattr(ember, rd), target.dtype):
            with pytest.raises(RuntimeError, match="can't be cast"):
                getattr(target, op.name + "_")(*ins[1:], **kwargs)


def first_dtype(op):
    for d in ("float32", "int64", "bool", "complex64"):
        if d in dtypes_under_test(op):
            return d
    return dtypes_under_test(op)[0]


@pytest.mark.parametrize("op", POINTWISE, ids=[o.name for o in POINTWISE])
def test_noncontiguous_and_broadcast(op, rng):
    info = info_for(op)
    dtype = first_dtype(op)
    kwargs = info.kwargs[0]
    fn = op.function(ember)
    base = make_inputs(op, info, dtype, [(6, 8)] * n_inputs(op), rng)
    strided = [t.t()[::2] for t in base]  # transposed then sliced: neither contiguous nor dense
    got = fn(*strided, **kwargs)
    want = fn(*[t.contiguous() for t in strided], **kwargs)
    np.testing.assert_array_equal(to_numpy(got), to_numpy(want))
    want_ref = reference(op, info, strided, dtype, kwargs)
    assert_matches_reference(to_numpy(got), want_ref, result_dtype(op, dtype), info.tol)
    if n_inputs(op) >= 2:
        shapes = [(3, 1), (1, 4), (4,)][: n_inputs(op)]
        ins = make_inputs(op, info, dtype, shapes, rng)
        out = fn(*ins, **kwargs)
        assert tuple(out.shape) == (3, 4)
        want_ref = reference(op, info, ins, dtype, kwargs)
        assert_matches_reference(to_numpy(out), want_ref, result_dtype(op, dtype), info.tol)


@pytest.mark.parametrize("op", POINTWISE, ids=[o.name for o in POINTWISE])
def test_zero_size_and_meta(op, rng):
    info = info_for(op)
    dtype = first_dtype(op)
    kwargs = info.kwargs[0]
    fn = op.function(ember)
    ins = make_inputs(op, info, dtype, [(0, 3)] * n_inputs(op), rng)
    out = fn(*ins, **kwargs)
    assert tuple(out.shape) == (0, 3)
    meta = [ember.empty((2, 3), dtype=getattr(ember, dtype), device="meta") for _ in range(n_inputs(op))]
    m = fn(*meta, **kwargs)
    assert m.is_meta and tuple(m.shape) == (2, 3)
    assert repr(m.dtype) == f"ember.{result_dtype(op, dtype)}"


@pytest.mark.parametrize("op", POINTWISE, ids=[o.name for o in POINTWISE])
def test_undeclared_dtype_raises(op, rng):
    undeclared = [d for d in ("bool", *INTS, *FLOATS, *COMPLEX) if d not in dtypes_under_test(op)]
    if not undeclared:
        pytest.skip(f"{op.name} supports every dtype")
    info = info_for(op)
    if "undeclared_dtype" in info.skips:
        pytest.skip(info.skips["undeclared_dtype"])
    dtype = undeclared[-1]
    ins = make_inputs(op, info, dtype, [(2, 2)] * n_inputs(op), rng)
    with pytest.raises((TypeError, RuntimeError), match=dtype):
        op.function(ember)(*ins, **info.kwargs[0])


def test_coverage_every_yaml_op_has_an_entry():
    missing = sorted(name for name in ALL_OPS if not name.startswith("_") and name not in REGISTRY)
    assert not missing, f"ops without an OpInfo entry in tests/opdb: {missing}"
    stale = sorted(name for name in REGISTRY if name not in ALL_OPS and not REGISTRY[name].extra.get("python_level"))
    assert not stale, f"OpInfo entries for ops not in the YAML: {stale}"
