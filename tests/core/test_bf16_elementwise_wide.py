"""Contiguous elementwise ops with bfloat16 operands run 16 lanes wide on AVX-512BW (iter/loops_bf16.h):
each result must still be the float32 op on the widened values, rounded once to bfloat16 (to nearest
even), as a NumPy reference computes it -- unary, binary, a broadcast number on either side, boolean
results, lengths with tails, NaN and infinity -- and equal to the strided loop's result."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

RNG = np.random.default_rng(20)


def to_bf16_bits(f32):
    """float32 -> bfloat16 bits, rounded to nearest even, a NaN quieted (BFloat16::from_float)."""
    u = np.ascontiguousarray(f32, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, (u >> 16) | 0x40, rounded).astype(np.uint16)


def widen(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def bf16_tensor(n, special=True):
    """A bfloat16 tensor of n values (some NaN, infinite, zero, tiny) and their float32 values."""
    v = RNG.standard_normal(n).astype(np.float32) * 4
    if special and n > 8:
        v[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40]
        RNG.shuffle(v)
    bits = to_bf16_bits(v)
    t = ember.tensor(bits.view(np.int16)).view(ember.bfloat16)
    return t, widen(bits)


def bits_of(t):
    return t.contiguous().view(ember.int16).numpy().view(np.uint16)


UNARY = [
    ("relu", F.relu, lambda a: np.maximum(a, np.float32(0))),
    ("neg", lambda x: -x, lambda a: -a),
    ("abs", ember.abs, np.abs),
]

BINARY = [
    ("add", lambda x, y: x + y, lambda a, b: a + b),
    ("sub", lambda x, y: x - y, lambda a, b: a - b),
    ("mul", lambda x, y: x * y, lambda a, b: a * b),
    ("div", lambda x, y: x / y, lambda a, b: a / b),
    ("maximum", ember.maximum, np.maximum),
]


@pytest.mark.parametrize("n", [37, 1000003])
@pytest.mark.parametrize("name,op,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary(n, name, op, ref):
    x, xf = bf16_tensor(n)
    with np.errstate(all="ignore"):
        want = to_bf16_bits(ref(xf))
    np.testing.assert_array_equal(bits_of(op(x)), want)


@pytest.mark.parametrize("n", [37, 1000003])
@pytest.mark.parametrize("name,op,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary(n, name, op, ref):
    x, xf = bf16_tensor(n)
    y, yf = bf16_tensor(n)
    with np.errstate(all="ignore"):
        want = to_bf16_bits(ref(xf, yf))
        # a broadcast number on either side
        want_left = to_bf16_bits(ref(xf[:1], yf))
        want_right = to_bf16_bits(ref(xf, yf[:1]))
    np.testing.assert_array_equal(bits_of(op(x, y)), want)
    np.testing.assert_array_equal(bits_of(op(x[:1].expand(n), y)), want_left)
    np.testing.assert_array_equal(bits_of(op(x, y[:1].expand(n))), want_right)


def test_relu_backward_is_threshold_backward():
    x, xf = bf16_tensor(100003, special=False)
    g, gf = bf16_tensor(100003, special=False)
    x.requires_grad_(True)
    F.relu(x).backward(g)
    np.testing.assert_array_equal(bits_of(x.grad), to_bf16_bits(np.where(xf > 0, gf, np.float32(0))))


def test_comparison_gives_bool():
    x, xf = bf16_tensor(5003)
    y, yf = bf16_tensor(5003)
    np.testing.assert_array_equal((x > y).numpy(), xf > yf)
    np.testing.assert_array_equal((x == y).numpy(), xf == yf)


@pytest.mark.parametrize("threads", [1, 2])
def test_contiguous_equals_strided(threads):
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        x, _ = bf16_tensor(2 * 300001)
        y, _ = bf16_tensor(2 * 300001)
        xs, ys = x[::2], y[::2]  # the strided loop
        xc, yc = xs.contiguous(), ys.contiguous()  # the wide one
        for op in (lambda a, b: a + b, lambda a, b: a * b - b, lambda a, b: F.relu(a) / b):
            np.testing.assert_array_equal(bits_of(op(xc, yc)), bits_of(op(xs, ys)))
    finally:
        ember.set_num_threads(before)
