"""ember.linalg beyond the generic op tests: LinAlgError naming the batch element, the _ex forms'
info codes, bad shapes and dtypes, strided (non-contiguous) inputs, out=, and the gradient
conventions PyTorch has for svd/eigh/qr (what raises, what is ignored)."""
import numpy as np
import pytest

import ember
import ember.linalg as la


def t(x, dtype=np.float64):
    return ember.tensor(np.asarray(x, dtype=dtype))


def spd(n, batch=(), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(batch + (n, n))
    return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)


def test_linalg_error_is_a_runtime_error():
    assert issubclass(la.LinAlgError, RuntimeError)
    assert la.LinAlgError.__module__ == "ember.linalg"


# --- LinAlgError and info ------------------------------------------------------------------------

def test_cholesky_names_the_batch_element_and_minor():
    a = spd(3, (4,))
    a[3, 1, 1] = -5.0  # the leading minor of order 2 of element 3 is not positive-definite
    with pytest.raises(la.LinAlgError, match=r"linalg.cholesky: \(Batch element 3\): The factorization could not be "
                       r"completed because the input is not positive-definite \(the leading minor of order 2 is not "
                       r"positive-definite\)."):
        la.cholesky(t(a))
    L, info = la.cholesky_ex(t(a))
    assert info.dtype == ember.int32 and info.tolist() == [0, 0, 0, 2]
    with pytest.raises(la.LinAlgError, match="Batch element 3"):
        la.cholesky_ex(t(a), check_errors=True)


def test_cholesky_of_one_matrix_has_no_batch_part():
    with pytest.raises(la.LinAlgError, match=r"^linalg.cholesky: The factorization .* order 1 "):
        la.cholesky(t([[-1.0, 0.0], [0.0, 1.0]]))


