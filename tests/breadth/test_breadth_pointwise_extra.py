"""Edge rules of core/ops/pointwise_extra.yaml's ops that the generic op tests do not reach:
PyTorch's messages, infinities, NaN, and the function/method/in-place forms PyTorch has."""
import math

import numpy as np
import pytest

import ember


def test_heaviside_rules():
    x = ember.tensor([float("nan"), 0.0, -1.0, 2.0])
    assert ember.heaviside(x, ember.tensor([5.0])).tolist() == [0.0, 5.0, 0.0, 1.0]
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes."):
        ember.heaviside(x, ember.tensor([1]))
    y = x.clone()
    y.heaviside_(ember.tensor([0.5]))
    assert y.tolist() == [0.0, 0.5, 0.0, 1.0]
    assert ember.heaviside(ember.tensor([-2, 0, 3]), ember.tensor([7])).tolist() == [0, 7, 1]


def test_addcdiv_integer_operands_refused():
    a = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        ember.addcdiv(a, a, a)
    f = ember.tensor([1.0, 2.0])
    assert ember.addcdiv(f, f, ember.tensor([4.0, 4.0]), value=2).tolist() == [1.5, 3.0]
    f.addcdiv_(ember.tensor([1.0, 1.0]), ember.tensor([2.0, 4.0]))
    assert f.tolist() == [1.5, 2.25]


def test_addcmul_forms_and_broadcast():
    a = ember.zeros(2, 3)
    out = ember.addcmul(a, ember.tensor([1.0, 2.0, 3.0]), ember.tensor([[1.0], [2.0]]), value=0.5)
    np.testing.assert_allclose(out.numpy(), 0.5 * np.array([[1, 2, 3], [2, 4, 6]]))
    a.addcmul_(ember.ones(3), ember.full([2, 3], 2.0))
    assert a.tolist() == [[2.0] * 3] * 2
    assert ember.addcmul(ember.tensor([1, 2]), ember.tensor([3, 4]), ember.tensor([5, 6]), value=2).tolist() == [31, 50]


def test_logaddexp_infinities_and_extremes():
    inf = float("inf")
    a = ember.tensor([-inf, inf, 1000.0, -1000.0, 0.0])
    b = ember.tensor([-inf, inf, 1000.0, -1000.0, -inf])
    got = ember.logaddexp(a, b).tolist()
    assert got[0] == -inf and got[1] == inf and got[4] == 0.0
    np.testing.assert_allclose(got[2:4], [1000 + math.log(2), -1000 + math.log(2)])
    got2 = a.logaddexp2(b).tolist()
    assert got2[0] == -inf and got2[1] == inf
    np.testing.assert_allclose(got2[2:4], [1001.0, -999.0])
    with pytest.raises((TypeError, RuntimeError), match="int64"):
        ember.logaddexp(ember.tensor([1]), ember.tensor([2]))


def test_gcd_lcm_forms():
    a, b = ember.tensor([-4, 0, 6, 0]), ember.tensor([6, 3, -4, 0])
    assert ember.gcd(a, b).tolist() == [2, 3, 2, 0]
    assert a.lcm(b).tolist() == [12, 0, 12, 0]
    c = a.clone()
    assert ember.gcd_(c, b) is c and c.tolist() == [2, 3, 2, 0]
    ember.lcm_(a, b)
    assert a.tolist() == [12, 0, 12, 0]
    with pytest.raises((TypeError, RuntimeError), match="float32"):
        ember.gcd(ember.tensor([1.0]), ember.tensor([2.0]))


def test_angle_conversions_ldexp_nextafter_signbit():
    assert ember.deg2rad(ember.tensor([180])).dtype == ember.float32
    np.testing.assert_allclose(ember.tensor([90.0]).deg2rad().numpy(), [math.pi / 2])
    t = ember.tensor([math.pi], dtype=ember.float64)
    assert ember.rad2deg_(t) is t and t.item() == pytest.approx(180.0, rel=1e-15)
    np.testing.assert_allclose(ember.ldexp(ember.tensor([1.0, 3.0]), ember.tensor([2, -1])).numpy(), [4.0, 1.5])
    x = ember.tensor([1.0])
    ember.ldexp_(x, ember.tensor([3.0]))
    assert x.item() == 8.0
    one = ember.tensor([1.0], dtype=ember.float64)
    assert ember.nextafter(one, ember.tensor([2.0], dtype=ember.float64)).item() == np.nextafter(1.0, 2.0)
    assert one.nextafter(ember.tensor([0.0], dtype=ember.float64)).item() == np.nextafter(1.0, 0.0)
    assert ember.signbit(ember.tensor([-0.0, 0.0, -float("nan"), -3.0])).tolist() == [True, False, True, True]
    assert ember.tensor([-1, 2]).signbit().tolist() == [True, False]


def test_not_differentiable_ops_say_so_at_backward():
    x = ember.tensor([1.0, -1.0], requires_grad=True)
    y = ember.heaviside(x, ember.tensor([0.5]))
    with pytest.raises(RuntimeError, match="heaviside"):
        y.sum().backward()
