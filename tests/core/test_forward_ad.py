"""Forward-mode AD (ember.autograd.forward_ad): dual tensors, levels, in-place ops and indexing on
duals, custom Functions with jvp, forward-over-reverse, and jacobian/hessian with
strategy="forward-mode". References are analytic derivatives in NumPy."""
import numpy as np
import pytest

import ember
from ember.autograd import forward_ad as fwAD
from ember.autograd.functional import hessian, jacobian


def f64(values):
    return ember.tensor(np.asarray(values, dtype=np.float64))


def test_pointwise_reduction_and_matmul_tangents():
    x, t = np.array([0.3, 1.2, -0.7]), np.array([1.0, -2.0, 0.5])
    m = np.arange(6.0).reshape(3, 2) / 5
    with fwAD.dual_level():
        d = fwAD.make_dual(f64(x), f64(t))
        y = (d.sin() * d.exp()).sum()
        z = d @ f64(m)
        w = ember.logsumexp(d, 0)
        assert np.isclose(fwAD.unpack_dual(y).tangent.item(), ((np.cos(x) + np.sin(x)) * np.exp(x) * t).sum())
        assert np.allclose(fwAD.unpack_dual(z).tangent.numpy(), t @ m)
        soft = np.exp(x) / np.exp(x).sum()
        assert np.isclose(fwAD.unpack_dual(w).tangent.item(), (soft * t).sum())
        assert np.allclose(fwAD.unpack_dual(y).primal.numpy(), (np.sin(x) * np.exp(x)).sum())


def test_complex_tangent():
    z, t = np.array([1 + 2j, -0.5 + 0.3j]), np.array([0.2 - 1j, 1 + 1j])
    with fwAD.dual_level():
        d = fwAD.make_dual(ember.tensor(z), ember.tensor(t))
        y = d * d  # holomorphic: tangent 2 z t
        a = d.abs()  # |z|: tangent Re(conj(z) t) / |z|
        assert np.allclose(fwAD.unpack_dual(y).tangent.numpy(), 2 * z * t)
        assert np.allclose(fwAD.unpack_dual(a).tangent.numpy(), (np.conj(z) * t).real / np.abs(z))


def test_tangents_are_gone_after_the_level():
    with fwAD.dual_level():
        d = fwAD.make_dual(f64([1.0, 2.0]), f64([1.0, 1.0]))
        y = d * 3
    assert fwAD.unpack_dual(y).tangent is None
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None  # a new level does not see the old one's tangents
        assert fwAD.unpack_dual(y * 2).tangent is None


def test_inplace_and_indexing_on_duals():
    with fwAD.dual_level():
        d = fwAD.make_dual(f64([1.0, 2.0, 3.0]), f64([1.0, 0.0, 2.0]))
        y = d * 1.0
        y.mul_(d)  # y = d^2: tangent 2 d t
        assert np.allclose(fwAD.unpack_dual(y).tangent.numpy(), [2.0, 0.0, 12.0])
        assert np.allclose(fwAD.unpack_dual(d[1:]).tangent.numpy(), [0.0, 2.0])
        assert np.allclose(fwAD.unpack_dual(d[ember.tensor([2, 0])]).tangent.numpy(), [2.0, 1.0])
        plain = ember.zeros(3, dtype=ember.float64)
        plain[1:] = d[:2] * 2  # a plain tensor written with a dual takes its tangent there
        assert np.allclose(fwAD.unpack_dual(plain).tangent.numpy(), [0.0, 2.0, 0.0])


def test_forward_over_reverse_and_reverse_over_forward():
    x, v = np.array([0.3, 1.2]), np.array([1.0, -1.0])
    xt = f64(x).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(xt, f64(v))
        (g,) = ember.autograd.grad((d ** 3).sum(), d, create_graph=True)  # g = 3 d^2
        assert np.allclose(fwAD.unpack_dual(g).tangent.numpy(), 6 * x * v)  # Hessian-vector product
        jvp = fwAD.unpack_dual((d.sin()).sum()).tangent  # cos(x) . v, a function of x
        (h,) = ember.autograd.grad(jvp, xt)
        assert np.allclose(h.numpy(), -np.sin(x) * v)


def test_jacobian_and_hessian_forward_mode_match_reverse_mode():
    def f(a, b):
        return (a[:, None] * b[None, :]).tanh()
    a, b = f64([0.3, 1.2]), f64([0.1, -0.5, 2.0])
    rev = jacobian(f, (a, b))
    fwd = jacobian(f, (a, b), vectorize=True, strategy="forward-mode")
    for r, w in zip(rev, fwd):
        assert np.allclose(r.numpy(), w.numpy())
    x = f64([0.3, 1.2, -0.7])
    h = hessian(lambda t: (t.sin() * t.exp()).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode")
    assert np.allclose(h.numpy(), np.diag(2 * np.cos(x.numpy()) * np.exp(x.numpy())))
    with pytest.raises(ValueError, match="only works when `vectorize=True`"):
        hessian(lambda t: t.sum(), x, outer_jacobian_strategy="forward-mode")


class Cube(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * t


class NoJvp(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_custom_function_jvp():
    with fwAD.dual_level():
        d = fwAD.make_dual(f64([1.0, 2.0]), f64([1.0, 0.5]))
        y = Cube.apply(d)
        assert np.allclose(fwAD.unpack_dual(y).tangent.numpy(), [3.0, 6.0])
        with pytest.raises(NotImplementedError, match="implement the jvp function"):
            NoJvp.apply(d)
    assert np.allclose(NoJvp.apply(f64([1.0])).numpy(), [2.0])  # without duals, no jvp needed


def test_dual_errors():
    with pytest.raises(RuntimeError, match="inside `with dual_level"):
        fwAD.make_dual(f64([1.0]), f64([1.0]))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="tangent of shape"):
            fwAD.make_dual(f64([1.0, 2.0]), f64([1.0]))
        with pytest.raises(RuntimeError, match="tangent to have the primal's dtype"):
            fwAD.make_dual(f64([1.0]), ember.tensor([1.0], dtype=ember.float32))
        with pytest.raises(RuntimeError, match="floating point or complex"):
            fwAD.make_dual(ember.tensor([1]), ember.tensor([1]))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        d = fwAD.make_dual(f64([1.0]), f64([1.0]))
        with pytest.raises(RuntimeError, match="out=... is not supported"):
            ember.add(d, d, out=ember.empty(1, dtype=ember.float64))
        with pytest.raises(RuntimeError, match="'histc' is not differentiable"):
            ember.histc(d, bins=2, min=0, max=2)
    assert fwAD.unpack_dual(f64([1.0])).tangent is None  # outside a level: no tangent


def test_an_argument_used_twice_or_through_another_counts_once():
    p = f64([1.0, 2.0, 3.0]).requires_grad_()
    with fwAD.dual_level():
        x = fwAD.make_dual(p, f64([1.0, 1.0, 1.0]))
        assert np.allclose(fwAD.unpack_dual(x * x).tangent.detach().numpy(), [2.0, 4.0, 6.0])
        y = x * 1.0
        y.add_(x)  # y = 2x: y's own path to x must not be counted again through x
        assert np.allclose(fwAD.unpack_dual(y).tangent.detach().numpy(), [2.0, 2.0, 2.0])
        z = x * 3.0
        assert np.allclose(fwAD.unpack_dual(z + x).tangent.detach().numpy(), [4.0, 4.0, 4.0])
