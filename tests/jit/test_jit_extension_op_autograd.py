"""An extension's op (registered from C++ with its backward, here emberaudio's audio::_lfilter_iir) records autograd
when scripted code calls it, as ember.ops.NS.NAME does in eager code: the scripted result has the op's backward node
and the same gradients; under no_grad it records nothing."""
import pytest

import ember
import ember.jit
from ember import Tensor


def filtered(x: Tensor, a: Tensor) -> Tensor:
    return ember.ops.audio._lfilter_iir(x, a)


def filtered_energy(x: Tensor, a: Tensor) -> Tensor:
    return ember.ops.audio._lfilter_iir(x * 2.0, a).square().sum()


def _inputs():
    g = ember.Generator().manual_seed(0)
    x = ember.randn(2, 3, 30, generator=g, dtype=ember.float64).requires_grad_(True)
    a = ember.tensor([[1.0, -0.5, 0.1], [1.0, 0.3, 0.0], [2.0, 0.2, -0.1]], dtype=ember.float64).requires_grad_(True)
    return x, a


def test_scripted_extension_op_records_its_backward():
    pytest.importorskip("emberaudio")
    scripted = ember.jit.script(filtered_energy)
    x, a = _inputs()
    inner = ember.jit.script(filtered)(x, a)
    assert inner.grad_fn is not None and inner.grad_fn.name() == "_lfilter_iirBackward"
    want = ember.autograd.grad(filtered_energy(x, a), (x, a))
    got = ember.autograd.grad(scripted(x, a), (x, a))
    assert ember.equal(got[0], want[0]) and ember.equal(got[1], want[1])
    assert ember.autograd.gradcheck(scripted, _inputs())
    with ember.no_grad():
        assert not scripted(x, a).requires_grad
