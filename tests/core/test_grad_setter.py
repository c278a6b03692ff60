"""Assigning .grad, .real and .imag checks what is assigned, as PyTorch does: a tensor's grad may not
be itself nor differ from it in dtype, device or size; t.real / t.imag = v is a copy_ into the part,
so v must broadcast to the part's shape. The messages are PyTorch's (2.13), written out here."""
import numpy as np
import pytest

import ember


def test_grad_may_not_be_the_tensor_itself():
    t = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        t.grad = t
    assert t.grad is None


@pytest.mark.parametrize("dtype", [ember.int64, ember.float64, ember.bool, ember.complex64])
def test_grad_of_another_dtype_is_refused(dtype):
    t = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype .* to a tensor with dtype"):
        t.grad = ember.ones(3, dtype=dtype)
    assert t.grad is None


def test_integer_tensor_takes_only_an_integer_grad_of_its_dtype():
    t = ember.ones(3, dtype=ember.int64)
    t.grad = ember.ones(3, dtype=ember.int64)
    np.testing.assert_array_equal(t.grad.numpy(), [1, 1, 1])
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
        t.grad = ember.ones(3)


@pytest.mark.parametrize("shape", [(4,), (3, 1), ()])
def test_grad_of_another_size_is_refused(shape):
    t = ember.ones(3, requires_grad=True)
    want = (r"attempting to assign a gradient of size '.*' to a tensor of size '.*3.*'. "
            r"Please ensure that the gradient and the tensor are the same size")
    with pytest.raises(RuntimeError, match=want):
        t.grad = ember.ones(shape)


def test_grad_on_another_device_is_refused():
    t = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with device type 'meta' to a tensor "
                                           "with device type 'cpu'"):
        t.grad = ember.ones(3, device="meta")


def test_valid_grads_are_kept():
    t = ember.ones(3, requires_grad=True)
    t.grad = t.detach()  # another tensor sharing the data is fine
    np.testing.assert_array_equal(t.grad.numpy(), [1, 1, 1])
    t.grad = None
    assert t.grad is None
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None but got grad of type int"):
        t.grad = 5


def test_real_imag_assignment_must_broadcast_to_the_part():
    c = ember.zeros(2, 3, dtype=ember.complex64)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\)"):
        c.real = ember.ones(4)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\)"):
        c.imag = ember.ones(4)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        c.real = ember.ones(1, 2, 3)  # a leading 1 is not dropped, as copy_
    np.testing.assert_array_equal(c.numpy(), np.zeros((2, 3)))
    f = ember.zeros(3)
    with pytest.raises(RuntimeError, match="must match the size"):
        f.real = ember.ones(4)


def test_real_imag_assignment_writes_through():
    c = ember.zeros(2, 3, dtype=ember.complex64)
    c.real = ember.tensor([1., 2., 3.])  # broadcast over the rows
    c.imag = 5
    want = np.array([1, 2, 3]) + 5j
    np.testing.assert_array_equal(c.numpy(), np.broadcast_to(want, (2, 3)))
    f = ember.zeros(3)
    f.real = ember.ones(3) * 2
    np.testing.assert_array_equal(f.numpy(), [2, 2, 2])
    with pytest.raises(TypeError, match="can't assign a str to a"):
        c.real = "x"
