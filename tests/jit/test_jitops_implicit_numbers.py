"""A Tensor where scripted code passes an int, float or Scalar: TorchScript's schema matching converts a 0-dim tensor
(aten::IntImplicit / FloatImplicit / ScalarImplicit) after every overload was tried as given, and refuses at run time
with PyTorch's messages a tensor that is not 0-dim, or not integral where an int is taken. Where PyTorch's script
refuses a tensor (range(), an annotated int variable, a list literal mixing tensors and ints), so does ember's, with
its message. t.item() passes its number on as an op's Scalar. The expected values are written out (NumPy)."""
import numpy as np
import pytest

import ember

X = ember.arange(6.0)


@ember.jit.script
def shapes(x: ember.Tensor, t: ember.Tensor):
    return x.narrow(0, t, 2), x.reshape(t, -1), x.narrow(0, t, 1), x.size(t - 2), x[t:], ember.zeros(t), x.view(t, 3)


@ember.jit.script
def filled(t: ember.Tensor):
    return ember.full((2,), t)


@ember.jit.script
def scalars(x: ember.Tensor, t: ember.Tensor):
    return x.add(x, alpha=t), x.clamp(max=t), ember.arange(t)


@ember.jit.script
def takes_int(n: int) -> int:
    return n + 1


@ember.jit.script
def takes_float(v: float) -> float:
    return v / 2


@ember.jit.script
def calls(t: ember.Tensor):
    return takes_int(t), takes_float(t)


@ember.jit.script
def items(x: ember.Tensor, t: ember.Tensor):
    return x + t.item(), x.mul(t.item()), ember.full([2], t.item())


@ember.jit.script
def item_as_float(t: ember.Tensor) -> float:
    return t.item()


@ember.jit.script
def item_comparisons(x: ember.Tensor, t: ember.Tensor):
    return x > t.item(), t.item() <= x, t.item() == 2.5, t.item() > 0, f"{t.item()}"


@ember.jit.script
def power(x: ember.Tensor, t: ember.Tensor):
    return x.pow(t)


def test_zero_dim_integral_tensor_for_ints():
    _, reshaped, narrowed, size, sliced, zeros, view2 = shapes(X, ember.tensor(2))
    assert list(reshaped.shape) == [2, 3] and list(view2.shape) == [2, 3]
    np.testing.assert_array_equal(narrowed.numpy(), [2.0])
    assert size == 6
    np.testing.assert_array_equal(sliced.numpy(), [2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(zeros.numpy(), [0.0, 0.0])
    assert calls(ember.tensor(4)) == (5, 2.0)


@ember.jit.script
def whole_view(x: ember.Tensor, t: ember.Tensor):
    return x.view(t)


def test_view_of_a_whole_size():
    got = whole_view(X.reshape(2, 3), ember.tensor(6))
    assert list(got.shape) == [6]
    np.testing.assert_array_equal(got.numpy(), np.arange(6.0))


def test_scalar_keeps_the_tensors_kind():
    for value, dtype in ((2, ember.int64), (True, ember.bool), (1.5, ember.float32)):
        got = filled(ember.tensor(value))
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), np.full(2, value))
    added, clamped, ranged = scalars(X, ember.tensor(2))
    np.testing.assert_array_equal(added.numpy(), np.arange(6.0) * 3)
    np.testing.assert_array_equal(clamped.numpy(), np.minimum(np.arange(6.0), 2))
    np.testing.assert_array_equal(ranged.numpy(), [0, 1])
    assert takes_float_of(ember.tensor(True)) == 0.5  # a bool tensor is a float's 1.0, as PyTorch's FloatImplicit


def test_item_is_an_ops_scalar():
    plus, times, full = items(X, ember.tensor([2.5]))  # item() takes any one-element tensor
    np.testing.assert_array_equal(plus.numpy(), np.arange(6.0) + 2.5)
    np.testing.assert_array_equal(times.numpy(), np.arange(6.0) * 2.5)
    assert full.dtype == ember.float32
    assert items(X, ember.tensor(3))[2].dtype == ember.int64
    assert item_as_float(ember.tensor(3)) == 3.0
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        items(X, ember.tensor([1.0, 2.0]))


def test_item_compares_by_value():
    above, at_most, equal, positive, text = item_comparisons(X, ember.tensor(2.5))
    np.testing.assert_array_equal(above.numpy(), np.arange(6.0) > 2.5)
    np.testing.assert_array_equal(at_most.numpy(), 2.5 <= np.arange(6.0))
    assert equal is True and positive is True and text == "2.5"
    assert item_comparisons(X, ember.tensor(-3))[2:] == (False, False, "-3")


def test_a_tensor_overload_is_taken_before_a_conversion():
    np.testing.assert_array_equal(power(X, ember.arange(6.0)).numpy(), np.arange(6.0) ** np.arange(6.0))


@pytest.mark.parametrize("bad,message", [
    (ember.tensor([2]), "Cannot input a tensor of dimension other than 0 as a scalar argument"),
    (ember.tensor(2.0), "Cannot input a tensor of type Float as an integral argument"),
    (ember.tensor(True), "Cannot input a tensor of type Bool as an integral argument"),
    (ember.tensor(2, dtype=ember.float16), "Cannot input a tensor of type Half as an integral argument"),
    (ember.tensor(2.0, dtype=ember.float64), "Cannot input a tensor of type Double as an integral argument"),
])
def test_ints_refuse_what_pytorch_refuses(bad, message):
    with pytest.raises(RuntimeError, match=message):
        shapes(X, bad)


def test_floats_and_scalars_refuse_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match="Cannot input a tensor of dimension other than 0 as a scalar argument"):
        filled(ember.tensor([1.5]))
    with pytest.raises(RuntimeError, match="Cannot input a tensor of dimension other than 0 as a scalar argument"):
        calls(ember.ones(1, 1))
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        takes_float_of(ember.tensor(1j))


@ember.jit.script
def takes_float_of(t: ember.Tensor) -> float:
    return takes_float(t)


def test_where_pytorch_script_refuses_a_tensor():
    def ranged(t: ember.Tensor) -> int:
        s = 0
        for i in range(t):
            s += i
        return s

    def annotated(t: ember.Tensor) -> int:
        n: int = t
        return n

    def mixed_list(x: ember.Tensor, t: ember.Tensor):
        return x.view([t, 3])

    with pytest.raises(RuntimeError, match="(?s)all inputs of range must be ints, found Tensor in argument 0.*range"):
        ember.jit.script(ranged)
    with pytest.raises(RuntimeError, match="'n' is annotated as int"):
        ember.jit.script(annotated)
    with pytest.raises(RuntimeError, match="list elements must all have one type"):
        ember.jit.script(mixed_list)
