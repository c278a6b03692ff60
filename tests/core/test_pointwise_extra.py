"""Behaviour of the unary/pointwise/complex ops that the generic op tests cannot see: special
values (NaN, inf, poles), the Python-bool ops (allclose, equal), views (real/imag), Python-number
operands, and the errors PyTorch raises for bad input. References are NumPy/SciPy."""
import math
from decimal import Decimal, getcontext

import numpy as np
import pytest
from scipy import special

import ember

NAN, INF = float("nan"), float("inf")
SPECIAL = [0.0, -0.0, 1.5, -2.5, NAN, INF, -INF]


def arr(t):
    return np.array(t.numpy(), copy=True)


# --- special values -------------------------------------------------------------------------

@pytest.mark.parametrize("name,ref", [
    ("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
    ("isposinf", np.isposinf), ("isneginf", np.isneginf),
])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_classification_of_special_values(name, ref, dtype):
    t = ember.tensor(SPECIAL).to(getattr(ember, dtype))
    got = getattr(ember, name)(t)
    assert got.dtype == ember.bool
    np.testing.assert_array_equal(arr(got), ref(np.array(SPECIAL)))


@pytest.mark.parametrize("name,ref", [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
                                      ("isreal", np.isreal)])
def test_classification_of_complex(name, ref):
    z = np.array([complex(NAN, 0), complex(0, NAN), complex(INF, 1), complex(1, -INF), 1 + 0j, 2 - 3j])
    np.testing.assert_array_equal(arr(getattr(ember, name)(ember.tensor(z))), ref(z))


def test_classification_of_integers():
    t = ember.tensor([1, -2, 0], dtype=ember.int16)
    np.testing.assert_array_equal(arr(ember.isnan(t)), [False] * 3)
    np.testing.assert_array_equal(arr(ember.isfinite(t)), [True] * 3)
    np.testing.assert_array_equal(arr(ember.isreal(t)), [True] * 3)


def test_isposinf_rejects_complex():
    with pytest.raises((TypeError, RuntimeError), match="complex64"):
        ember.isposinf(ember.tensor([1 + 1j], dtype=ember.complex64))


@pytest.mark.parametrize("dtype,big", [("float16", 65504.0), ("bfloat16", 3.3895313892515355e38),
                                       ("float32", float(np.finfo(np.float32).max)),
                                       ("float64", float(np.finfo(np.float64).max))])
def test_nan_to_num_defaults_are_the_dtype_limits(dtype, big):
    t = ember.tensor([NAN, INF, -INF, 1.25]).to(getattr(ember, dtype))
    got = arr(ember.nan_to_num(t).to(ember.float64))
    np.testing.assert_array_equal(got, [0.0, big, -big, 1.25])
    got = arr(ember.nan_to_num(t, nan=2.0, posinf=3.0, neginf=-4.0).to(ember.float64))
    np.testing.assert_array_equal(got, [2.0, 3.0, -4.0, 1.25])


def test_nan_to_num_complex_replaces_each_part():
    z = np.array([complex(NAN, INF), complex(-INF, 2.0)])
    got = arr(ember.nan_to_num(ember.tensor(z), nan=1.0, posinf=5.0, neginf=-5.0))
    np.testing.assert_array_equal(got, np.nan_to_num(z, nan=1.0, posinf=5.0, neginf=-5.0))


def test_nan_to_num_in_place_and_out():
    t = ember.tensor([NAN, 1.0, -INF])
    assert t.nan_to_num_(neginf=-1.0) is t
    np.testing.assert_array_equal(arr(t), [0.0, 1.0, -1.0])
    out = ember.tensor([0.0, 0.0, 0.0])
    ember.nan_to_num(ember.tensor([INF, NAN, 3.0]), posinf=9.0, out=out)
    np.testing.assert_array_equal(arr(out), [9.0, 0.0, 3.0])


def test_digamma_poles_and_zero_signs():
    # PyTorch: digamma(+0) = -inf, digamma(-0) = +inf, NaN at negative integers.
    got = arr(ember.digamma(ember.tensor([0.0, -0.0, -1.0, -2.0, 1.0, INF], dtype=ember.float64)))
    np.testing.assert_array_equal(got[:4], [-INF, INF, NAN, NAN])
    np.testing.assert_allclose(got[4], special.digamma(1.0), rtol=1e-15)
    assert got[5] == INF


def test_digamma_near_and_far():
    x = np.array([1e-300, -1e-10, -7.5, 1e-8, 1.4616321449683622, 1e10, -1e6 + 0.25])
    np.testing.assert_allclose(arr(ember.digamma(ember.tensor(x))), special.digamma(x), rtol=1e-12, atol=1e-15)


def test_lgamma_poles():
    got = arr(ember.lgamma(ember.tensor([0.0, -1.0, -2.0, 1.0, 2.0])))
    np.testing.assert_array_equal(got, [INF, INF, INF, 0.0, 0.0])


def test_erfinv_ends_and_tails():
    got = arr(ember.erfinv(ember.tensor([1.0, -1.0, 1.5, -2.0, 0.0, NAN], dtype=ember.float64)))
    np.testing.assert_array_equal(got, [INF, -INF, NAN, NAN, 0.0, NAN])
    x = np.array([1 - 2.0 ** -52, -(1 - 1e-12), 1e-300, 0.5, 0.999, 1e-9])
    np.testing.assert_allclose(arr(ember.erfinv(ember.tensor(x))), special.erfinv(x), rtol=1e-14)
    x32 = np.array([0.9999999, -0.3, 1e-30], dtype=np.float32)
    np.testing.assert_allclose(arr(ember.erfinv(ember.tensor(x32))),
                               special.erfinv(x32.astype(np.float64)).astype(np.float32), rtol=1e-6)


def test_logit_eps_and_ends():
    t = ember.tensor([0.0, 1.0, 0.5, 0.05, 1.5], dtype=ember.float64)
    got = arr(ember.logit(t))
    np.testing.assert_array_equal(got[:3], [-INF, INF, 0.0])
    assert np.isnan(got[4])
    np.testing.assert_allclose(arr(ember.logit(t, eps=0.1)), special.logit(np.clip(arr(t), 0.1, 0.9)), rtol=1e-14)
    # integers promote to the default float dtype
    assert ember.logit(ember.tensor([0, 1])).dtype == ember.float32


def test_sgn_of_complex():
    z = np.array([3 + 4j, 0j, -2 + 0j, 1e300 + 1e300j])
    np.testing.assert_allclose(arr(ember.sgn(ember.tensor(z))), [0.6 + 0.8j, 0j, -1 + 0j, (1 + 1j) / math.sqrt(2)],
                               rtol=1e-15)


def test_sign_rejects_complex():
    with pytest.raises((TypeError, RuntimeError), match="complex64"):
        ember.sign(ember.tensor([1 + 1j]))


def _exact_expm1_log1p(z):
    """expm1(z) and log1p(z) for complex z, computed with 60-digit decimals (NumPy's complex
    log1p/expm1 cancel near 0, so they cannot be the reference there)."""
    getcontext().prec = 60
    x, y = Decimal(z.real), Decimal(z.imag)
    cos, sin, term = Decimal(0), Decimal(0), Decimal(1)
    for n in range(80):  # Taylor series of cos y and sin y
        if n % 2 == 0:
            cos += term if n % 4 == 0 else -term
        else:
            sin += term if n % 4 == 1 else -term
        term = term * y / (n + 1)
    e = x.exp()
    expm1 = complex(float(e * cos - 1), float(e * sin))
    log1p = complex(float(((1 + x) ** 2 + y * y).ln() / 2), math.atan2(z.imag, 1 + z.real))
    return expm1, log1p


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_expm1_log1p_complex_near_zero(dtype):
    z = np.array([1e-9 + 1e-9j, -1e-7 + 2e-8j, 1e-20j, 0.3 - 0.2j, 2 + 3j, -0.25 + 0.4j])
    t = ember.tensor(z).to(getattr(ember, dtype))
    zz = arr(t).astype(np.complex128)
    want = [_exact_expm1_log1p(v) for v in zz]
    # float32 results below its smallest normal (1.2e-38) are subnormal and carry fewer bits
    rtol, atol = (1e-6, 1.2e-38) if dtype == "complex64" else (1e-15, 0)
    for got, ref in ((arr(ember.expm1(t)), [w[0] for w in want]), (arr(ember.log1p(t)), [w[1] for w in want])):
        np.testing.assert_allclose(got.real, np.real(ref), rtol=rtol, atol=atol)
        np.testing.assert_allclose(got.imag, np.imag(ref), rtol=rtol, atol=atol)


def test_frac_keeps_sign():
    x = np.array([2.75, -2.75, -0.5, 3.0])
    np.testing.assert_array_equal(arr(ember.frac(ember.tensor(x))), x - np.trunc(x))


def test_frac_rejects_integers():
    with pytest.raises((TypeError, RuntimeError), match="int64"):
        ember.frac(ember.tensor([1, 2]))


def test_rounding_ops_keep_integer_dtypes():
    t = ember.tensor([-3, 0, 7], dtype=ember.int32)
    for name in ("floor", "ceil", "trunc", "fix", "round"):
        got = getattr(ember, name)(t)
        assert got.dtype == ember.int32
        np.testing.assert_array_equal(arr(got), [-3, 0, 7])


# --- round with decimals --------------------------------------------------------------------

def test_round_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -2.5001])
    np.testing.assert_array_equal(arr(ember.round(ember.tensor(x))), np.round(x))


