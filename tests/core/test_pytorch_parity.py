"""Regression tests for places where ember differed from PyTorch (found by running the same
expressions through both). Expected values come from NumPy or are written out as PyTorch
documents them; PyTorch itself is not imported."""
import copy
import math
import pickle

import numpy as np
import pytest

import ember as e


def arr(t):
    return np.array(t.numpy(), copy=True)


# --- arithmetic -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [e.float16, e.bfloat16, e.float32, e.float64])
def test_neg_of_zero_is_negative_zero(dtype):
    for r in (-e.tensor([0.0, -0.0], dtype=dtype), e.neg(e.tensor([0.0, -0.0], dtype=dtype)),
              e.tensor([0.0, -0.0], dtype=dtype).neg_()):
        got = arr(r.to(e.float64))
        np.testing.assert_array_equal(np.signbit(got), [True, False])


def test_complex_integer_powers_multiply_as_numpy_does():
    z = np.array([1 + 1j, 2 - 3j, 0j, complex(np.inf, 1), -0.5 + 0.25j], dtype=np.complex128)
    t = e.tensor(z)
    assert (e.tensor([1 + 1j]) ** 2).tolist() == [2j]  # exactly, not -8.7e-08+2j
    assert e.square(e.tensor([1 + 1j], dtype=e.complex64)).tolist() == [2j]
    assert (e.tensor([0j]) ** 0).tolist() == [1 + 0j]
    assert (e.tensor([0j]) ** e.tensor([0j])).tolist() == [1 + 0j]
    finite_nonzero = np.isfinite(z) & (z != 0)  # 1/0 and inf**-n: C++ and NumPy pick different NaN parts
    with np.errstate(all="ignore"):
        for n in (2, 3, 5, -1, -2):
            got, want = arr(t ** n), np.power(z, n)
            keep = finite_nonzero if n < 0 else np.ones(z.shape, bool)
            np.testing.assert_allclose(got[keep], want[keep], rtol=1e-15, equal_nan=True)
        np.testing.assert_allclose(arr(t ** 0.5), np.power(z, 0.5), rtol=1e-15)


