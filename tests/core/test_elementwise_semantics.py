"""Elementwise behaviour beyond values: errors that name the problem, in-place and out= rules,
integer division by zero, operators with Python numbers, identity of in-place results."""
import numpy as np
import pytest

import ember as e


def test_acceptance_expression():
    a = e.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    r = a[:, 1:] + e.tensor([10, 20])
    assert r.dtype == e.float32
    np.testing.assert_array_equal(r.numpy(), [[11, 22], [14, 25]])
    assert (a > 2).dtype == e.bool
    assert (e.tensor([1, 2]) / 2).dtype == e.float32


def test_broadcast_mismatch_names_the_sizes():
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(4\)"):
        e.tensor([1, 2, 3]) + e.tensor([1, 2, 3, 4])


def test_out_of_wrong_dtype():
    out = e.tensor([0, 0])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        e.add(e.tensor([1.5, 2.0]), e.tensor([1.0, 1.0]), out=out)
    # a wider out dtype is fine: computed then cast
    outf = e.tensor([0.0, 0.0], dtype=e.float64)
    e.add(e.tensor([1, 2]), e.tensor([3, 4]), out=outf)
    np.testing.assert_array_equal(outf.numpy(), [4.0, 6.0])


def test_out_is_resized_and_returned():
    out = e.tensor([0.0])
    r = e.mul(e.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, out=out)
    assert r is out and tuple(out.shape) == (2, 2)
    np.testing.assert_array_equal(out.numpy(), [[2, 4], [6, 8]])


def test_inplace_cannot_resize_or_promote():
    a = e.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        a.add_(e.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    i = e.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        i.add_(1.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i /= 2


def test_inplace_returns_the_same_object_and_bumps_version():
    a = e.tensor([1.0, 2.0])
    v = a._version
    b = a.add_(1)
    assert b is a and a._version > v
    a += 1
    np.testing.assert_array_equal(a.numpy(), [3.0, 4.0])


@pytest.mark.parametrize("op", [lambda a, b: a // b, lambda a, b: a % b, lambda a, b: e.fmod(a, b),
                                lambda a, b: e.div(a, b, rounding_mode="trunc")])
def test_integer_division_by_zero_raises(op):
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        op(e.tensor([1, 2, 3]), e.tensor([1, 0, 1]))
    with pytest.raises(RuntimeError):  # also a RuntimeError, as PyTorch raises
        op(e.tensor([1, 2, 3]), 0)


def test_float_division_by_zero_follows_ieee():
    r = (e.tensor([1.0, -1.0, 0.0]) / 0).numpy()
    assert r[0] == np.inf and r[1] == -np.inf and np.isnan(r[2])


def test_reflected_operators_with_numbers():
    a = e.tensor([1, 2, 4])
    np.testing.assert_array_equal((10 - a).numpy(), [9, 8, 6])
    np.testing.assert_array_equal((2 ** a).numpy(), [2, 4, 16])
    np.testing.assert_array_equal((1 / e.tensor([2.0, 4.0])).numpy(), [0.5, 0.25])
    np.testing.assert_array_equal((7 // a).numpy(), [7, 3, 1])
    np.testing.assert_array_equal((-a).numpy(), [-1, -2, -4])
    np.testing.assert_array_equal((~e.tensor([True, False])).numpy(), [False, True])
    np.testing.assert_array_equal((a + np.float32(0.5)).numpy(), [1.5, 2.5, 4.5])


def test_comparisons_and_truth_value():
    a = e.tensor([1, 2, 3])
    np.testing.assert_array_equal((a == 2).numpy(), [False, True, False])
    np.testing.assert_array_equal((2 < a).numpy(), [False, False, True])
    assert bool(e.tensor([3]) > 2)
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(a > 1)
    assert int(e.tensor([7])) == 7 and float(e.tensor(2.5)) == 2.5


def test_unsupported_operand_types():
    with pytest.raises(TypeError):
        e.tensor([1]) + "x"
    with pytest.raises(TypeError, match="must be Tensor"):
        e.add("x", e.tensor([1]))


def test_bool_arithmetic_follows_pytorch():
    a, b = e.tensor([True, False]), e.tensor([True, True])
    assert (a + b).dtype == e.bool
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        a - b


def test_mixed_device_rejected():
    cpu = e.tensor([1.0, 2.0])
    meta = e.tensor([1.0, 2.0]).to("meta")
    with pytest.raises(RuntimeError, match="same device"):
        cpu + meta
    # 0-dim CPU tensors mix with any device, as in PyTorch
    assert (meta + e.tensor(1.0)).is_meta


def test_overlapping_inplace_is_refused_as_in_pytorch():
    a = e.tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        a[1:].add_(a[:-1])
    a[1:].add_(a[:-1].clone())
    np.testing.assert_array_equal(a.numpy(), [1.0, 3.0, 5.0, 7.0])


def test_large_parallel_results_match_numpy():
    rng = np.random.default_rng(0)
    x = rng.random(3_000_001, dtype=np.float32)
    y = rng.random(3_000_001, dtype=np.float32)
    got = (e.from_numpy(x) * e.from_numpy(y) + 1).numpy()
    np.testing.assert_allclose(got, x * y + 1, rtol=1e-6)
    np.testing.assert_allclose(e.exp(e.from_numpy(x)).numpy(), np.exp(x.astype(np.float64)), rtol=2.4e-7)


def test_out_that_is_also_an_input_and_needs_resizing():
    a = e.tensor([0.0, 1.0, 2.0])
    r = e.add(a, e.ones(2, 3), out=a)
    assert r is a and tuple(a.shape) == (2, 3)
    np.testing.assert_array_equal(a.numpy(), [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