@pytest.mark.parametrize("decimals", [1, 2, 3, -1, -2])
def test_round_decimals(decimals):
    x = np.random.default_rng(3).uniform(-500, 500, size=50)
    got = arr(ember.round(ember.tensor(x), decimals=decimals))
    np.testing.assert_allclose(got, np.round(x, decimals), rtol=1e-15, atol=0)
    assert arr(ember.tensor(x).round(decimals=decimals)).tolist() == got.tolist()


def test_round_decimals_in_place_and_out():
    t = ember.tensor([1.2345, -6.789], dtype=ember.float64)
    out = ember.tensor([0.0, 0.0], dtype=ember.float64)
    ember.round(t, decimals=2, out=out)
    np.testing.assert_allclose(arr(out), [1.23, -6.79], rtol=1e-15)
    assert t.round_(decimals=1) is t
    np.testing.assert_allclose(arr(t), [1.2, -6.8], rtol=1e-15)


def test_round_decimals_rejects_integers():
    with pytest.raises(RuntimeError, match="decimals"):
        ember.round(ember.tensor([1, 2]), decimals=1)


# --- dtype errors -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sqrt", "exp2", "sin", "sigmoid", "erf", "digamma", "reciprocal"])
def test_in_place_float_op_on_integer_tensor(name):
    t = ember.tensor([1, 4, 9])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        getattr(t, name + "_")()


