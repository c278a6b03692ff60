"""Tensor.to and the dtype methods in scripted code, as in eager code: the tensor itself when nothing changes (so
an in-place op on the result writes the input, as eager's does), a converted copy otherwise."""
import numpy as np

import ember


@ember.jit.script
def _same_dtype_then_write(x: ember.Tensor) -> ember.Tensor:
    y = x.to(x.dtype)
    y.add_(1.0)
    return x


@ember.jit.script
def _conversions(x: ember.Tensor):
    return x.long(), x.short(), x.byte(), x.double(), x.float(), x.half(), x.bfloat16(), x.bool(), x.to(ember.int8)


def test_to_the_same_dtype_is_the_tensor_itself():
    x = ember.ones(2, 3)
    assert _same_dtype_then_write(x) is not None
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 2.0))  # written through the alias, as eager
    y = ember.ones(2, 3)
    y.to(y.dtype).add_(1.0)
    np.testing.assert_array_equal(y.numpy(), x.numpy())


def test_conversions_copy_and_keep_values():
    x = ember.tensor([[0.0, 1.5], [-2.0, 3.0]])
    want = [np.int64, np.int16, np.uint8, np.float64, np.float32, np.float16, None, np.bool_, np.int8]
    dtypes = [ember.int64, ember.int16, ember.uint8, ember.float64, ember.float32, ember.float16, ember.bfloat16,
              ember.bool, ember.int8]
    for got, dt, np_dt in zip(_conversions(x), dtypes, want):
        assert got.dtype == dt
        ref = x.numpy() if np_dt is None else x.numpy().astype(np_dt)
        np.testing.assert_array_equal(got.float().numpy(), np.asarray(ref, dtype=np.float32))
