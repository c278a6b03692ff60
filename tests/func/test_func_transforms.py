"""ember.func's grad/grad_and_value/vjp/jvp/jacrev/jacfwd/hessian/functional_call against closed forms
computed with NumPy, nesting (jacrev of jacrev, jacfwd of jacrev, grad of grad), argnums, has_aux, and
PyTorch's messages."""
import numpy as np
import pytest

import ember
from ember.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)


def _np(t):
    return t.detach().numpy()


def _f(x):  # R^4 -> R^3: sin(A x)
    return ember.sin(ember.tensor(A) @ x)


def _jac_f(v):
    return np.cos(A @ v)[:, None] * A


def _cubic(x):  # sum(x^3) + x0 * x1
    return (x ** 3).sum() + x[0] * x[1]


def _hess_cubic(v):
    h = np.diag(6 * v)
    h[0, 1] += 1
    h[1, 0] += 1
    return h


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobian_closed_form(jac):
    np.testing.assert_allclose(_np(jac(_f)(ember.tensor(V))), _jac_f(V), rtol=1e-10)


@pytest.mark.parametrize("how", ["hessian", "jacrev(jacrev)", "jacfwd(jacfwd)", "jacrev(jacfwd)"])
def test_hessian_closed_form(how):
    fn = {"hessian": hessian(_cubic), "jacrev(jacrev)": jacrev(jacrev(_cubic)),
          "jacfwd(jacfwd)": jacfwd(jacfwd(_cubic)), "jacrev(jacfwd)": jacrev(jacfwd(_cubic))}[how]
    h = fn(ember.tensor(V))
    assert not h.requires_grad
    np.testing.assert_allclose(_np(h), _hess_cubic(V), rtol=1e-10, atol=1e-12)


def test_grad_of_grad_and_argnums():
    x, y = ember.tensor(1.5, dtype=ember.float64), ember.tensor(-0.5, dtype=ember.float64)

    def f(a, b):
        return a ** 3 * b
    gx, gy = grad(f, argnums=(0, 1))(x, y)
    assert np.isclose(gx.item(), 3 * 1.5 ** 2 * -0.5) and np.isclose(gy.item(), 1.5 ** 3)
    assert np.isclose(grad(grad(f))(x, y).item(), 6 * 1.5 * -0.5)
    assert np.isclose(grad(f, argnums=-1)(x, y).item(), 1.5 ** 3)


def test_grad_and_value_with_aux_and_pytree_input():
    params = {"w": ember.tensor(V), "b": ember.tensor(2.0, dtype=ember.float64)}

    def loss(p):
        out = (p["w"] * p["w"]).sum() + p["b"]
        return out, {"norm": out.detach()}
    g, (value, aux) = grad_and_value(loss, has_aux=True)(params)
    np.testing.assert_allclose(_np(g["w"]), 2 * V)
    assert g["b"].item() == 1.0
    assert np.isclose(value.item(), (V * V).sum() + 2.0) and np.isclose(aux["norm"].item(), value.item())


def test_vjp_and_jvp_against_the_jacobian():
    u = RNG.standard_normal(3)
    t = RNG.standard_normal(4)
    out, fn = vjp(_f, ember.tensor(V))
    np.testing.assert_allclose(_np(out), np.sin(A @ V))
    (ct,) = fn(ember.tensor(u))
    np.testing.assert_allclose(_np(ct), u @ _jac_f(V), rtol=1e-10)
    out2, tangent = jvp(_f, (ember.tensor(V),), (ember.tensor(t),))
    np.testing.assert_allclose(_np(tangent), _jac_f(V) @ t, rtol=1e-10)


def test_jacrev_argnums_tuple_and_has_aux():
    def f(x, y):
        return x * y.sum(), "aux"
    x, y = ember.tensor(V[:2]), ember.tensor(V[2:])
    (jx, jy), aux = jacrev(f, argnums=(0, 1), has_aux=True)(x, y)
    np.testing.assert_allclose(_np(jx), np.eye(2) * V[2:].sum())
    np.testing.assert_allclose(_np(jy), np.outer(V[:2], np.ones(2)))
    assert aux == "aux"


def test_functional_call_replaces_parameters_for_the_call_only():
    lin = ember.nn.Linear(4, 3).double()
    w = ember.tensor(A)
    b = ember.zeros(3, dtype=ember.float64)
    x = ember.tensor(V)
    out = functional_call(lin, {"weight": w, "bias": b}, (x,))
    np.testing.assert_allclose(_np(out), A @ V)
    assert not ember.equal(lin.weight, w)
    gw = grad(lambda p: functional_call(lin, p, (x,)).sum())({"weight": w, "bias": b})["weight"]
    np.testing.assert_allclose(_np(gw), np.outer(np.ones(3), V))
    with pytest.raises(RuntimeError, match="Missing key"):
        functional_call(lin, {"weight": w}, (x,), strict=True)


def test_errors_as_pytorch():
    x = ember.randn(3)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims"):
        grad(lambda a: a)(x)
    with pytest.raises(RuntimeError, match="Got argnum=2, but only 1 positional inputs"):
        grad(lambda a: a.sum(), argnums=2)(x)
    with pytest.raises(RuntimeError, match=r"argnums elements must be unique, got \(0, 0\)"):
        grad(lambda a: a.sum(), argnums=(0, 0))(x)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a Tensor, got <class 'int'>"):
        grad(lambda a: 3)(x)
    with pytest.raises(RuntimeError, match="should be a tuple: \\(output, aux\\) if has_aux is True"):
        grad(lambda a: a.sum(), has_aux=True)(x)
