"""float32 <-> bfloat16 casts of contiguous tensors (autocast's casts; a 16-wide vector body and a
scalar tail on AVX-512): narrowing rounds to nearest even, ties to even, carries into the exponent
(the largest finite floats round to infinity), keeps denormals, and quiets a NaN keeping its sign and
top payload bits; widening is exact. Checked bit for bit against a NumPy reference of those rules."""
import numpy as np
import pytest

import ember


def rne_bits(f32):
    u = f32.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    quiet = (u >> 16) | 0x40
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, quiet, rounded).astype(np.uint16)


def bits(t):
    return t.view(ember.int16).numpy().view(np.uint16)


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 3.4028235e38, -3.4028235e38, 1e-45, -1e-40, 1.17549435e-38],
                   dtype=np.float32)
# ties: exactly halfway between two bfloat16 values, with an even and an odd lower neighbour
TIES = np.array([0x3F808000, 0x3F818000, 0xBF808000, 0x3F80FFFF, 0x3F807FFF], dtype=np.uint32).view(np.float32)
NANS = np.array([0x7FC00000, 0xFFC00001, 0x7F800001, 0xFF812345, 0x7FFFFFFF], dtype=np.uint32).view(np.float32)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 65536 + 33])
def test_narrowing_rounds_to_nearest_even_bit_for_bit(n):
    rng = np.random.default_rng(n)
    raw = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    values = np.concatenate([SPECIAL, TIES, NANS, raw])[:max(n, 21)]
    got = ember.tensor(values).to(ember.bfloat16)
    np.testing.assert_array_equal(bits(got), rne_bits(values))


def test_copy_into_an_existing_bfloat16_tensor():
    values = np.random.default_rng(1).standard_normal((7, 33)).astype(np.float32)
    out = ember.empty(7, 33, dtype=ember.bfloat16)
    out.copy_(ember.tensor(values))
    np.testing.assert_array_equal(bits(out), rne_bits(values))


@pytest.mark.parametrize("n", [3, 16, 100003])
def test_widening_is_exact(n):
    raw = np.random.default_rng(n).integers(0, 2**16, n, dtype=np.uint32).astype(np.uint16)
    t = ember.tensor(raw.view(np.int16)).view(ember.bfloat16)
    got = t.float().numpy().view(np.uint32)
    np.testing.assert_array_equal(got, raw.astype(np.uint32) << 16)


def test_strided_and_overlapping_views_keep_their_layout():
    values = np.random.default_rng(2).standard_normal((6, 8)).astype(np.float32)
    t = ember.tensor(values)
    got = t.t().to(ember.bfloat16)  # a transposed source: the generic loop
    np.testing.assert_array_equal(bits(got.contiguous()), rne_bits(np.ascontiguousarray(values.T)))
    dst = ember.zeros(6, 16, dtype=ember.bfloat16)
    dst[:, ::2].copy_(t)
    np.testing.assert_array_equal(bits(dst)[:, ::2], rne_bits(values))
    assert np.all(bits(dst)[:, 1::2] == 0)
