"""pow with the exponents computed by arithmetic rather than std::pow (2, 3, 0.5, -0.5, -1, -2): the
values, including -0, infinities and NaN, are C's pow's, as np.power gives them for an array of exponents
(for a number exponent 0.5, NumPy and PyTorch take sqrt's -0 and NaN at -0 and -inf); 2 and 3 are exactly
x*x and x*x*x as in PyTorch."""
import numpy as np
import pytest

import ember

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.25, -2.5, 3.0e-20, 7.5e18, np.inf, -np.inf, np.nan, 1e-45, 123.456]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 2.5])
@pytest.mark.parametrize("contiguous", [True, False])
def test_values_match_numpy(dtype, exponent, contiguous):
    rng = np.random.default_rng(0)
    x = np.concatenate([np.array(SPECIAL), rng.normal(size=200) * 10]).astype(dtype)
    t = ember.from_numpy(np.repeat(x, 2)[::2].copy()) if contiguous else ember.from_numpy(np.repeat(x, 2))[::2]
    with np.errstate(all="ignore"):
        want = np.power(x, np.full_like(x, exponent))  # an array of exponents: C's pow
    got = (t ** exponent).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-7 if dtype == np.float32 else 1e-15, atol=0, equal_nan=True)
    zeros = want == 0  # the sign of a zero result is pow's
    assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_square_and_cube_are_exact_products(dtype):
    x = ember.randn(1000, dtype=dtype) * 100
    assert ember.equal(x ** 2, x * x)
    assert ember.equal(ember.pow(x, 3.0), x * x * x)
    out = ember.empty_like(x)
    ember.pow(x, 2, out=out)
    assert ember.equal(out, x * x)


def test_tensor_exponent_elements_take_the_same_paths():
    x = ember.tensor([-0.0, -float("inf"), 4.0, 2.0])
    e = ember.tensor([0.5, 0.5, -0.5, 3.0])
    want = np.power(x.numpy(), e.numpy())
    got = (x ** e).numpy()
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[0])
