"""Autograd: the engine, modes, error cases, hooks, custom Functions and functional transforms,
checked against NumPy's analytic derivatives and finite differences."""
import numpy as np
import pytest

import ember
from ember import autograd
from ember.autograd import Function, functional, gradcheck, gradgradcheck


def leaf(a):
    return ember.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def test_mul_sum_backward_matches_numpy():
    an, bn = np.array([1.5, -2.0, 3.0]), np.array([0.5, 4.0, -1.0])
    a, b = leaf(an), leaf(bn)
    (a * b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), bn)
    np.testing.assert_allclose(b.grad.numpy(), an)


def test_chain_of_unary_ops():
    xn = np.linspace(0.1, 2.0, 7)
    x = leaf(xn)
    y = (x.sin() * x.exp() + x.log() / x).sum()
    y.backward()
    expected = np.cos(xn) * np.exp(xn) + np.sin(xn) * np.exp(xn) + (1 - np.log(xn)) / xn ** 2
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_broadcast_gradients_are_summed_back():
    a, b = leaf(np.ones((2, 3))), leaf(np.arange(3.0))
    (a * b).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(a.grad.numpy(), np.tile(np.arange(3.0), (2, 1)))


def test_gradients_accumulate_and_grad_can_be_reset():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    x.grad = None
    assert x.grad is None


def test_matmul_gradients():
    rng = np.random.default_rng(0)
    an, bn = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    a, b = leaf(an), leaf(bn)
    g = rng.standard_normal((3, 2))
    (a @ b).backward(ember.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), g @ bn.T)
    np.testing.assert_allclose(b.grad.numpy(), an.T @ g)


def test_grad_fn_names_and_leaf_flags():
    x = leaf([1.0])
    y = x * 2
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert y.grad_fn.name() == "MulBackward0"
    (fn, nr), _ = y.grad_fn.next_functions
    assert fn.name() == "AccumulateGrad" and nr == 0
    assert x.grad_fn is None


def test_autograd_grad_does_not_touch_leaves():
    x = leaf([1.0, 2.0])
    (g,) = autograd.grad((x ** 3).sum(), x)
    np.testing.assert_allclose(g.numpy(), [3.0, 12.0])
    assert x.grad is None


def test_create_graph_gives_second_derivatives():
    x = leaf([0.3, 1.2])
    (g,) = autograd.grad((x ** 3).sum(), x, create_graph=True)
    (h,) = autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * np.array([0.3, 1.2]))


def test_allow_unused():
    x, y = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match="not have been used"):
        autograd.grad((x * 2).sum(), [x, y])
    gx, gy = autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
    assert gy is None and gx.item() == 2.0


def test_backward_inputs_only_accumulates_there():
    x, y = leaf([1.0]), leaf([2.0])
    (x * y).sum().backward(inputs=[x])
    assert x.grad.item() == 2.0 and y.grad is None


def test_modes():
    x = leaf([1.0])
    with ember.no_grad():
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled()

    @ember.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad


def test_inference_mode_tensors_refuse_autograd():
    with ember.inference_mode():
        t = ember.ones(2)
        assert not ember.is_grad_enabled() and t.is_inference()
    assert ember.is_grad_enabled()
    with pytest.raises(RuntimeError, match="inference tensor"):
        t.requires_grad_()
    w = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved"):
        w * t


def test_inplace_on_saved_tensor_is_caught():
    x = leaf([1.0, 2.0])
    y = x.exp()
    z = y * 1.0
    y.add_(1)  # exp saved its output
    want = r"modified by an inplace operation.*ExpBackward0.*version 1; expected version 0"
    with pytest.raises(RuntimeError, match=want):
        z.sum().backward()


def test_backward_twice_without_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x.exp()).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_inplace_on_leaf_that_requires_grad():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        x[0:1].mul_(2)
    with ember.no_grad():
        x.add_(1)  # allowed without recording
    assert x.item() == 2.0


def test_requires_grad_only_for_float_and_complex():
    with pytest.raises(RuntimeError, match="floating point and complex"):
        ember.tensor([1, 2], requires_grad=True)


def test_backward_of_non_scalar_needs_gradient():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        ember.ones(1).backward()


def test_inplace_ops_record_history():
    xn = np.array([0.5, 1.5])
    x = leaf(xn)
    y = x * 1.0
    y.mul_(x)          # y = x^2; y's old value (needed for x's gradient) was saved before the write
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * xn * np.exp(xn ** 2))