def test_positive_returns_input_and_refuses_bool():
    t = ember.tensor([1.0, -2.0])
    assert ember.positive(t) is t
    assert t.positive() is t
    with pytest.raises(RuntimeError, match="bool"):
        ember.positive(ember.tensor([True]))


def test_square_promotes_bool_like_pow():
    got = ember.square(ember.tensor([True, False]))
    assert got.dtype == ember.int64
    np.testing.assert_array_equal(arr(got), [1, 0])
    t = ember.tensor([1.5, -2.0])
    assert t.square_() is t
    np.testing.assert_array_equal(arr(t), [2.25, 4.0])
    out = ember.tensor([0, 0, 0], dtype=ember.int8)
    ember.square(ember.tensor([3, -4, 12], dtype=ember.int8), out=out)
    np.testing.assert_array_equal(arr(out), np.square(np.array([3, -4, 12], dtype=np.int8)))
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.tensor([True]).square_()


# --- clamp ------------------------------------------------------------------------------------

def test_clamp_needs_a_bound():
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ember.clamp(ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ember.tensor([1.0]).clip(None, None)


def test_clamp_rejects_complex():
    with pytest.raises(TypeError, match="clamp is not supported for complex types"):
        ember.clamp(ember.tensor([1 + 1j]), min=0)


def test_clamp_nan_and_inverted_bounds():
    x = np.array([NAN, -5.0, 0.5, 7.0, INF, -INF])
    got = arr(ember.clamp(ember.tensor(x), min=-1.0, max=2.0))
    np.testing.assert_array_equal(got, np.clip(x, -1.0, 2.0))
    # min > max: every element becomes max
    np.testing.assert_array_equal(arr(ember.clamp(ember.tensor([0.0, 5.0, -5.0]), min=3.0, max=1.0)), [1.0] * 3)
    # a NaN bound gives NaN
    assert np.isnan(arr(ember.clamp(ember.tensor([1.0, 2.0]), min=NAN))).all()


def test_clamp_tensor_bounds_broadcast():
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, (4, 5))
    lo = rng.uniform(-2, 0, (4, 1))
    hi = rng.uniform(0, 2, (5,))
    got = ember.clamp(ember.tensor(x), ember.tensor(lo), ember.tensor(hi))
    np.testing.assert_array_equal(arr(got), np.minimum(np.maximum(x, lo), hi))
    np.testing.assert_array_equal(arr(ember.clamp(ember.tensor(x), max=ember.tensor(hi))), np.minimum(x, hi))
    np.testing.assert_array_equal(arr(ember.tensor(x).clamp_min(ember.tensor(lo))), np.maximum(x, lo))


