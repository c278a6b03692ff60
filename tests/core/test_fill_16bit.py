"""fill_/zero_ of contiguous 16-bit tensors (bfloat16, float16, int16) write the value's bits to every
element (checked against NumPy's bit patterns), including -0.0, infinities and NaN, on sizes around
the parallel grain; a strided view fills only its own elements."""
import numpy as np
import pytest

import ember


def bf16_bits(v):
    u = int(np.array(v, dtype=np.float32).view(np.uint32))
    if np.isnan(v):
        return (u >> 16) | 0x40
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16


def bits(t):
    return t.view(ember.int16).numpy().view(np.uint16)


@pytest.mark.parametrize("n", [1, 7, 65535, 65536, 200003])
@pytest.mark.parametrize("value", [0.0, -0.0, 1.5, -3.140625, float("inf"), float("-inf"), float("nan"), 1e-40])
def test_bfloat16_fill_writes_the_rounded_bits(n, value):
    t = ember.empty(n, dtype=ember.bfloat16)
    t.fill_(value)
    assert np.all(bits(t) == bf16_bits(value))


@pytest.mark.parametrize("value", [0.0, -0.0, 65504.0, 1e-7, float("-inf"), float("nan")])
def test_float16_fill_matches_numpy(value):
    t = ember.empty(70001, dtype=ember.float16)
    t.fill_(value)
    expect = np.array(value, dtype=np.float16).view(np.uint16)
    assert np.all(bits(t) == expect)


def test_int16_fill_and_zero():
    t = ember.empty(3, 50000, dtype=ember.int16)
    t.fill_(-12345)
    assert np.all(t.numpy() == -12345)
    t.zero_()
    assert np.all(t.numpy() == 0)


def test_a_strided_view_fills_only_its_elements():
    t = ember.zeros(6, 10, dtype=ember.bfloat16)
    t[:, ::3].fill_(2.5)
    ref = np.zeros((6, 10), dtype=np.float32)
    ref[:, ::3] = 2.5
    np.testing.assert_array_equal(t.float().numpy(), ref)