def test_setitem_on_a_copy_of_a_leaf():
    w = leaf([1.0, 2.0, 3.0])
    x = w * 1.0
    x[1] = 10.0
    (x * ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 0.0, 3.0])


def test_setitem_of_a_value_that_requires_grad():
    v = leaf([2.0])
    x = ember.zeros(3, dtype=ember.float64)
    x[1:2] = v * 3
    assert x.requires_grad
    (x * x).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [2 * 6.0 * 3])


def test_inplace_through_view_of_non_leaf():
    w = leaf([1.0, 2.0, 3.0, 4.0])
    x = w * 2.0
    v = x[1:3]
    v.mul_(ember.tensor([5.0, 7.0], dtype=ember.float64))
    x.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 10.0, 14.0, 2.0])
    assert v.grad_fn is not None


def test_advanced_indexing_gradient_accumulates_repeats():
    w = leaf([1.0, 2.0, 3.0])
    w[ember.tensor([0, 0, 2])].sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 0.0, 1.0])


def test_hooks():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2)
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_allclose(seen[0], [3.0, 3.0])
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    y = x * 2
    y.register_hook(lambda g: g * 0)
    x.grad = None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.sum().item()))
    (x * 1).sum().backward()
    assert calls == [2.0]


def test_retain_grad():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [4.0, 8.0])


def test_detach():
    x = leaf([1.0])
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)
    assert x.item() == 2.0  # same memory


def test_complex_gradient_is_conjugate_wirtinger():
    zn = np.array([1 + 2j, -0.5 + 0.25j])
    z = ember.tensor(zn, requires_grad=True)
    (z * z.conj()).real.sum().backward()  # |z|^2
    np.testing.assert_allclose(z.grad.numpy(), 2 * zn)
    # gradient descent on a real loss of a complex parameter converges
    p = ember.tensor(np.array([3 - 1j]), requires_grad=True)
    target = ember.tensor(np.array([1 + 1j]))
    for _ in range(100):
        loss = ((p - target).abs() ** 2).sum()
        p.grad = None
        loss.backward()
        with ember.no_grad():
            p.sub_(p.grad * 0.1)
    np.testing.assert_allclose(p.detach().numpy(), [1 + 1j], atol=1e-6)


def test_anomaly_mode_names_the_op_that_made_nan():
    x = leaf([0.0])
    with pytest.warns(UserWarning):
        with autograd.detect_anomaly():
            y = (x.sqrt() * 0.0).sum()  # sqrt'(0) = inf, times 0 = nan
            with pytest.raises(RuntimeError, match=r"(?s)Function 'SqrtBackward0' returned nan.*test_autograd.py"):
                y.backward()


# ---- the acceptance checks of functional ---------------------------------------------------------

def test_hessian_of_sin_times_exp_is_analytic():
    xn = np.array([0.1, -0.7, 1.3])
    H = functional.hessian(lambda x: (x.sin() * x.exp()).sum(), ember.tensor(xn))
    np.testing.assert_allclose(H.numpy(), np.diag(2 * np.cos(xn) * np.exp(xn)), atol=1e-12)


def test_jacobian_vectorized_equals_row_by_row():
    rng = np.random.default_rng(1)
    A = ember.tensor(rng.standard_normal((3, 4)))

    def f(x, y):
        return (A @ x).tanh() * y.sum(), x.exp()
    x, y = ember.tensor(rng.standard_normal(4)), ember.tensor(rng.standard_normal(2))
    rows = functional.jacobian(f, (x, y))
    vec = functional.jacobian(f, (x, y), vectorize=True)
    for r1, r2 in zip(rows, vec):
        for a, b in zip(r1, r2):
            np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-14)
    # and against the analytic Jacobian of exp
    np.testing.assert_allclose(rows[1][0].numpy(), np.diag(np.exp(x.numpy())))


def test_vjp_jvp_hvp():
    xn = np.array([0.2, 0.9])
    x, v = ember.tensor(xn), ember.tensor([1.0, -2.0], dtype=ember.float64)
    out, g = functional.vjp(lambda t: t ** 3, x, v)
    np.testing.assert_allclose(g.numpy(), 3 * xn ** 2 * np.array([1.0, -2.0]))
    out, jv = functional.jvp(lambda t: t.sin(), x, v)
    np.testing.assert_allclose(jv.numpy(), np.cos(xn) * np.array([1.0, -2.0]))
    out, hv = functional.hvp(lambda t: (t ** 3).sum(), x, v)
    np.testing.assert_allclose(hv.numpy(), 6 * xn * np.array([1.0, -2.0]))


