"""The __torch_function__ protocol: a non-tensor object overriding ember functions (the style of
PyTorch's DiagonalTensor/ScalarTensor examples, written fresh), a Tensor subclass that keeps its
class through methods and operators, the disabled implementation (nn.Parameter), and ember.overrides."""
import functools

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.overrides import (get_overridable_functions, handle_torch_function, has_torch_function, is_tensor_like,
                             resolve_name)

HANDLED = {}


def implements(fn):
    def register(impl):
        HANDLED[fn] = impl
        return impl
    return register


class Diagonal:
    """n x n matrix value * I, stored as two numbers."""

    def __init__(self, n, value):
        self.n, self.value = n, value

    def tensor(self):
        return self.value * ember.eye(self.n)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func not in HANDLED or not all(issubclass(t, Diagonal) for t in types):
            return NotImplemented
        return HANDLED[func](*args, **(kwargs or {}))


@implements(ember.mean)
def _mean(d):
    return d.value / d.n


@implements(ember.add)
def _add(a, b, alpha=1):
    if isinstance(a, Diagonal) and isinstance(b, Diagonal):
        return Diagonal(a.n, a.value + alpha * b.value)
    d, t = (a, b) if isinstance(a, Diagonal) else (b, a)
    return d.tensor() + t


@implements(ember.Tensor.add)
def _method_add(t, d):
    return t + d.tensor()


@implements(ember.linalg.norm)
def _norm(d):
    return abs(d.value) * d.n ** 0.5


@implements(F.relu)
def _relu(d, inplace=False):
    return Diagonal(d.n, max(d.value, 0.0))


def test_object_overrides_functions_methods_and_namespaces():
    d = Diagonal(4, 2.0)
    assert ember.mean(d) == 0.5
    s = ember.add(d, Diagonal(4, 1.0), alpha=3)
    assert isinstance(s, Diagonal) and s.value == 5.0
    np.testing.assert_array_equal(ember.add(ember.ones(4, 4), d).numpy(), np.ones((4, 4)) + 2 * np.eye(4))
    np.testing.assert_array_equal(ember.ones(4, 4).add(d).numpy(), np.ones((4, 4)) + 2 * np.eye(4))
    assert ember.linalg.norm(d) == 4.0
    assert F.relu(Diagonal(2, -1.0)).value == 0.0


def test_unhandled_function_names_itself():
    with pytest.raises(TypeError, match="Multiple dispatch failed for 'ember.exp'; all __torch_function__ "
                                        "handlers returned NotImplemented"):
        ember.exp(Diagonal(2, 1.0))
    with pytest.raises(TypeError):  # an operator nobody implements: Python's own error
        ember.ones(2) * Diagonal(2, 1.0)


class Scaled(ember.Tensor):
    """A subclass that counts the ember calls made on it."""
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(resolve_name(func))
        return super().__torch_function__(func, types, args, kwargs)


def test_subclass_keeps_its_class_through_methods_functions_and_operators():
    s = ember.arange(4.).as_subclass(Scaled)
    Scaled.calls.clear()
    for r in (s + 1, s.exp(), ember.add(s, s), s * ember.ones(4), -s, s.reshape(2, 2), s[1:]):
        assert type(r) is Scaled
    vals, idx = s.max(0)
    assert type(vals) is Scaled and type(idx) is Scaled
    np.testing.assert_array_equal((s + 1).as_subclass(ember.Tensor).numpy(), np.arange(4.) + 1)
    assert "ember.Tensor.exp" in Scaled.calls and "ember.add" in Scaled.calls


def test_plain_tensors_and_parameters_do_not_dispatch():
    t = ember.ones(2)
    p = ember.nn.Parameter(ember.ones(2))
    assert not has_torch_function((t, 1, None, 2.0))
    assert not has_torch_function((p,))
    assert type(p * 2) is ember.Tensor
    assert has_torch_function((Diagonal(1, 1.0),)) and has_torch_function(([t, Diagonal(1, 1.0)],))


def test_subclass_order_and_handle_torch_function():
    order = []

    class Base(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append(cls.__name__)
            return NotImplemented if cls is Base else super().__torch_function__(func, types, args, kwargs)

    class Child(Base):
        pass

    b = ember.ones(1).as_subclass(Base)
    c = ember.ones(1).as_subclass(Child)
    ember.add(b, c)
    assert order[0] == "Child"  # a subclass before its base, though it comes second

    @functools.wraps(ember.mean)
    def my_mean(x):
        if has_torch_function((x,)):
            return handle_torch_function(my_mean, (x,), x)
        return x.mean()
    HANDLED[my_mean] = lambda d: "handled"
    assert my_mean(Diagonal(2, 1.0)) == "handled"
    assert my_mean(ember.ones(2)).item() == 1.0


def test_overrides_helpers():
    assert is_tensor_like(ember.ones(1)) and is_tensor_like(Diagonal(1, 1.0)) and not is_tensor_like(1.0)
    table = get_overridable_functions()
    assert ember.add in table[ember] and ember.Tensor.add in table[ember.Tensor]
    assert F.relu in table[F]
    assert resolve_name(ember.Tensor.add) == "ember.Tensor.add" and resolve_name(ember.add) == "ember.add"


def test_disable_torch_function_subclass():
    s = ember.ones(2).as_subclass(Scaled)
    with ember._C.DisableTorchFunctionSubclass():
        assert type(s + 1) is ember.Tensor
    assert type(s + 1) is Scaled
