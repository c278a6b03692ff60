"""div's rounding modes against NumPy: true division promotes integers to float, 'trunc' and
'floor' keep the input dtype; floor matches Python's // and % pair."""
import numpy as np
import pytest

import ember as e

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("dtype", INT_DTYPES + ["float32", "float64"])
def test_rounding_modes(dtype):
    rng = np.random.default_rng(3)
    lo = 0 if dtype == "uint8" else -50
    a = rng.integers(lo, 50, size=(7, 5)).astype(dtype)
    b = rng.integers(lo, 9, size=(7, 5)).astype(dtype)
    b[b == 0] = 3
    ta, tb = e.tensor(a), e.tensor(b)
    floor = e.div(ta, tb, rounding_mode="floor")
    trunc = e.div(ta, tb, rounding_mode="trunc")
    true = e.div(ta, tb)
    assert repr(floor.dtype) == f"ember.{dtype}" and repr(trunc.dtype) == f"ember.{dtype}"
    assert true.dtype == (e.float64 if dtype == "float64" else e.float32)
    np.testing.assert_array_equal(floor.numpy(), np.floor_divide(a, b))
    want_trunc = np.trunc(a.astype(np.float64) / b.astype(np.float64))
    np.testing.assert_array_equal(trunc.numpy(), want_trunc.astype(dtype))
    np.testing.assert_allclose(true.numpy(), a.astype(np.float64) / b, rtol=1e-6)
    # floor division and remainder satisfy a == b * (a // b) + a % b, as Python's do
    np.testing.assert_array_equal((tb * floor + e.remainder(ta, tb)).numpy(), a)


def test_rounding_mode_errors_and_forms():
    with pytest.raises(ValueError, match="rounding_mode"):
        e.div(e.tensor([1.0]), 2, rounding_mode="round")
    t = e.tensor([7, -7])
    t.div_(2, rounding_mode="floor")
    np.testing.assert_array_equal(t.numpy(), [3, -4])
    out = e.empty(2, dtype=e.int64)
    e.div(e.tensor([7, -7]), 2, rounding_mode="trunc", out=out)
    np.testing.assert_array_equal(out.numpy(), [3, -3])
    np.testing.assert_array_equal(e.div(e.tensor([-7.5, 7.5]), 2, rounding_mode="floor").numpy(), [-4.0, 3.0])