def test_clamp_promotes_with_its_bounds():
    t = ember.tensor([1, 2, 3])
    got = ember.clamp(t, min=1.5)
    assert got.dtype == ember.float32
    np.testing.assert_array_equal(arr(got), [1.5, 2.0, 3.0])
    got = ember.clamp(t, min=ember.tensor(2.5, dtype=ember.float64))   # 0-dim tensor of a higher category
    assert got.dtype == ember.float64
    with pytest.raises(RuntimeError, match="can't be cast"):
        t.clamp_(min=1.5)
    assert ember.clamp(ember.tensor([1.0], dtype=ember.float16), min=0.5).dtype == ember.float16


def test_clamp_in_place_and_out():
    t = ember.tensor([-2, 0, 9], dtype=ember.int16)
    assert t.clamp_(min=-1, max=5) is t
    np.testing.assert_array_equal(arr(t), [-1, 0, 5])
    out = ember.tensor([0.0, 0.0, 0.0])
    assert ember.clip(ember.tensor([-2.0, 0.0, 9.0]), max=1.0, out=out) is out
    np.testing.assert_array_equal(arr(out), [-2.0, 0.0, 1.0])


def test_clamp_number_bound_must_fit_the_integer_dtype():
    with pytest.raises(RuntimeError, match="-1 cannot be converted to type uint8"):
        ember.clamp(ember.tensor([1, 2], dtype=ember.uint8), min=-1)


# --- where ------------------------------------------------------------------------------------

def test_where_condition_must_be_bool():
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor, but got a tensor "
                                           "with dtype float32"):
        ember.where(ember.tensor([1.0, 0.0]), ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))


def test_where_with_numbers():
    c = np.array([True, False, True])
    got = ember.where(ember.tensor(c), 1.0, 0)
    assert got.dtype == ember.float32          # Python numbers only: the default float dtype
    np.testing.assert_array_equal(arr(got), np.where(c, 1.0, 0))
    got = ember.where(ember.tensor(c), 1, 0)
    assert got.dtype == ember.int64
    got = ember.where(ember.tensor(c), ember.tensor([1, 2, 3], dtype=ember.int8), 2.5)
    assert got.dtype == ember.float32
    np.testing.assert_array_equal(arr(got), [1.0, 2.5, 3.0])


def test_where_promotes_input_and_other():
    c = np.array([[True], [False]])
    a = np.arange(3, dtype=np.int32)
    b = np.array([0.5, 1.5, 2.5])
    got = ember.where(ember.tensor(c), ember.tensor(a), ember.tensor(b))
    assert got.dtype == ember.float64 and tuple(got.shape) == (2, 3)
    np.testing.assert_array_equal(arr(got), np.where(c, a, b))


def test_where_out_and_method():
    c = ember.tensor([True, False])
    x = ember.tensor([1.0, 2.0])
    y = ember.tensor([-1.0, -2.0])
    out = ember.tensor([0.0, 0.0], dtype=ember.float64)
    assert ember.where(c, x, y, out=out) is out
    np.testing.assert_array_equal(arr(out), [1.0, -2.0])


@pytest.mark.skipif(not hasattr(ember.Tensor, "where"),
                    reason="Tensor.where (ember/_tensor_pointwise.py) not mixed into Tensor yet")
def test_where_method_puts_self_second():
    c = ember.tensor([True, False])
    x, y = ember.tensor([1.0, 2.0]), ember.tensor([-1.0, -2.0])
    np.testing.assert_array_equal(arr(x.where(c, y)), [1.0, -2.0])
    np.testing.assert_array_equal(arr(x.where(c, other=0.0)), [1.0, 0.0])


# --- lerp -------------------------------------------------------------------------------------

