"""bfloat16 matrix products (the AVX512_BF16 path, kernels/cpu/gemm_bf16.h, where the CPU has it, and
the float32 fallback forced by ember._C._set_bf16_gemm_enabled(False) or EMBER_BF16_GEMM=0): the
result is the float64 product of the bf16 inputs rounded once to bfloat16 (float32 sums), for odd
sizes, transposed and strided operands, batches, k = 0, alpha/beta, and the gradients."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
from bf16_reference import bf16_values, check

RNG = np.random.default_rng(20)


@pytest.fixture(params=["bf16_path", "fallback"])
def path(request):
    """Runs a test on both paths (the first is the fallback too on a CPU without AVX512_BF16)."""
    previous = ember._C._set_bf16_gemm_enabled(request.param == "bf16_path")
    yield request.param
    ember._C._set_bf16_gemm_enabled(previous)


def bf16(shape, scale=1.0):
    return bf16_values(RNG, shape, scale)


def mm_ref(a, b):
    return a @ b, np.abs(a) @ np.abs(b), a.shape[-1]


SIZES = [(1, 1, 1), (7, 17, 63), (17, 7, 129), (63, 129, 17), (129, 63, 7), (12, 32, 2), (13, 33, 3), (40, 100, 300)]


@pytest.mark.parametrize("m,k,n", SIZES)
def test_mm_odd_sizes(path, m, k, n):
    a, an = bf16((m, k))
    b, bn = bf16((k, n))
    check(ember.mm(a, b), *mm_ref(an, bn))


@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_mm_transposed_operands(path, ta, tb):
    a, an = bf16((37, 70) if ta else (70, 37))
    b, bn = bf16((45, 37) if tb else (37, 45))
    a2, an2 = (a.t(), an.T) if ta else (a, an)
    b2, bn2 = (b.t(), bn.T) if tb else (b, bn)
    check(a2 @ b2, *mm_ref(an2, bn2))


def test_mm_strided_operands_and_out(path):
    a, an = bf16((50, 90))
    b, bn = bf16((90, 80))
    av, bv = a[::2, 1::3], b[1::3, ::2]  # neither has a unit stride
    out = ember.zeros(50, 80, dtype=ember.bfloat16)[::2, ::2]
    ember.mm(av, bv, out=out)
    check(out, *mm_ref(an[::2, 1::3], bn[1::3, ::2]))


def test_bmm_and_broadcast_matmul(path):
    a, an = bf16((5, 19, 33))
    b, bn = bf16((5, 33, 21))
    check(ember.bmm(a, b), np.matmul(an, bn), np.matmul(np.abs(an), np.abs(bn)), 33)
    c, cn = bf16((33, 21))
    check(ember.matmul(a, c), np.matmul(an, cn), np.matmul(np.abs(an), np.abs(cn)), 33)
    d, dn = bf16((3, 1, 100, 64))
    e, en = bf16((4, 64, 70))
    check(ember.matmul(d, e), np.matmul(dn, en), np.matmul(np.abs(dn), np.abs(en)), 64)


def test_large_product_splits_over_chunks_of_k(path):
    # k past 2048 sums in chunks, the partial sums kept in float32
    a, an = bf16((30, 2500))
    b, bn = bf16((2500, 40))
    check(a @ b, *mm_ref(an, bn))


def test_k_zero(path):
    a = ember.empty(4, 0, dtype=ember.bfloat16)
    b = ember.empty(0, 5, dtype=ember.bfloat16)
    out = ember.mm(a, b)
    assert out.dtype == ember.bfloat16 and out.float().numpy().tolist() == [[0.0] * 5] * 4
    c, cn = bf16((4, 5))
    got = ember.addmm(c, a, b, beta=0.5)
    assert np.array_equal(got.float().numpy(), (0.5 * cn).astype(np.float32))


def test_addmm_baddbmm_alpha_beta(path):
    a, an = bf16((23, 41))
    b, bn = bf16((41, 35))
    c, cn = bf16((23, 35))
    check(ember.addmm(c, a, b, beta=0.75, alpha=-1.5), 0.75 * cn - 1.5 * an @ bn,
          0.75 * np.abs(cn) + 1.5 * np.abs(an) @ np.abs(bn), 41)
    x, xn = bf16((3, 9, 14))
    y, yn = bf16((3, 14, 6))
    z, zn = bf16((3, 9, 6))
    check(ember.baddbmm(z, x, y, beta=2.0, alpha=0.5), 2 * zn + 0.5 * np.matmul(xn, yn),
          2 * np.abs(zn) + 0.5 * np.matmul(np.abs(xn), np.abs(yn)), 14)


def test_beta_zero_ignores_nan_in_out(path):
    a, an = bf16((13, 8))
    b, bn = bf16((8, 40))
    c = ember.full((13, 40), float("nan"), dtype=ember.bfloat16)
    check(ember.addmm(c, a, b, beta=0), *mm_ref(an, bn))


def test_linear_with_bias(path):
    x, xn = bf16((6, 10, 48))
    w, wn = bf16((33, 48))
    bias, biasn = bf16((33,))
    got = ember.nn.functional.linear(x, w, bias)
    check(got, xn @ wn.T + biasn, np.abs(xn) @ np.abs(wn.T) + np.abs(biasn), 48)


def test_gradients_are_bf16_products(path):
    a, an = bf16((19, 45))
    b, bn = bf16((45, 27))
    g, gn = bf16((19, 27))
    a.requires_grad_(True)
    b.requires_grad_(True)
    (a @ b).backward(g)
    check(a.grad, *mm_ref(gn, bn.T))
    check(b.grad, *mm_ref(an.T, gn))


def test_result_rounds_once_to_nearest_even(path):
    # 1 + 2**-8 and 1 + 3 * 2**-8 sit halfway between bf16 neighbours: ties go to the even one
    a = ember.tensor([[1.0, 2.0**-8], [1.0, 3 * 2.0**-8], [1.0, -(2.0**-8)]], dtype=ember.bfloat16)
    b = ember.ones(2, 1, dtype=ember.bfloat16)
    assert (a @ b).float().flatten().tolist() == [1.0, 1.0 + 2.0**-6, 1.0 - 2.0**-8]


def test_long_sums_are_float32_not_bf16():
    # 4096 ones plus 1/256 each: a bf16 running sum would stop growing at 256 + ...; float32 gives 4112
    previous = ember._C._set_bf16_gemm_enabled(True)
    try:
        a = ember.full((3, 4096), 1.0 + 2.0**-7, dtype=ember.bfloat16)
        b = ember.ones(4096, 5, dtype=ember.bfloat16)
        assert (a @ b).float().flatten().tolist() == [4096 * (1 + 2.0**-7)] * 15
    finally:
        ember._C._set_bf16_gemm_enabled(previous)


def test_paths_agree_exactly_on_integer_values():
    a = ember.tensor(RNG.integers(-8, 9, size=(33, 70)).astype(np.float32)).to(ember.bfloat16)
    b = ember.tensor(RNG.integers(-8, 9, size=(70, 45)).astype(np.float32)).to(ember.bfloat16)
    previous = ember._C._set_bf16_gemm_enabled(True)
    try:
        fast = (a @ b).float().numpy()
        ember._C._set_bf16_gemm_enabled(False)
        slow = (a @ b).float().numpy()
    finally:
        ember._C._set_bf16_gemm_enabled(previous)
    exact = a.float().numpy().astype(np.float64) @ b.float().numpy().astype(np.float64)
    bf = ember.tensor(exact.astype(np.float32)).to(ember.bfloat16).float().numpy()
    assert np.array_equal(fast, bf) and np.array_equal(slow, bf)


def test_env_var_turns_the_path_off():
    code = "import ember; print(ember._C._bf16_gemm_available())"
    env = dict(os.environ, EMBER_BF16_GEMM="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("threads", [1, 2])
def test_thread_counts_give_one_result(threads):
    a, an = bf16((200, 300))
    b, bn = bf16((300, 150))
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        check(a @ b, *mm_ref(an, bn))
    finally:
        ember.set_num_threads(old)
