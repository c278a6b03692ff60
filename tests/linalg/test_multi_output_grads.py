"""Gradients of multi-output linalg ops whose integer outputs sit between differentiable ones: lstsq's
rank comes before singular_values, and the gradient of singular_values must still reach its formula
(against the NumPy SVD: d(sum s)/dA = U V^H)."""
import numpy as np

import ember


def test_lstsq_singular_values_gradient_after_the_rank_output():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 4))
    A = ember.tensor(a, requires_grad=True)
    B = ember.tensor(rng.standard_normal((6, 2)))
    out = ember.linalg.lstsq(A, B, driver="gelsd")
    assert out.rank.dtype == ember.int64 and not out.rank.requires_grad
    out.singular_values.sum().backward()
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(A.grad.numpy(), u @ vh, rtol=1e-10, atol=1e-12)


def test_lstsq_solution_and_singular_values_gradients_add_up():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 1))
    A = ember.tensor(a, requires_grad=True)
    out = ember.linalg.lstsq(A, ember.tensor(b), driver="gelss")
    (out.solution.sum() + 2 * out.singular_values.sum()).backward()
    # d(sum x)/dA for x = pinv(A) b, by central differences in NumPy.
    eps, fd = 1e-6, np.zeros_like(a)

    def f(m):
        return np.linalg.lstsq(m, b, rcond=None)[0].sum()

    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            d = np.zeros_like(a)
            d[i, j] = eps
            fd[i, j] = (f(a + d) - f(a - d)) / (2 * eps)
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(A.grad.numpy(), fd + 2 * (u @ vh), rtol=1e-6, atol=1e-7)