# ---- custom Functions ----------------------------------------------------------------------------

class CubeAndSign(Function):
    """y = x^3 and sign(x) (not differentiable)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = x.sign()
        ctx.mark_non_differentiable(s)
        return x ** 3, s

    @staticmethod
    def backward(ctx, gy, gs):
        (x,) = ctx.saved_tensors
        return gy * 3 * x ** 2


class ScaleInPlace(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        x.mul_(k)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_custom_function_gradients():
    xn = np.array([-1.5, 0.5, 2.0])
    x = leaf(xn)
    y, s = CubeAndSign.apply(x)
    assert not s.requires_grad and y.grad_fn.name() == "CubeAndSignBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * xn ** 2)
    assert gradcheck(lambda t: CubeAndSign.apply(t)[0], (leaf(xn),))


def test_custom_function_mark_dirty():
    w = leaf([1.0, 2.0])
    x = w * 1.0
    y = ScaleInPlace.apply(x, 3.0)
    assert y is x
    (y * y).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * 9 * np.array([1.0, 2.0]))
    assert gradcheck(lambda t: ScaleInPlace.apply(t * 1.0, 3.0), (leaf([1.0, 2.0]),))


def test_custom_function_wrong_number_of_gradients():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Bad.apply(leaf([1.0]), leaf([2.0])).sum().backward()


def test_gradcheck_catches_a_wrong_gradient():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x  # should be 2x

    assert not gradcheck(Wrong.apply, (leaf([1.0, 2.0]),), raise_exception=False)


def test_gradgradcheck_on_composite():
    assert gradgradcheck(lambda a, b: (a * b.sin()).sum() * a, (leaf([0.5, 1.5]), leaf([0.2, -0.4])))


# ---- bad input ----------------------------------------------------------------------------------

def test_grad_setter_checks_dtype_and_shape():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="assign a gradient with dtype 'float32' to a tensor with dtype 'float64'"):
        x.grad = ember.zeros(2, dtype=ember.float32)
    with pytest.raises(RuntimeError, match="assign a gradient of size"):
        x.grad = ember.zeros(3, dtype=ember.float64)
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = [0.0, 0.0]


def test_hook_and_retain_grad_errors():
    t = ember.ones(2)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        t.register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        t.retain_grad()
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g[:1])
    with pytest.raises(RuntimeError, match="hook returned a gradient of shape"):
        (x * 2).sum().backward()
    y = leaf([1.0])
    y.register_hook(lambda g: "not a tensor")
    with pytest.raises(TypeError, match="must return a Tensor or None"):
        (y * 2).sum().backward()


def test_requires_grad_false_on_non_leaf_is_refused():
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)


def test_out_argument_refuses_autograd():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=... arguments don't support automatic"):
        ember.add(x, x, out=ember.empty(2, dtype=ember.float64))
    with ember.no_grad():
        ember.add(x, x, out=ember.empty(2, dtype=ember.float64))  # fine without recording


def test_not_differentiable_op_raises_at_backward_with_its_reason():
    x = leaf([1.0, 2.0, 2.5])
    y = ember.histc(x, bins=3, min=0, max=3)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match="'histc' is not differentiable: a histogram counts elements"):
        y.sum().backward()


def test_ops_whose_outputs_never_require_grad():
    x = leaf([1.0, 2.0, 2.5])
    for y in (ember.zeros_like(x), ember.rand_like(x), ember.argmax(x), x > 1, ember.isnan(x)):
        assert not y.requires_grad and y.grad_fn is None
    z = x * 2 + ember.zeros_like(x)  # a constant joins the graph without breaking it
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_missing_derivative_names_op_and_argument():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([0.5, 0.5])
    y = ember.scatter(x, 0, ember.tensor([0, 2]), w, reduce="multiply")
    with pytest.raises(NotImplementedError, match="scatter with reduce='multiply' is not implemented"):
        y.sum().backward()


def test_backward_argument_errors():
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="cannot be empty"):
        y.sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(ember.ones(3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="does not require grad"):
        autograd.grad(y.sum(), ember.ones(2))


def test_jacobian_strategy_checks():
    x = ember.tensor([1.0, 2.0], dtype=ember.float64)
    with pytest.raises(ValueError, match="only works when `vectorize=True`"):
        functional.jacobian(lambda t: t * 2, x, strategy="forward-mode")
    with pytest.raises(ValueError, match="Expected strategy"):
        functional.jacobian(lambda t: t * 2, x, strategy="sideways")
    J = functional.jacobian(lambda t: t * 2, x, vectorize=True, strategy="forward-mode")
    np.testing.assert_allclose(J.numpy(), 2 * np.eye(2))
    with pytest.raises(RuntimeError, match="v can only be None"):
        functional.vjp(lambda t: t * 2, x)


def test_node_hooks():
    x = leaf([1.0, 2.0])
    y = x * 3
    seen = []
    y.grad_fn.register_prehook(lambda gout: seen.append("pre") or (gout[0] * 10,))
    y.grad_fn.register_hook(lambda gin, gout: seen.append("post"))
    y.sum().backward()
    assert seen == ["pre", "post"]
    np.testing.assert_allclose(x.grad.numpy(), [30.0, 30.0])
    z = leaf([1.0]) * 2
    z.grad_fn.register_prehook(lambda gout: (1, 2))
    with pytest.raises(TypeError, match="must return Tensors or None"):
        z.sum().backward()


def test_custom_function_set_materialize_grads():
    class TwoOut(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            assert g2 is None  # the second output was not used
            return g1 * 2

    x = leaf([1.0])
    a, _ = TwoOut.apply(x)
    a.sum().backward()
    assert x.grad.item() == 2.0


def test_samplers_have_zero_gradient():
    p = ember.tensor([0.2, 0.7], dtype=ember.float64, requires_grad=True)
    (ember.bernoulli(p) * 3).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    rate = ember.tensor([1.5, 4.0], dtype=ember.float64, requires_grad=True)
    ember.poisson(rate).sum().backward()
    np.testing.assert_array_equal(rate.grad.numpy(), [0.0, 0.0])
    w = leaf([1.0, 2.0])
    y = w * 1.0
    y.uniform_()  # overwritten: no gradient reaches w through it
    (y * 5).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])


def test_missing_derivative_raises_also_for_autograd_grad():
    x = leaf([0.5, 1.5])
    y = (x * 2).sum() + ember.histc(x.exp(), bins=4, min=0, max=5).sum()
    with pytest.raises(RuntimeError, match="'histc' is not differentiable"):
        autograd.grad(y, x)  # a pruned run must still reach the node that cannot differentiate


def test_cumprod_and_prod_gradients_with_zeros():
    for values in ([2.0, 0.0, 3.0, -1.5], [0.0, 2.0, 0.0, 0.5], [1.5, -0.5, 2.0]):
        assert gradcheck(lambda t: t.cumprod(0), (leaf(values),))
        assert gradgradcheck(lambda t: t.cumprod(0), (leaf(values),))
        assert gradgradcheck(lambda t: t.prod(), (leaf(values),))
    x = leaf([2.0, 0.0, 3.0])
    x.prod().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 6.0, 0.0])  # the product of the others


def test_gradcheck_on_a_non_contiguous_input():
    x = ember.tensor(np.arange(6.0).reshape(2, 3) / 7).t().detach().requires_grad_()
    assert not x.is_contiguous()
    assert gradcheck(lambda t: (t * t.exp()).sum(0), (x,))
    with pytest.raises(NotImplementedError, match="check_batched_grad"):
        gradcheck(lambda t: t * 2, (x,), check_batched_grad=True)


def test_data_setter_swaps_values_keeps_autograd_state():
    p = leaf([1.0, 2.0])
    p.data = ember.tensor([5.0, 6.0, 7.0], dtype=ember.float64)
    assert p.requires_grad and p.is_leaf and p.tolist() == [5.0, 6.0, 7.0]
    (p * 2).sum().backward()
    assert p.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="must match the shape and dtype of its .grad"):
        p.data = ember.zeros(2, dtype=ember.float64)
    with pytest.raises(TypeError, match="data must be a Tensor"):
        p.data = [1.0]


def test_ops_returning_their_input_add_no_history():
    w = leaf([[1.0, 2.0], [3.0, 4.0]])
    assert w.flatten(1) is w and w.contiguous() is w
    assert w.is_leaf and w.grad_fn is None  # it must not become its own ancestor
    (w.flatten(1) * 2).sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
