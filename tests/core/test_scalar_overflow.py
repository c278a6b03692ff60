"""A Python number that does not fit a tensor's dtype, following PyTorch's rules exactly: where the
number becomes one element of the tensor's dtype (fill_, full, where, clamp, masked_fill, index_fill,
scatter's value, pow's exponent, threshold, alpha, t[i] = v) it must fit, else RuntimeError "value
cannot be converted to type <dtype> without overflow"; where it is an operand of arithmetic
(add/sub/mul/floor-div/remainder/bitwise/comparisons) PyTorch wraps it as integer arithmetic does, and
so does ember. Expected values come from NumPy's wrapping int arithmetic."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F

OVERFLOW = r"value (\S+ )?cannot be converted to type \w+ without overflow"


def _i8():
    return ember.tensor([1, 2], dtype=ember.int8)


def _wrap(values, op, number, dtype):
    return op(np.array(values, dtype=np.int64), number).astype(dtype)


@pytest.mark.parametrize("call", [
    lambda: ember.pow(_i8(), 300),
    lambda: _i8() ** 300,
    lambda: ember.pow(ember.ones(2, dtype=ember.uint8), 256),
    lambda: ember.pow(ember.ones(2, dtype=ember.int32), 2**31),
    lambda: ember.pow(ember.ones(2, dtype=ember.float16), 1e6),
    lambda: _i8().masked_fill(_i8() > 0, 300),
    lambda: _i8().masked_fill(_i8() > 0, ember.tensor(300)),
    lambda: _i8().masked_fill_(_i8() > 0, 300),
    lambda: ember.ones(2, dtype=ember.float16).masked_fill(ember.tensor([True, False]), 1e6),
    lambda: _i8().index_fill(0, ember.tensor([0]), 300),
    lambda: _i8().index_fill(0, ember.tensor([0]), ember.tensor(300)),
    lambda: _i8().scatter_(0, ember.tensor([0]), 300),
    lambda: ember.scatter(_i8(), 0, ember.tensor([0]), 300),
    lambda: F.threshold(ember.ones(2, dtype=ember.int32), 2**31, 0),
    lambda: F.threshold(ember.ones(2, dtype=ember.int32), 0, 2**31),
    lambda: F.threshold_(ember.ones(2, dtype=ember.int32), 2**31, 0),
    lambda: F.threshold(ember.ones(2, dtype=ember.int8), math.nan, 0),
    lambda: F.threshold(ember.ones(2), 1e300, 0),
    lambda: F.threshold(ember.ones(2, dtype=ember.uint8), 0.5, -2.0),  # a negative float for an unsigned dtype
    lambda: ember.add(_i8(), _i8(), alpha=300),
    lambda: ember.sub(ember.ones(2, dtype=ember.uint8), ember.ones(2, dtype=ember.uint8), alpha=300),
    lambda: ember.add(ember.ones(2, dtype=ember.float16), ember.ones(2, dtype=ember.float16), alpha=1e6),
    # already refused before this change; kept here as the same class
    lambda: ember.where(_i8() > 1, _i8(), 300),
    lambda: ember.clamp(_i8(), max=300),
    lambda: ember.clamp(_i8(), min=-300),
    lambda: _i8().fill_(300),
    lambda: ember.full((2,), 300, dtype=ember.int8),
])
def test_a_number_that_becomes_an_element_must_fit(call):
    with pytest.raises(RuntimeError, match=OVERFLOW):
        call()


def test_refused_writes_leave_the_tensor_unchanged():
    t = _i8()
    with pytest.raises(RuntimeError, match=OVERFLOW):
        t.masked_fill_(t > 0, 300)
    with pytest.raises(RuntimeError, match=OVERFLOW):
        F.threshold_(t, 1000, 0)
    np.testing.assert_array_equal(t.numpy(), [1, 2])


def test_arithmetic_with_a_number_wraps_as_pytorch():
    i8 = _i8()
    np.testing.assert_array_equal(ember.add(i8, 300).numpy(), _wrap([1, 2], np.add, 300, np.int8))  # [45, 46]
    np.testing.assert_array_equal((i8 + 300).numpy(), [45, 46])
    np.testing.assert_array_equal((300 + i8).numpy(), [45, 46])
    np.testing.assert_array_equal(ember.sub(i8, 300).numpy(), _wrap([1, 2], np.subtract, 300, np.int8))
    np.testing.assert_array_equal((300 - i8).numpy(), [43, 42])
    np.testing.assert_array_equal(ember.mul(i8, 300).numpy(), _wrap([1, 2], np.multiply, 300, np.int8))
    np.testing.assert_array_equal((i8 & 300).numpy(), _wrap([1, 2], np.bitwise_and, 300, np.int8))
    np.testing.assert_array_equal(ember.add(ember.ones(2, dtype=ember.uint8), -1).numpy(), [0, 0])
    np.testing.assert_array_equal(ember.sub(ember.tensor([1, 2], dtype=ember.uint8), 1, alpha=-1).numpy(), [2, 3])


def test_comparisons_with_an_out_of_range_number():
    i8 = _i8()
    np.testing.assert_array_equal((i8 < 300).numpy(), [True, True])
    np.testing.assert_array_equal(ember.eq(i8, 300).numpy(), [False, False])
    np.testing.assert_array_equal((i8 != 300).numpy(), [True, True])
    np.testing.assert_array_equal((ember.ones(2, dtype=ember.uint8) < -1).numpy(), [True, True])


def test_numbers_in_range_still_work():
    i8 = _i8()
    np.testing.assert_array_equal(i8.masked_fill(i8 > 1, 1.5).numpy(), [1, 1])  # truncated, as a cast
    np.testing.assert_array_equal(i8.masked_fill(i8 > 1, -128).numpy(), [1, -128])
    np.testing.assert_array_equal(ember.ones(2, dtype=ember.bool).masked_fill(ember.tensor([True, False]), 2).numpy(),
                                  [True, True])
    np.testing.assert_array_equal(i8.index_fill(0, ember.tensor([1]), 127).numpy(), [1, 127])
    np.testing.assert_array_equal(ember.pow(i8, 7).numpy(), _wrap([1, 2], np.power, 7, np.int8))  # 2**7 wraps
    np.testing.assert_array_equal(F.threshold(ember.tensor([1, 3], dtype=ember.int32), 2.5, 0).numpy(), [0, 3])
    np.testing.assert_array_equal(F.threshold(ember.ones(2, dtype=ember.float16), 1e6, 0).numpy(), [0, 0])
    np.testing.assert_array_equal(F.threshold(ember.tensor([1, 3], dtype=ember.int8), 1.5, -2.0).numpy(), [-2, 3])
    np.testing.assert_array_equal(ember.add(i8, i8, alpha=-128).numpy(), _wrap([1, 2], np.multiply, -127, np.int8))
    np.testing.assert_allclose(ember.pow(i8, 2.5).numpy(), np.power([1., 2.], 2.5), rtol=1e-6)