def test_lerp_number_weight():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(-2, 2, 10), rng.uniform(-2, 2, 10)
    for w in (0.0, 0.25, 0.5, 0.8, 1.0, 2.0):
        got = arr(ember.lerp(ember.tensor(a), ember.tensor(b), w))
        np.testing.assert_allclose(got, a + w * (b - a), rtol=1e-14, atol=1e-15)
    # the ends are exact
    np.testing.assert_array_equal(arr(ember.lerp(ember.tensor(a), ember.tensor(b), 1.0)), b)
    np.testing.assert_array_equal(arr(ember.lerp(ember.tensor(a), ember.tensor(b), 0)), a)


def test_lerp_number_weight_is_not_rounded_to_half():
    a = ember.tensor([0.0, 0.0], dtype=ember.float16)
    b = ember.tensor([1000.0, 2000.0], dtype=ember.float16)
    got = arr(ember.lerp(a, b, 0.3).to(ember.float64))
    np.testing.assert_array_equal(got, np.array([300.0, 600.0], dtype=np.float16).astype(np.float64))


def test_lerp_dtype_errors():
    with pytest.raises(RuntimeError, match="expected dtype float32 for `end` but got dtype float64"):
        ember.lerp(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64), 0.5)
    with pytest.raises(RuntimeError, match="for `weight`"):
        ember.lerp(ember.tensor([1.0]), ember.tensor([2.0]), ember.tensor([0.5], dtype=ember.float64))
    with pytest.raises(TypeError, match="int64"):
        ember.lerp(ember.tensor([1]), ember.tensor([2]), 0.5)


def test_lerp_in_place():
    t = ember.tensor([0.0, 10.0])
    assert t.lerp_(ember.tensor([10.0, 20.0]), 0.5) is t
    np.testing.assert_array_equal(arr(t), [5.0, 15.0])


# --- isclose / allclose / equal ---------------------------------------------------------------

def test_isclose_specials():
    a = np.array([1.0, NAN, INF, INF, -INF, 1e10, 0.0])
    b = np.array([1.0 + 1e-9, NAN, INF, -INF, -INF, 1.00001e10, 1e-9])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.0, "atol": 0.0}, {"atol": 1e-8, "rtol": 0.0}):
        got = arr(ember.isclose(ember.tensor(a), ember.tensor(b), **kw))
        np.testing.assert_array_equal(got, np.isclose(a, b, **kw), err_msg=str(kw))


def test_isclose_small_integers_do_not_wrap():
    a = np.array([0, 255, 10], dtype=np.uint8)
    b = np.array([255, 0, 11], dtype=np.uint8)
    got = arr(ember.isclose(ember.tensor(a), ember.tensor(b), atol=2))
    np.testing.assert_array_equal(got, np.isclose(a.astype(np.float64), b.astype(np.float64), atol=2))


def test_isclose_errors():
    with pytest.raises(RuntimeError, match="float32 did not match float64"):
        ember.isclose(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
        ember.isclose(ember.tensor([1.0]), ember.tensor([1.0]), rtol=-1.0)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero"):
        ember.allclose(ember.tensor([1.0]), ember.tensor([1.0]), atol=-1.0)


def test_allclose():
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (3, 4))
    for b in (a + 1e-9, a + 1e-3, a.copy()):
        for kw in ({}, {"atol": 1e-2}, {"rtol": 0.0, "atol": 0.0}):
            got = ember.allclose(ember.tensor(a), ember.tensor(b), **kw)
            assert isinstance(got, bool)
            assert got == np.allclose(a, b, **kw), kw
    nan = np.array([1.0, NAN])
    assert ember.allclose(ember.tensor(nan), ember.tensor(nan)) is False
    assert ember.tensor(nan).allclose(ember.tensor(nan), equal_nan=True) is True
    # broadcasting, as isclose
    assert ember.allclose(ember.tensor(np.ones((2, 3))), ember.tensor(np.ones(3))) is True


def test_equal():
    a = np.arange(6.0).reshape(2, 3)
    assert ember.equal(ember.tensor(a), ember.tensor(a.copy())) is True
    b = a.copy()
    b[1, 2] = 7
    assert ember.equal(ember.tensor(a), ember.tensor(b)) is False
    assert ember.equal(ember.tensor(a), ember.tensor(a.reshape(3, 2))) is False       # shape differs
    assert ember.equal(ember.tensor(a[0]), ember.tensor(a)) is False                  # no broadcasting
    assert ember.equal(ember.tensor([1, 2]), ember.tensor([1.0, 2.0])) is True        # common dtype
    assert ember.equal(ember.tensor([NAN]), ember.tensor([NAN])) is False
    assert ember.tensor([True]).equal(ember.tensor([True])) is True
    assert ember.equal(ember.tensor(np.zeros((0, 2))), ember.tensor(np.zeros((0, 2)))) is True


