"""Variable._execution_engine.queue_callback: callbacks queued during backward run once, in order, after
the whole backward pass (every .grad accumulated); outside a backward it raises, as PyTorch's."""
import pytest

import ember
from ember.autograd import Variable


def test_callbacks_run_after_every_gradient_is_accumulated():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0], requires_grad=True)
    seen = []

    def hook(grad):
        Variable._execution_engine.queue_callback(lambda: seen.append(("first", a.grad.tolist(), b.grad.tolist())))
        Variable._execution_engine.queue_callback(lambda: seen.append(("second",)))
        return grad
    a.register_hook(hook)
    ((a * 2).sum() + (b * 5).sum()).backward()
    assert seen == [("first", [2.0, 2.0], [5.0]), ("second",)]


def test_a_callback_may_queue_another():
    x = ember.tensor([1.0], requires_grad=True)
    order = []
    x.register_hook(lambda g: Variable._execution_engine.queue_callback(
        lambda: (order.append(1), Variable._execution_engine.queue_callback(lambda: order.append(2)))))
    (x * 3).sum().backward()
    assert order == [1, 2]


def test_outside_backward_raises():
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
        Variable._execution_engine.queue_callback(lambda: None)


def test_a_failing_backward_drops_the_queue():
    x = ember.tensor([1.0], requires_grad=True)
    ran = []

    def hook(grad):
        Variable._execution_engine.queue_callback(lambda: ran.append(1))
        raise ValueError("hook failed")
    x.register_hook(hook)
    with pytest.raises(ValueError, match="hook failed"):
        (x * 2).sum().backward()
    y = ember.tensor([1.0], requires_grad=True)
    (y * 2).sum().backward()
    assert ran == []


def test_variable_is_the_legacy_tensor_name():
    t = ember.ones(2)
    assert isinstance(t, Variable)
    v = Variable(t, requires_grad=True)
    assert v.requires_grad and v.data_ptr() == t.data_ptr()
    with pytest.raises(TypeError, match="has to be a tensor"):
        Variable([1, 2])