def test_singular_inputs():
    a = np.stack([np.eye(3), np.ones((3, 3))])
    with pytest.raises(la.LinAlgError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 2 is zero"):
        la.inv(t(a))
    inv, info = la.inv_ex(t(a))
    assert info.tolist() == [0, 2]
    np.testing.assert_allclose(inv[0].numpy(), np.eye(3))
    with pytest.raises(la.LinAlgError, match=r"linalg.solve: \(Batch element 1\): The solver failed because the "
                       r"input matrix is singular."):
        la.solve(t(a), t(np.ones((2, 3, 1))))
    assert la.solve_ex(t(a), t(np.ones((2, 3))))[1].tolist() == [0, 2]
    with pytest.raises(la.LinAlgError, match=r"linalg.lu_factor: \(Batch element 1\): U\[2,2\] is zero"):
        la.lu_factor(t(a))
    assert la.lu_factor_ex(t(a)).info.tolist() == [0, 2]
    assert la.det(t(a)).tolist() == [1.0, 0.0]
    sign, logabs = la.slogdet(t(a))
    assert sign.tolist() == [1.0, 0.0] and logabs[1].item() == -np.inf


def test_ex_forms_are_not_checked_by_default_and_return_named_tuples():
    r = la.cholesky_ex(t(-np.eye(2)))
    assert r.info.item() == 1 and r.L.shape == (2, 2)
    assert la.solve_ex(t(np.eye(2)), t([1.0, 2.0])).result.tolist() == [1.0, 2.0]
    assert type(la.svd(t(np.eye(2)))).__name__ == "linalg_svd"
    assert la.slogdet(t(np.eye(2))).logabsdet.item() == 0.0


@pytest.mark.parametrize("fn", [la.cholesky, la.inv, la.det, la.slogdet, la.eigh, la.eigvalsh, la.eig, la.eigvals])
def test_square_input_required(fn):
    with pytest.raises(RuntimeError, match=r"A must be batches of square matrices, but they are 2 by 3 matrices"):
        fn(t(np.ones((2, 3))))
    with pytest.raises(RuntimeError, match=r"The input tensor A must have at least 2 dimensions"):
        fn(t(np.ones(3)))


@pytest.mark.parametrize("fn", [la.cholesky, la.inv, la.svd, la.qr, la.eigh, la.det, la.lu_factor, la.eig])
def test_dtypes(fn):
    with pytest.raises(RuntimeError, match=r"Expected a floating point or complex tensor as input. Got Long"):
        fn(ember.tensor(np.eye(2, dtype=np.int64)))
    with pytest.raises(RuntimeError, match="Got Half"):
        fn(ember.tensor(np.eye(2, dtype=np.float16)))


def test_solve_shape_and_dtype_errors():
    A = t(np.eye(3))
    with pytest.raises(RuntimeError, match=r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 2x1\)"):
        la.solve(A, t(np.ones((2, 1))))
    with pytest.raises(RuntimeError, match="batch dimensions of the inputs do not broadcast"):
        la.solve(t(np.ones((2, 3, 3))), t(np.ones((3, 3, 1))))
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype"):
        la.solve(A, t(np.ones((3, 1)), np.float32))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        la.solve_triangular(A, t(np.ones((2, 2))), upper=True)
    with pytest.raises(TypeError):
        la.solve_triangular(A, t(np.ones((3, 2))))  # upper is required
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        la.eigh(A, UPLO="X")
    with pytest.raises(RuntimeError, match="qr received unrecognized mode 'full'"):
        la.qr(A, mode="full")
    for fn in (la.svd, la.svdvals):  # PyTorch's driver= is for cuSOLVER only
        with pytest.raises(RuntimeError, match="`driver=` is only supported on CUDA inputs with cuSOLVER backend"):
            fn(A, driver="gesvd")
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        la.lstsq(A, t(np.ones((3, 1))), driver="bad")
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        la.lu_factor(A, pivot=False)
    with pytest.raises(RuntimeError, match="pivots should be a Tensor of scalar type int32"):
        la.lu_solve(A, ember.tensor(np.array([1, 2, 3])), t(np.ones((3, 1))))


# --- strided inputs and out= ---------------------------------------------------------------------

def test_strided_inputs():
    rng = np.random.default_rng(1)
    big = rng.standard_normal((3, 6, 6)) + 6 * np.eye(6)
    A = t(big)[:, ::2, ::2].mT  # non-contiguous, transposed
    a = np.swapaxes(big[:, ::2, ::2], -1, -2)
    assert not A.is_contiguous()
    B = t(rng.standard_normal((3, 4, 3))).mT  # 3 x 3 x 4 read transposed
    b = B.numpy()
    np.testing.assert_allclose(la.solve(A, B).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(la.inv(A).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(la.det(A).numpy(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(la.svdvals(A).numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    s = a @ np.swapaxes(a, -1, -2)
    S = A @ A.mT
    np.testing.assert_allclose(la.cholesky(S).numpy(), np.linalg.cholesky(s), rtol=1e-10)
    np.testing.assert_allclose(la.eigvalsh(S).numpy(), np.linalg.eigvalsh(s), rtol=1e-10)


def test_results_are_usable_tensors():
    """Results come back in LAPACK's column-major layout; they behave as any tensor."""
    X = la.inv(t(spd(3)))
    assert X.shape == (3, 3)
    np.testing.assert_allclose((X @ t(spd(3))).numpy(), np.eye(3), atol=1e-12)
    np.testing.assert_allclose(X.contiguous().view(9).numpy(), np.linalg.inv(spd(3)).ravel(), rtol=1e-12)


def test_out_arguments():
    A = t(spd(3, (2,)))
    out = ember.empty(0, dtype=ember.float64)
    r = la.cholesky(A, out=out)
    assert r is out and out.shape == (2, 3, 3)
    np.testing.assert_allclose(out.numpy(), np.linalg.cholesky(spd(3, (2,))))
    U, S, Vh = (ember.empty(0, dtype=ember.float64) for _ in range(3))
    la.svd(A, out=(U, S, Vh))
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(spd(3, (2,)), compute_uv=False))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        la.inv(A, out=ember.empty(0, dtype=ember.float32))


# --- gradient conventions ------------------------------------------------------------------------

def test_svd_complex_gauge_dependent_loss_raises():
    A = ember.tensor(np.array([[1 + 1j, 2], [0.5j, 3]]), requires_grad=True)
    U, S, Vh = la.svd(A)
    with pytest.raises(RuntimeError, match="singular vectors in the complex case are specified up to multiplication"):
        U[0, 0].real.backward()
    U, S, Vh = la.svd(A)
    (U @ Vh).real.sum().backward()  # phase-invariant: fine
    assert A.grad is not None


def test_eigh_complex_gauge_dependent_loss_raises():
    A = ember.tensor(np.array([[2, 1j], [-1j, 3]]), requires_grad=True)
    L, V = la.eigh(A)
    with pytest.raises(RuntimeError, match="eigenvectors in the complex case are specified up to multiplication"):
        V.real.sum().backward()


def test_svd_full_matrices_ignores_the_extra_columns():
    """As PyTorch: the gradient of U[..., k:] and Vh[..., k:, :] of a full SVD is ignored."""
    rng = np.random.default_rng(2)
    A = t(rng.standard_normal((4, 2)))
    A.requires_grad_()
    U, S, Vh = la.svd(A, full_matrices=True)
    (U[:, 2:].sum() + S.sum()).backward()
    g_full = A.grad.numpy().copy()
    A.grad = None
    U, S, Vh = la.svd(A, full_matrices=False)
    S.sum().backward()
    np.testing.assert_allclose(g_full, A.grad.numpy(), rtol=1e-10)


def test_qr_mode_r_and_complete_tall_are_not_differentiable():
    A = t(np.random.default_rng(3).standard_normal((3, 2)))
    A.requires_grad_()
    with pytest.raises(RuntimeError, match="mode='r'"):
        la.qr(A, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
        la.qr(A, mode="complete").R.sum().backward()


def test_svd_gradient_matches_finite_differences_for_distinct_values():
    rng = np.random.default_rng(4)
    for shape in [(3, 3), (4, 2), (2, 4)]:
        A = t(rng.standard_normal(shape))
        A.requires_grad_()

        def f(x):
            U, S, Vh = la.svd(x, full_matrices=False)
            return (U * U[:1]).sum() + S.pow(2).sum() + (Vh * Vh[:, :1]).sum()
        assert ember.autograd.gradcheck(f, (A,))


@pytest.mark.parametrize("fn", [la.svd, la.svdvals, la.eig, la.eigvals])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_inputs_raise_naming_the_batch_element(fn, bad):
    a = np.stack([np.eye(3), np.eye(3)])
    a[1, 2, 0] = bad
    with pytest.raises(la.LinAlgError, match=r"\(Batch element 1\): The algorithm failed to converge because the input "
                       r"matrix contained non-finite values."):
        fn(t(a))


def test_lu_solve_checks_the_pivots():
    with pytest.raises(RuntimeError, match="pivots must be between 1 and 3, but got 7"):
        la.lu_solve(t(np.eye(3)), ember.tensor(np.array([1, 7, 3], dtype=np.int32)), t(np.ones((3, 1))))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_det_gradient_of_a_singular_matrix(dtype):
    """det's gradient is the adjugate's, also where A has no inverse (through the SVD)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 3)).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * rng.standard_normal((2, 3, 3))
    a[1, 2] = a[1, 0] + a[1, 1]  # element 1 singular (rank 2)
    A = ember.tensor(a, requires_grad=True)
    assert abs(la.det(A)[1].item()) < 1e-12
    assert ember.autograd.gradcheck(la.det, (A,))
    # the adjugate of a rank-2 3x3 matrix is nonzero: the gradient there is not trivially 0
    g = ember.autograd.grad(la.det(A).real.sum(), A)[0]
    assert np.abs(g[1].numpy()).max() > 1e-3


def test_eig_gauge_dependent_loss_raises_and_invariant_one_does_not():
    A = t(np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 1.0, 4.0]]))
    A.requires_grad_()
    L, V = la.eig(A)
    with pytest.raises(RuntimeError, match="eigenvectors in the complex case are specified up to multiplication"):
        V.imag.sum().backward()  # V e^{i phi} changes it at first order
    L, V = la.eig(A)
    (V.abs() ** 2).sum().backward()  # phase-invariant
    assert A.grad is not None and A.grad.dtype == ember.float64


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_lu_solve_gradients_every_form(left, adjoint, dtype):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2) if left else (2, 3))
    if dtype == np.complex128:
        a, b = a + 1j * rng.standard_normal(a.shape), b + 1j * rng.standard_normal(b.shape)
    LU, piv = la.lu_factor(ember.tensor(a))
    LU, B = LU.detach().contiguous(), ember.tensor(b)
    LU.requires_grad_()
    B.requires_grad_()
    fn = lambda lu, rhs: la.lu_solve(lu, piv, rhs, left=left, adjoint=adjoint)
    assert ember.autograd.gradcheck(fn, (LU, B))
    assert ember.autograd.gradgradcheck(fn, (LU, B))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_unitriangular_gradients(upper, left):
    rng = np.random.default_rng(7)
    A = ember.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    B = ember.tensor(rng.standard_normal((3, 2) if left else (2, 3)), requires_grad=True)
    fn = lambda a, b: la.solve_triangular(a, b, upper=upper, left=left, unitriangular=True)
    assert ember.autograd.gradcheck(fn, (A, B))
    assert ember.autograd.gradgradcheck(fn, (A, B))


def test_geqrf_errors_and_no_gradient():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ember.geqrf(ember.ones(3))
    with pytest.raises(RuntimeError, match="floating point or complex"):
        ember.geqrf(ember.ones(2, 2, dtype=ember.int64))
    a, _ = ember.geqrf(ember.randn(3, 2, dtype=ember.float64, requires_grad=True))
    with pytest.raises(RuntimeError, match="derivative of geqrf is not implemented"):
        a.sum().backward()