@pytest.mark.parametrize("expr", [
    lambda: e.tensor([True, False]) - e.tensor([True, True]),
    lambda: e.sub(e.tensor([True]), e.tensor([False])),
])
def test_sub_of_two_bools_is_refused(expr):
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported. Use the `\\^` or `logical_xor"):
        expr()


@pytest.mark.parametrize("expr", [
    lambda: e.tensor([True, False]) - 3,
    lambda: 2.5 - e.tensor([True]),
    lambda: e.tensor([1, 2]) - True,
    lambda: True - e.tensor([1.0]),
    lambda: e.tensor([1.0]).sub_(True),
    lambda: e.sub(e.tensor([1]), e.tensor([True]), out=e.empty(1, dtype=e.int64)),
])
def test_sub_with_a_bool_operand_is_refused(expr):
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported. If you are trying to invert a mask"):
        expr()


@pytest.mark.parametrize("expr,message", [
    (lambda: e.tensor([1, 2]).add(e.tensor([1, 1]), alpha=0.5), "argument alpha must not be a floating point"),
    (lambda: e.tensor([1, 2]).add_(e.tensor([1, 1]), alpha=0.5), "argument alpha must not be a floating point"),
    (lambda: e.sub(e.tensor([1], dtype=e.uint8), 1, alpha=1.5), "argument alpha must not be a floating point"),
    (lambda: e.add(e.tensor([True]), e.tensor([True]), alpha=0.5), "argument alpha must not be a floating point"),
    (lambda: e.add(e.tensor([1.0]), e.tensor([1.0]), alpha=True), "Boolean alpha only supported for Boolean results"),
    (lambda: e.add(e.tensor([1.0]), e.tensor([1.0]), alpha=1j), "alpha must not be a complex number"),
])
def test_alpha_that_does_not_fit_the_result_is_refused(expr, message):
    # A float alpha on integers would be truncated (SGD on an integer tensor would silently do nothing).
    with pytest.raises(RuntimeError, match=message):
        expr()


def test_alpha_that_fits_the_result_is_applied():
    assert e.add(e.tensor([1, 2]), e.tensor([1, 1]), alpha=3).tolist() == [4, 5]
    assert e.add(e.tensor([True]), e.tensor([False]), alpha=True).tolist() == [True]
    assert e.add(e.tensor([1, 2]), 1.5, alpha=2).tolist() == [4.0, 5.0]        # the result is float
    assert e.sub(e.tensor([1.0j]), e.tensor([1.0]), alpha=2j).tolist() == [-1j]


def test_integer_tensor_to_negative_python_int_is_refused():
    for expr in (lambda: e.tensor([2, 3]) ** -1, lambda: e.pow(e.tensor([2], dtype=e.uint8), -2),
                 lambda: e.tensor([2, 3]).pow_(-1), lambda: e.tensor([True]) ** -1):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            expr()
    t = e.tensor([2, 3])
    with pytest.raises(RuntimeError, match="negative integer powers"):
        t **= -1
    # a tensor of negative exponents is integer arithmetic; a float exponent or base is fine
    assert (e.tensor([1, -1, 2]) ** e.tensor([-1, -3, -1])).tolist() == [1, -1, 0]
    assert (e.tensor([2, 4]) ** -1.0).tolist() == [0.5, 0.25]
    assert (e.tensor([2.0]) ** -1).tolist() == [0.5]
    assert e.pow(2, e.tensor([-1, 1])).tolist() == [0, 2]


def test_unary_plus_refuses_bool():
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        +e.tensor([True])
    t = e.tensor([1, 2])
    assert +t is t


def test_float_power_in_place_needs_a_float64_base():
    t = e.tensor([2.0, 3.0], dtype=e.float64)
    assert t.float_power_(2) is t and t.tolist() == [4.0, 9.0]
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype float32 but the operation's "
                                           "result requires dtype float64"):
        e.tensor([2.0]).float_power_(2)
    with pytest.raises(RuntimeError, match="requires dtype complex128"):
        e.tensor([2.0], dtype=e.float64).float_power_(1j)


def test_lerp_takes_a_zero_dim_weight_of_another_dtype():
    a, b = e.tensor([1.0, 2.0]), e.tensor([3.0, 4.0])
    for w in (e.tensor(0.5, dtype=e.float64), e.tensor(0.5, dtype=e.float16)):
        r = e.lerp(a, b, w)
        assert r.dtype == e.float32 and r.tolist() == [2.0, 3.0]
    assert e.lerp(a, b, e.tensor(1)).tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match="expected dtype float32 for `weight` but got dtype float64"):
        e.lerp(a, b, e.tensor([0.5], dtype=e.float64))


def test_float_to_int32_cast_of_nan_inf_and_out_of_range_is_int32_min():
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 1.9], dtype=np.float32)
    got = e.tensor(x).to(e.int32).tolist()
    assert got == [-2**31] * 5 + [1]  # as x.astype(np.int32) gives on x86 (and PyTorch)
    assert e.tensor([300.7, -1.5]).to(e.int8).tolist() == [44, -1]  # narrower types keep the low bits


# --- Python numbers converted to a dtype (checked as PyTorch checks them) ---------------------

def test_full_checks_the_fill_value_against_the_dtype():
    assert e.full((2,), -1, dtype=e.uint8).tolist() == [255, 255]  # negative ints wrap into unsigned
    assert e.full((2,), 1 + 0j, dtype=e.float32).tolist() == [1.0, 1.0]
    assert e.full((1,), -255, dtype=e.uint8).tolist() == [1]
    for value, dtype in ((256, e.uint8), (-256, e.uint8), (2**40, e.int32), (float("nan"), e.int32),
                         (1e6, e.float16), (1e39, e.bfloat16), (1e300, e.float32), (1 + 1j, e.float32)):
        with pytest.raises(RuntimeError, match="value cannot be converted to type .* without overflow"):
            e.full((2,), value, dtype=dtype)
    assert math.isinf(e.full((1,), float("inf"), dtype=e.float16).item())
    with pytest.raises(RuntimeError, match="without overflow"):
        e.full_like(e.ones(2), 1j)  # was silently 0.0
    assert e.full_like(e.ones(2, dtype=e.uint8), -1).tolist() == [255, 255]


def test_setitem_with_a_number_checks_it_against_the_dtype():
    t = e.zeros(2, 3, dtype=e.uint8)
    t[0] = -255
    assert t[0].tolist() == [1, 1, 1]
    for dtype, value in ((e.uint8, 300), (e.int64, 1 + 2j), (e.float32, 1 + 2j), (e.int32, float("nan")),
                         (e.int32, 2**40)):
        with pytest.raises(RuntimeError, match="without overflow"):
            e.zeros(2, dtype=dtype)[0] = value
    h = e.zeros(2, dtype=e.float16)
    h[0] = 1e6  # floats round to inf, as a cast does
    assert math.isinf(h[0].item())
    i = e.zeros(2, dtype=e.int64)
    i[1] = 1 + 0j
    i[0] = 2.9
    assert i.tolist() == [2, 1]


def test_where_and_clamp_check_python_number_operands():
    c = e.tensor([True, False])
    u = e.tensor([1, 2], dtype=e.uint8)
    assert e.where(c, u, -1).tolist() == [1, 255]
    for bad in (300, -256):
        with pytest.raises(RuntimeError, match="cannot be converted to type uint8 without overflow"):
            e.where(c, u, bad)
    with pytest.raises(RuntimeError, match="cannot be converted to type int8 without overflow"):
        e.clamp(e.tensor([1, 2], dtype=e.int8), 1000)
    with pytest.raises(RuntimeError, match="cannot be converted to type float16 without overflow"):
        e.clamp(e.tensor([1.0], dtype=e.float16), 1e6)


# --- ember.tensor() ---------------------------------------------------------------------------

@pytest.mark.parametrize("data,dtype", [
    ([np.int32(1), 2], e.int64),
    ([np.int32(1), np.int8(2)], e.int32),
    ([np.uint8(1), np.int8(2)], e.int16),
    ([np.float16(1), 2], e.float16),
    ([np.float16(1), 2.5], e.float32),
    ([np.float64(1.5), np.float32(2.5)], e.float64),
    ([np.complex64(1), 2.5], e.complex64),
    ([np.bool_(True), np.bool_(False)], e.bool),
    ([np.array([1.0, 2.0]), np.array([3.0, 4.0])], e.float64),
    ([np.array([1, 2], dtype=np.int32), [3, 4]], e.int64),
    ([[3.5, 4], e.tensor([1, 2], dtype=e.int32)], e.float32),
    ([e.tensor(1, dtype=e.int32), e.tensor(2, dtype=e.int8)], e.int32),
    ([e.tensor(1.0, dtype=e.float64), 2.5], e.float64),
    ([e.tensor(1.0, dtype=e.float16), 2.5], e.float32),
])
def test_tensor_infers_dtype_from_numpy_scalars_and_tensors(data, dtype):
    # every number promotes with the others (PyTorch's rule); NumPy scalars keep their dtype
    assert e.tensor(data).dtype == dtype


def test_tensor_takes_tensors_with_dims_as_rows():
    t = e.tensor([[1, 2], e.tensor([3, 4]), e.arange(6).reshape(2, 3)[:, 0]])
    assert t.tolist() == [[1, 2], [3, 4], [0, 3]]
    assert e.tensor([e.tensor([1.0, 2.0]), e.tensor([3.0, 4.0])]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(ValueError, match="expected sequence of length 2"):
        e.tensor([e.zeros(2), e.zeros(3)])


def test_tensor_with_huge_ints_in_a_float_result():
    assert e.tensor([2**64, 1.5]).tolist() == [float(2**64), 1.5]
    assert e.tensor(2**63, dtype=e.float64).item() == 2.0**63
    assert e.tensor(2**64, dtype=e.complex64).item() == complex(2**64)
    with pytest.raises(ValueError, match="does not fit in int64"):
        e.tensor([2**64, 1])


def test_tensor_checks_numbers_against_an_integer_dtype():
    assert e.tensor(-1, dtype=e.uint8).item() == 255
    assert e.tensor([5.7, -5.7], dtype=e.int32).tolist() == [5, -5]
    assert e.tensor([2, 0.5, 1j], dtype=e.bool).tolist() == [True, True, True]
    assert math.isinf(e.tensor(1e6, dtype=e.float16).item())  # floats may round to inf
    for data, dtype in (([1.5, 1e10], e.int32), ([float("nan")], e.int32), ([-255, -256], e.uint8),
                        (-0.5, e.uint8), (255.9, e.uint8), ([np.float64(300.0)], e.uint8),
                        ([e.tensor(300)], e.uint8)):
        with pytest.raises(RuntimeError, match="without overflow"):
            e.tensor(data, dtype=dtype)
    for dtype in (e.float32, e.int32):
        with pytest.raises(TypeError, match="can't convert complex"):
            e.tensor([1 + 1j], dtype=dtype)
    assert e.tensor(np.array([300]), dtype=e.uint8).tolist() == [44]  # an array is cast as a whole


# --- fill_, zero_, copy_, view(dtype) ---------------------------------------------------------

def test_fill_and_zero():
    t = e.zeros(2, 3)
    assert t.fill_(2.5) is t and t.tolist() == [[2.5] * 3] * 2
    assert t.zero_() is t and t.tolist() == [[0.0] * 3] * 2
    assert e.zeros(2, dtype=e.int32).fill_(2.7).tolist() == [2, 2]
    assert e.zeros(2, dtype=e.uint8).fill_(-1).tolist() == [255, 255]
    assert e.zeros(2).fill_(e.tensor(7, dtype=e.int8)).tolist() == [7.0, 7.0]
    assert e.zeros(2, dtype=e.bool).fill_(5).tolist() == [True, True]
    base = e.zeros(4)
    base[::2].fill_(1)
    assert base.tolist() == [1.0, 0.0, 1.0, 0.0]
    x = e.zeros(3).expand(2, 3)  # writing through broadcast dims is allowed, as in PyTorch
    x.fill_(3)
    assert x.tolist() == [[3.0] * 3] * 2
    f = e.fill(e.zeros(2, 3, dtype=e.int16), 4)
    assert f.dtype == e.int16 and f.tolist() == [[4] * 3] * 2
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 dim"):
        e.zeros(2).fill_(e.tensor([7]))
    for bad in (256, 1j):
        with pytest.raises(RuntimeError, match="without overflow"):
            e.zeros(2, dtype=e.uint8).fill_(bad)
    with pytest.raises(TypeError):
        e.zeros(2).fill_("a")


def test_copy_():
    t = e.zeros(2, 3)
    assert t.copy_(e.tensor([1, 2, 3])) is t  # broadcast and cast
    assert t.tolist() == [[1.0, 2.0, 3.0]] * 2
    assert e.zeros(3, dtype=e.int32).copy_(e.tensor([1.7, -1.7, 2.0])).tolist() == [1, -1, 2]
    assert e.zeros(2).copy_(e.tensor([1 + 2j, 3])).tolist() == [1.0, 3.0]
    assert e.zeros(2).copy_(5).tolist() == [5.0, 5.0]
    a = e.arange(6.0).reshape(2, 3)
    a.copy_(a.flip(1))  # overlapping source is read before it is written
    assert a.tolist() == [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        e.zeros(2, 3).copy_(e.ones(3, 2))
    with pytest.raises(RuntimeError, match="single memory location"):
        e.zeros(3).expand(2, 3).copy_(e.ones(2, 3))
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        e.zeros(2).copy_(e.zeros(2, device="meta"))


@pytest.mark.parametrize("src,dst", [("int64", "int32"), ("int64", "float64"), ("int16", "int8"), ("int8", "int16"),
                                     ("float32", "int32"), ("complex64", "float32"), ("float64", "complex128"),
                                     ("bool", "uint8")])
def test_view_dtype_matches_numpy_view(src, dst):
    a = np.arange(24).reshape(2, 3, 4).astype(src)
    got = e.tensor(a).view(getattr(e, dst))
    want = a.view(dst)
    assert got.dtype == getattr(e, dst) and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(arr(got), want)
    assert e.tensor(a).view(dtype=getattr(e, dst)).shape == want.shape


def test_view_dtype_rules():
    t = e.arange(8, dtype=e.int16).reshape(2, 4)
    v = t[:, 2:].view(e.int32)
    assert v.shape == (2, 1) and v.stride() == (2, 1) and v.storage_offset() == 1
    v[0, 0] = 0  # a view: writes show in the base
    assert t[0].tolist() == [0, 1, 0, 0]
    assert e.tensor(1.5).view(e.int32).item() == 1069547520
    bf = e.tensor([1.0, 2.0], dtype=e.bfloat16).view(e.int16)
    assert bf.tolist() == [16256, 16384]
    with pytest.raises(RuntimeError, match="self.storage_offset\\(\\) must be divisible by 2"):
        t[:, 1:3].view(e.int32)
    with pytest.raises(RuntimeError, match="self.size\\(-1\\) must be divisible by 2"):
        e.arange(6, dtype=e.int16).reshape(2, 3).view(e.int32)
    with pytest.raises(RuntimeError, match="self.stride\\(-1\\) must be 1"):
        e.zeros(2, 3).t().view(e.int8)
    with pytest.raises(RuntimeError, match="self.dim\\(\\) cannot be 0"):
        e.tensor(1.5).view(e.int16)
    assert e.zeros(4, 2)[:, :1].view(e.float16).shape == (4, 2)


# --- indexing ---------------------------------------------------------------------------------

def test_setitem_drops_leading_size_one_dims_of_the_value():
    a = e.zeros(2, 3)
    a[0] = e.tensor([[1.0, 2.0, 3.0]])
    a[1, 0] = e.tensor([[7.0]])
    a[1, 1:] = e.tensor([[[8.0, 9.0]]])
    assert a.tolist() == [[1.0, 2.0, 3.0], [7.0, 8.0, 9.0]]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        a[0] = e.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def test_false_index_adds_an_empty_dim_strided_like_none():
    a = e.arange(24).reshape(2, 3, 4)
    assert a[False].shape == (0, 2, 3, 4) and a[False].stride() == a[None].stride()
    assert a[:, False].stride() == a[:, None].stride()


def test_int_arguments_take_one_element_integer_tensors():
    assert e.zeros(e.tensor(3)).shape == (3,)
    assert e.zeros((e.tensor(2), 3)).shape == (2, 3)
    assert e.arange(10).narrow(0, e.tensor(2), 3).tolist() == [2, 3, 4]
    assert e.arange(10).select(0, e.tensor(-1)).item() == 9
    with pytest.raises(TypeError):
        e.zeros(e.tensor(3.0))


def test_index_overflow_is_a_value_error():
    with pytest.raises(ValueError, match="does not fit in int64"):
        e.arange(10)[10**30]


def test_roll_of_a_zero_dim_tensor_with_a_dim():
    assert e.roll(e.tensor(3), 1).item() == 3
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        e.roll(e.tensor(3), 1, 0)


# --- Python protocols -------------------------------------------------------------------------

def test_number_conversions_of_complex_and_multi_element_tensors():
    assert complex(e.tensor(1 + 2j)) == 1 + 2j
    assert complex(e.tensor(2)) == 2 + 0j
    assert float(e.tensor(1 + 0j)) == 1.0 and int(e.tensor(2.9 + 0j)) == 2
    for f in (float, int):
        with pytest.raises(RuntimeError, match="without overflow"):
            f(e.tensor(1 + 1j))
    for f in (float, int, complex):
        with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
            f(e.tensor([1, 2]))


def test_reversed_and_contains():
    assert list(reversed(e.tensor([1, 2, 3]))) == [e.tensor(3), e.tensor(2), e.tensor(1)]
    assert reversed(e.tensor([[1, 2], [3, 4]])).tolist() == [[3, 4], [1, 2]]
    assert reversed(e.tensor(3)).item() == 3
    t = e.tensor([[1, 2], [3, 4]])
    assert 2 in t and 2.0 in t and 5 not in t and 2.5 not in t
    assert e.tensor([1, 5]) in t and e.tensor([9, 9]) not in t
    assert 1 not in e.tensor([]) and float("nan") not in e.tensor([float("nan")])
    with pytest.raises(RuntimeError, match="Tensor.__contains__ only supports Tensor or scalar"):
        "a" in t


def test_deepcopy_and_pickle_copy_values_dtype_and_layout():
    a = e.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    b = copy.deepcopy(a)
    assert b.tolist() == a.tolist() and b.stride() == (1, 2)
    b[0, 0] = 9
    assert a[0, 0].item() == 1.0
    memo = {}
    assert copy.deepcopy([a, a], memo)[0] is copy.deepcopy(a, memo)
    for t in (a, e.arange(10)[::3], e.tensor(3.5, dtype=e.bfloat16), e.zeros(0, 3, dtype=e.complex128),
              e.tensor([True, False]), e.ones(3).expand(2, 3), e.tensor([1 + 2j], dtype=e.complex64)):
        r = pickle.loads(pickle.dumps(t))
        assert r.dtype == t.dtype and r.shape == t.shape and r.to(e.float64 if not r.is_complex() else
                                                                  e.complex128).tolist() == \
            t.to(e.float64 if not t.is_complex() else e.complex128).tolist()
    assert pickle.loads(pickle.dumps(a)).stride() == (1, 2)
    assert copy.copy(a).tolist() == a.tolist()


def test_numpy_ufuncs_give_tensors_back():
    r = np.sin(e.tensor([1.0, 2.0]))
    assert isinstance(r, e.Tensor) and r.dtype == e.float32
    np.testing.assert_allclose(arr(r), np.sin(np.array([1.0, 2.0], np.float32)))
    z = np.negative(e.tensor(3.0))
    assert isinstance(z, e.Tensor) and z.shape == () and z.item() == -3.0
    g = np.greater(e.tensor([1, 2]), 1)
    assert g.dtype == e.bool and g.tolist() == [False, True]  # PyTorch gives uint8 here
    s = e.tensor([1, 2], dtype=e.float32) + np.array([1.5, 2.5])  # NumPy computes: float64
    assert isinstance(s, e.Tensor) and s.dtype == e.float64 and s.tolist() == [2.5, 4.5]


def test_comparing_with_an_array_is_elementwise():
    t = e.tensor([1, 2])
    assert (t == np.array([1, 3])).tolist() == [True, False]  # was False (identity)
    assert (t != np.array([1, 3])).tolist() == [False, True]
    assert (t < np.array([2, 2])).tolist() == [True, False]
    assert (np.array([1, 3]) == t).tolist() == [True, False]


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_numpy(name):
    fi, nf = e.finfo(getattr(e, name)), np.finfo(name)
    assert (fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution, fi.dtype) == \
        (nf.bits, float(nf.eps), float(nf.max), float(nf.min), float(nf.tiny), float(nf.smallest_normal),
         10.0 ** -nf.precision, name)


def test_finfo_bfloat16_complex_and_default():
    bf = e.finfo(e.bfloat16)
    assert (bf.bits, bf.eps, bf.tiny, bf.resolution) == (16, 2.0**-7, 2.0**-126, 0.01)
    assert bf.max == float(e.tensor(3.3895313892515355e38, dtype=e.bfloat16).item())
    assert e.finfo(e.complex64).dtype == "float32" and e.finfo(e.complex128).eps == np.finfo(np.float64).eps
    assert e.finfo().dtype == "float32"
    with pytest.raises(TypeError, match="requires a floating point input type"):
        e.finfo(e.int32)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_numpy(name):
    ii, ni = e.iinfo(getattr(e, name)), np.iinfo(name)
    assert (ii.bits, ii.min, ii.max, ii.dtype) == (ni.bits, int(ni.min), int(ni.max), name)


def test_iinfo_refuses_floats_and_bool():
    for dt in (e.float32, e.bool):
        with pytest.raises(TypeError, match="requires an integer input type"):
            e.iinfo(dt)


def test_dtype_predicates_and_get_device():
    assert e.is_floating_point(e.ones(2)) and not e.is_floating_point(e.ones(2, dtype=e.int32))
    assert e.is_complex(e.ones(2, dtype=e.complex64)) and not e.is_complex(e.ones(2))
    assert e.is_nonzero(e.tensor([1])) is True and e.is_nonzero(e.tensor([0.0])) is False
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        e.is_nonzero(e.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        e.is_nonzero(e.tensor([]))
    assert e.ones(2).get_device() == -1


# --- layouts of new tensors (PyTorch's preserve_format) -----------------------------------------

def test_like_ops_keep_a_dense_layout_and_densify_others_in_order():
    assert e.zeros_like(e.ones(3).expand(2, 3)).stride() == (3, 1)  # broadcast dims take no part
    assert e.empty_like(e.ones(4, 1, 3).permute(2, 1, 0)).stride() == (1, 3, 3)  # dense: kept as is
    assert e.zeros_like(e.ones(3, 1, 2).permute(1, 2, 0)).stride() == (2, 1, 2)
    assert e.ones_like(e.ones(4, 6).t()[::2]).stride() == (1, 3)  # not dense: dense in the same order
    assert e.ones(4, 6).t()[::2].clone().stride() == (1, 3)
    assert e.ones(3).expand(2, 3).to(e.float64).stride() == (3, 1)
    assert (e.ones(3).expand(2, 3) + 1).stride() == (3, 1)


def test_forced_notation_sets_the_width():
    e.set_printoptions(sci_mode=False)
    try:
        assert repr(e.tensor([1e-10, 1e10])) == "tensor([          0.0000, 10000000000.0000])"
    finally:
        e.set_printoptions(profile="default")
    e.set_printoptions(sci_mode=True)
    try:
        assert repr(e.tensor([1.5, 2.0])) == "tensor([1.5000e+00, 2.0000e+00])"
    finally:
        e.set_printoptions(profile="default")


def test_size_holds_ints():
    s = e.Size([2, 3])
    assert isinstance(s * 2, e.Size) and s * 2 == (2, 3, 2, 3) and isinstance(2 * s, e.Size)
    assert e.Size([e.tensor(2), np.int64(3)]) == (2, 3)
    with pytest.raises(TypeError, match="takes an iterable of 'int' \\(item 0 is 'float'\\)"):
        e.Size([2.5])
    assert pickle.loads(pickle.dumps(e.ones(2, 3).shape)) == (2, 3)


def test_asarray_copy_argument():
    a = np.array([1, 2])
    shared, copied = e.asarray(a), e.asarray(a, copy=True)
    a[0] = 5
    assert shared.tolist() == [5, 2] and copied.tolist() == [1, 2]
    assert e.asarray(a, copy=False).tolist() == [5, 2]
    t = e.ones(2)
    assert e.asarray(t) is t and e.asarray(t, copy=False) is t
    for obj, kw in (([1, 2], {}), (t, {"dtype": e.float64})):
        with pytest.raises(ValueError, match="copy=False"):
            e.asarray(obj, copy=False, **kw)


def test_interop_errors_are_type_errors():
    with pytest.raises(TypeError, match="from_dlpack\\(\\): expected a tensor, an object with __dlpack__"):
        e.from_dlpack(3)
    with pytest.raises(TypeError, match="meta"):
        e.zeros(2, device="meta").numpy()


def test_complex_to_bool_tests_both_parts():
    z = np.array([1 + 2j, -3j, 0j, complex(0, -0.0)], dtype=np.complex64)
    np.testing.assert_array_equal(arr(e.tensor(z).to(e.bool)), z.astype(bool))  # -3j is True
    np.testing.assert_array_equal(arr(e.tensor(z).bool()), [True, True, False, False])
    b = e.zeros(4, dtype=e.bool)
    b.copy_(e.tensor(z))
    assert b.tolist() == [True, True, False, False]


def test_to_an_int_device_index():
    # A bare index names an accelerator device; PyTorch's CPU build refuses it with this message.
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        e.ones(2).to(0)


def test_sgn_of_infinite_complex_points_along_its_axis():
    inf, nan = float("inf"), float("nan")
    z = np.array([complex(inf, 0), complex(-inf, 2), complex(1, -inf), complex(inf, inf), complex(nan, 0),
                  3 + 4j, 0j], dtype=np.complex128)
    got = arr(e.sgn(e.tensor(z)))
    want = np.array([1, -1, -1j, complex(nan, nan), complex(nan, nan), 0.6 + 0.8j, 0])  # NumPy 2's np.sign
    np.testing.assert_allclose(got, want, rtol=1e-15, equal_nan=True)
