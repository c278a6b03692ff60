"""Type promotion: the examples of PyTorch's type-promotion documentation, and the category rules
that dimensioned tensors outrank 0-dim tensors, which outrank Python numbers."""
import itertools

import numpy as np
import pytest

import ember as e


def t(dtype, dim=1):
    return e.tensor([1] if dim else 1, dtype=dtype)


@pytest.mark.parametrize("a,b,expected", [
    (lambda: t(e.int32), lambda: 5, e.int32),
    (lambda: t(e.int32), lambda: t(e.int64, dim=0), e.int32),
    (lambda: t(e.int64), lambda: t(e.int32), e.int64),
    (lambda: t(e.bool), lambda: t(e.int64), e.int64),
    (lambda: t(e.bool), lambda: t(e.uint8), e.uint8),
    (lambda: t(e.float32), lambda: t(e.float64), e.float64),
    (lambda: t(e.complex64), lambda: t(e.complex128), e.complex128),
    (lambda: t(e.bool), lambda: t(e.int32), e.int32),
    (lambda: t(e.int64), lambda: t(e.float32), e.float32),
    (lambda: t(e.int32), lambda: 2.5, e.float32),
    (lambda: t(e.float16), lambda: 2.5, e.float16),
    (lambda: t(e.float64), lambda: 2.5, e.float64),
    (lambda: t(e.int64), lambda: 1j, e.complex64),
    (lambda: t(e.float64), lambda: 1j, e.complex128),
    (lambda: t(e.int32), lambda: t(e.float64, dim=0), e.float64),
    (lambda: t(e.float32), lambda: t(e.float64, dim=0), e.float32),
    (lambda: t(e.uint8), lambda: t(e.int8), e.int16),
    (lambda: t(e.float16), lambda: t(e.bfloat16), e.float32),
    (lambda: t(e.bool), lambda: True, e.bool),
    (lambda: t(e.uint8), lambda: 1000, e.uint8),
])
def test_result_type_matches_pytorch_docs(a, b, expected):
    x, y = a(), b()
    assert e.result_type(x, y) == expected
    assert (x + y).dtype == expected


def test_python_numbers_alone():
    assert e.add(5, 5).dtype == e.int64
    assert e.add(5.0, 5).dtype == e.float32


def test_default_dtype_controls_float_results():
    assert e.get_default_dtype() == e.float32
    e.set_default_dtype(e.float64)
    try:
        assert (t(e.int32) + 2.5).dtype == e.float64
        assert e.tensor([1.5]).dtype == e.float64
        assert (e.tensor([1, 2]) / 2).dtype == e.float64
    finally:
        e.set_default_dtype(e.float32)
    with pytest.raises(TypeError, match="int64"):
        e.set_default_dtype(e.int64)


NP = {e.bool: np.bool_, e.uint8: np.uint8, e.int8: np.int8, e.int16: np.int16, e.int32: np.int32,
      e.int64: np.int64, e.float32: np.float32, e.float64: np.float64, e.complex64: np.complex64,
      e.complex128: np.complex128}


@pytest.mark.parametrize("a,b", list(itertools.combinations_with_replacement(NP, 2)))
def test_promote_types_agrees_with_numpy_where_numpy_has_the_same_rule(a, b):
    # NumPy's table matches PyTorch's except integer+float (PyTorch keeps the float's width).
    got = e.promote_types(a, b)
    assert got == e.promote_types(b, a)
    kinds = {a.is_floating_point or a.is_complex, b.is_floating_point or b.is_complex}
    if len(kinds) == 2 and a != e.bool and b != e.bool:
        float_side = a if (a.is_floating_point or a.is_complex) else b
        assert got == float_side or (got.is_complex and float_side.is_complex)
    else:
        assert NP[got] == np.promote_types(NP[a], NP[b])


def test_can_cast():
    assert e.can_cast(e.int32, e.float32)
    assert not e.can_cast(e.float32, e.int32)
    assert not e.can_cast(e.complex64, e.float64)
    assert not e.can_cast(e.int8, e.bool)
    assert e.can_cast(e.bool, e.int8)