# --- complex parts ----------------------------------------------------------------------------

def test_real_imag_are_views():
    z = np.array([[1 + 2j, 3 - 4j], [5 + 0j, -1j]], dtype=np.complex64)
    t = ember.tensor(z)
    re, im = ember.real(t), ember.imag(t)
    assert re.dtype == ember.float32 and im.dtype == ember.float32
    assert re.stride() == (4, 2) and im.storage_offset() == 1
    np.testing.assert_array_equal(arr(re), z.real)
    np.testing.assert_array_equal(arr(im), z.imag)
    im[...] = 9.0                       # writes through to the complex tensor
    np.testing.assert_array_equal(arr(t), z.real + 9j)
    # views of views: a transposed, sliced complex tensor
    col = ember.real(ember.tensor(z)[:, 1])
    np.testing.assert_array_equal(arr(col), z[:, 1].real)


def test_real_of_real_is_itself_and_imag_of_real_raises():
    t = ember.tensor([1.0, 2.0])
    assert ember.real(t) is t
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes."):
        ember.imag(t)


@pytest.mark.skipif(not isinstance(getattr(ember.Tensor, "real", None), property),
                    reason="Tensor.real/.imag properties (ember/_tensor_complex.py) not mixed into Tensor yet")
def test_real_imag_properties_and_setters():
    z = np.array([1 + 2j, 3 - 4j])
    t = ember.tensor(z)
    np.testing.assert_array_equal(arr(t.real), z.real)
    np.testing.assert_array_equal(arr(t.imag), z.imag)
    t.real = ember.tensor([10.0, 20.0])
    t.imag = 0.5
    np.testing.assert_array_equal(arr(t), [10 + 0.5j, 20 + 0.5j])
    r = ember.tensor([1.0, 2.0])
    assert r.real is r
    r.real = 3.0
    np.testing.assert_array_equal(arr(r), [3.0, 3.0])
    with pytest.raises(RuntimeError, match="non-complex"):
        r.imag


def test_conj():
    z = np.array([1 + 2j, -3 - 4j])
    np.testing.assert_array_equal(arr(ember.conj(ember.tensor(z))), np.conj(z))
    r = ember.tensor([1.0, -2.0])
    assert ember.conj(r) is r and r.conj() is r and ember.conj_physical(r) is r
    t = ember.tensor(z)
    assert t.conj_physical_() is t
    np.testing.assert_array_equal(arr(t), np.conj(z))
    out = ember.tensor([0.0, 0.0])
    ember.conj_physical(r, out=out)
    np.testing.assert_array_equal(arr(out), [1.0, -2.0])


def test_angle_real_special_values():
    x = np.array([-2.0, 0.0, 3.0, NAN, -INF])
    got = arr(ember.angle(ember.tensor(x)))
    np.testing.assert_array_equal(got, [np.pi, 0.0, 0.0, NAN, np.pi])
    assert ember.angle(ember.tensor([-1, 2])).dtype == ember.float32
    assert ember.angle(ember.tensor([1j], dtype=ember.complex128)).dtype == ember.float64
    out = ember.tensor([0.0, 0.0], dtype=ember.float64)
    ember.angle(ember.tensor([1j, -1 + 0j], dtype=ember.complex128), out=out)
    np.testing.assert_allclose(arr(out), [np.pi / 2, np.pi], rtol=1e-15)


def test_complex_and_polar_errors():
    f32, f64 = ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64)
    for fn in (ember.complex, ember.polar):
        with pytest.raises(RuntimeError, match="same dtype"):
            fn(f32, f64)
        with pytest.raises(RuntimeError, match="float32 or float64"):
            fn(ember.tensor([1]), ember.tensor([2]))
        with pytest.raises(RuntimeError, match="expected out to have dtype complex64"):
            fn(f32, f32, out=ember.tensor([0j], dtype=ember.complex128))
    got = ember.complex(f64, ember.tensor([2.0], dtype=ember.float64))
    assert got.dtype == ember.complex128
    np.testing.assert_array_equal(arr(got), [1 + 2j])
