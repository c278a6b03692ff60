"""ember.unique, ember.unique_consecutive and the Tensor methods in scripted code: the result is a Tensor or a tuple
as the constant flags return_inverse/return_counts pick (TorchScript's boolean dispatch), equal to the eager call;
Tensor.unique_consecutive gives TorchScript's aten::unique_consecutive triple (an empty tensor for a part not asked
for). A non-constant flag is refused with PyTorch's message. References: NumPy's unique and a run-length loop."""
from typing import Optional

import numpy as np
import pytest

import ember

X = [3, 1, 2, 3, 1, 1, 5, 5]
ROWS = [[1, 2], [1, 2], [0, 5], [1, 2], [0, 5]]


def np_unique(values, axis=None):
    out, inverse, counts = np.unique(np.array(values), return_inverse=True, return_counts=True, axis=axis)
    return out, inverse.reshape(np.array(values).shape[:1] if axis is not None else np.array(values).shape), counts


def runs(values):
    out, inverse, counts = [], [], []
    for v in values:
        if not out or out[-1] != v:
            out.append(v)
            counts.append(0)
        counts[-1] += 1
        inverse.append(len(out) - 1)
    return out, inverse, counts


@ember.jit.script
def plain(x: ember.Tensor) -> ember.Tensor:
    return ember.unique(x)


@ember.jit.script
def with_inverse(x: ember.Tensor):
    return ember.unique(x, sorted=True, return_inverse=True)


@ember.jit.script
def with_counts(x: ember.Tensor):
    return ember.unique(x, return_counts=True)


@ember.jit.script
def everything_by_dim(x: ember.Tensor, dim: Optional[int]):
    return ember.unique(x, True, True, True, dim)


@ember.jit.script
def methods(x: ember.Tensor):
    return x.unique(), x.unique(return_inverse=True, return_counts=True)


@ember.jit.script
def consecutive(x: ember.Tensor):
    return (ember.unique_consecutive(x), ember.unique_consecutive(x, return_inverse=True),
            ember.unique_consecutive(x, return_counts=True), ember.unique_consecutive(x, True, True))


@ember.jit.script
def consecutive_method(x: ember.Tensor):
    return x.unique_consecutive(return_counts=True)


def test_unique_results_and_their_types():
    x = ember.tensor(X)
    out, inverse, counts = np_unique(X)
    got = plain(x)
    assert isinstance(got, ember.Tensor)
    np.testing.assert_array_equal(got.numpy(), out)
    a, b = with_inverse(x)
    np.testing.assert_array_equal(a.numpy(), out)
    np.testing.assert_array_equal(b.numpy(), inverse)
    a, c = with_counts(x)
    np.testing.assert_array_equal(c.numpy(), counts)
    for got, want in zip(with_counts(x), ember.unique(x, return_counts=True)):
        assert ember.equal(got, want)


def test_unique_by_dim_and_by_none():
    y = ember.tensor(ROWS)
    out, inverse, counts = np_unique(ROWS, axis=0)
    got = everything_by_dim(y, 0)
    assert len(got) == 3
    for g, w in zip(got, (out, inverse, counts)):
        np.testing.assert_array_equal(g.numpy(), w)
    out, inverse, counts = np_unique(ROWS)
    for g, w in zip(everything_by_dim(y, None), (out, inverse, counts)):
        np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(IndexError):
        everything_by_dim(y, 2)


def test_tensor_methods():
    x = ember.tensor(X)
    single, triple = methods(x)
    out, inverse, counts = np_unique(X)
    np.testing.assert_array_equal(single.numpy(), out)
    for g, w in zip(triple, (out, inverse, counts)):
        np.testing.assert_array_equal(g.numpy(), w)


def test_unique_consecutive_forms():
    x = ember.tensor(X)
    out, inverse, counts = runs(X)
    only, (o1, inv), (o2, cnt), (o3, inv3, cnt3) = consecutive(x)
    for g in (only, o1, o2, o3):
        np.testing.assert_array_equal(g.numpy(), out)
    for g in (inv, inv3):
        np.testing.assert_array_equal(g.numpy(), inverse)
    for g in (cnt, cnt3):
        np.testing.assert_array_equal(g.numpy(), counts)
    o, empty_inverse, c = consecutive_method(x)  # aten::unique_consecutive: always three tensors
    np.testing.assert_array_equal(o.numpy(), out)
    assert empty_inverse.numel() == 0 and empty_inverse.dtype == ember.int64
    np.testing.assert_array_equal(c.numpy(), counts)


def test_non_constant_flags_are_refused_with_pytorchs_message():
    def by_keyword(x: ember.Tensor, flag: bool):
        return ember.unique(x, return_counts=flag)

    def by_position(x: ember.Tensor, flag: bool):
        return ember.unique(x, True, flag)

    def consecutive_by_position(x: ember.Tensor, flag: bool):
        return ember.unique_consecutive(x, flag)

    with pytest.raises(RuntimeError, match="(?s)Keyword argument 'return_counts' for boolean dispatch at position was "
                                           "not constant.*return_counts=flag"):
        ember.jit.script(by_keyword)
    with pytest.raises(RuntimeError, match="Argument for boolean dispatch at position 2 was not constant"):
        ember.jit.script(by_position)
    with pytest.raises(RuntimeError, match="Argument for boolean dispatch at position 1 was not constant"):
        ember.jit.script(consecutive_by_position)
