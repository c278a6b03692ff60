"""ember.lobpcg (core/ember/_lobpcg.py) against NumPy/SciPy eigensolvers; its gradient against central differences
of np.linalg.eigh; PyTorch's argument checks and messages."""
import numpy as np
import pytest
import scipy.linalg

import ember


def _spd(n, seed=0, shift=1.0):
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + shift * np.eye(n)


def _residual(A, E, X, B=None):
    return np.abs(A @ X - (B if B is not None else np.eye(len(A))) @ X * E).max()


@pytest.mark.parametrize("largest", [True, False])
def test_standard_problem_matches_eigh(largest):
    A = _spd(30)
    want = np.linalg.eigh(A)[0]
    want = want[::-1][:3] if largest else want[:3]
    E, X = ember.lobpcg(ember.tensor(A), k=3, largest=largest)
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-7)
    assert _residual(A, E.numpy(), X.numpy()) < 1e-5 * np.abs(want).max()
    np.testing.assert_allclose(X.numpy().T @ X.numpy(), np.eye(3), atol=1e-7)


def test_generalized_problem_preconditioner_and_start():
    A, B = _spd(30, 1), _spd(30, 2, shift=30.0)
    want = scipy.linalg.eigh(A, B)[0][::-1][:2]
    X0 = ember.tensor(np.random.default_rng(3).standard_normal((30, 4)))
    iK = ember.tensor(np.linalg.inv(A + np.eye(30)))
    E, X = ember.lobpcg(ember.tensor(A), k=2, B=ember.tensor(B), X=X0, iK=iK)
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-7)
    np.testing.assert_allclose(X.numpy().T @ B @ X.numpy(), np.eye(2), atol=1e-7)  # B-orthonormal


def test_float32_and_batches_and_tracker():
    A = np.stack([_spd(20, 4), 2 * _spd(20, 5)])
    E, X = ember.lobpcg(ember.tensor(A), k=2, n=3)
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, 20, 2)
    for b in range(2):
        np.testing.assert_allclose(E.numpy()[b], np.linalg.eigh(A[b])[0][::-1][:2], rtol=1e-7)
    steps = []
    E32, _ = ember.lobpcg(ember.tensor(A[0]).float(), k=1, tracker=lambda w: steps.append(w.ivars["converged_count"]))
    assert E32.dtype == ember.float32 and steps and steps[-1] == 1
    np.testing.assert_allclose(E32.numpy(), np.linalg.eigh(A[0])[0][-1:], rtol=1e-4)


def _np_eigpairs(A, k, X_sign):
    w, v = np.linalg.eigh((A + A.T) / 2)
    v = v[:, ::-1][:, :k]
    return w[::-1][:k], v * np.sign((v * X_sign).sum(0))


def test_gradient_matches_central_differences_of_eigh():
    A = _spd(9, 6)
    X0 = ember.tensor(np.random.default_rng(7).standard_normal((9, 2)))
    gE, gU = np.array([0.7, -1.3]), np.random.default_rng(8).standard_normal((9, 2))
    a = ember.tensor(A, requires_grad=True)
    E, U = ember.lobpcg(a, k=2, X=X0, tol=1e-10)
    (E * ember.tensor(gE)).sum().add((U * ember.tensor(gU)).sum()).backward()
    ref_U = U.detach().numpy()

    def loss(M):
        w, v = _np_eigpairs(M, 2, ref_U)
        return (w * gE).sum() + (v * gU).sum()
    eps, numeric = 1e-6, np.zeros_like(A)
    for i in range(9):
        for j in range(9):
            d = np.zeros_like(A)
            d[i, j] = eps
            numeric[i, j] = (loss(A + d) - loss(A - d)) / (2 * eps)
    np.testing.assert_allclose(a.grad.numpy(), numeric, atol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), a.grad.numpy().T, atol=1e-12)  # symmetric, as PyTorch's


def test_errors_as_pytorch():
    A = ember.tensor(_spd(10))
    with pytest.raises(ValueError, match=r"LOBPCG algorithm is not applicable when the number of A rows \(=10\) is "
                                         r"smaller than 3 x the number of requested eigenpairs \(=4\)"):
        ember.lobpcg(A, k=4)
    with pytest.raises(AssertionError, match="A must be square"):
        ember.lobpcg(A[:2, :3])
    with pytest.raises(AssertionError, match="X shape mismatch"):
        ember.lobpcg(A, k=2, X=ember.randn(9, 2, dtype=ember.float64))
    a, b = A.clone().requires_grad_(), ember.tensor(_spd(10, 1, shift=10.0))
    E, _ = ember.lobpcg(a, k=1, B=b)
    with pytest.raises(ValueError, match="lobpcg.backward does not support backward with B != I yet."):
        E.sum().backward()
