"""Sparse @ dense products (ember.sparse.mm, spmm, addmm, mm/matmul/@) against SciPy's sparse matrices,
their gradients against dense references, the CSR kernels' argument checks, and thread-count independence."""
import numpy as np
import pytest
import scipy.sparse as sp

import ember


def _scipy_and_ember(rng, m, k, density, dtype=np.float64, layout="coo"):
    ref = sp.random(m, k, density=density, format="coo", random_state=rng, dtype=dtype)
    idx = ember.tensor(np.stack([ref.row, ref.col]).astype(np.int64))
    s = ember.sparse_coo_tensor(idx, ember.tensor(ref.data), (m, k))
    return ref, (s.to_sparse_csr() if layout == "csr" else s)


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-5)])
@pytest.mark.parametrize("m,k,n,density", [(7, 5, 3, 0.4), (60, 80, 17, 0.05), (1, 4, 1, 1.0), (5, 6, 4, 0.0),
                                           (300, 200, 33, 0.02)])
def test_products_match_scipy(layout, dtype, tol, m, k, n, density):
    rng = np.random.default_rng(m * 1000 + k)
    ref, s = _scipy_and_ember(rng, m, k, density, dtype, layout)
    d = rng.standard_normal((k, n)).astype(dtype)
    want = ref @ d
    de = ember.tensor(d)
    for got in (ember.sparse.mm(s, de), ember.spmm(s, de), ember.mm(s, de), ember.matmul(s, de), s @ de, s.mm(de),
                s.matmul(de)):
        assert got.dtype == s.dtype and got.shape == (m, n)
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def test_uncoalesced_coo_product_sums_duplicates():
    rows, cols, vals = np.array([0, 0, 2, 0]), np.array([1, 1, 0, 2]), np.array([1.0, 2.0, 3.0, 4.0])
    s = ember.sparse_coo_tensor(ember.tensor(np.stack([rows, cols])), ember.tensor(vals), (3, 3))
    d = np.arange(6.0).reshape(3, 2)
    want = sp.coo_matrix((vals, (rows, cols)), shape=(3, 3)) @ d
    np.testing.assert_allclose(ember.sparse.mm(s, ember.tensor(d)).numpy(), want)


def test_matrix_vector_and_dense_at_sparse():
    rng = np.random.default_rng(4)
    ref, s = _scipy_and_ember(rng, 6, 5, 0.4)
    v = rng.standard_normal(5)
    np.testing.assert_allclose((s @ ember.tensor(v)).numpy(), ref @ v, rtol=1e-12)
    d = rng.standard_normal((3, 6))
    want = d @ ref.toarray()
    np.testing.assert_allclose((ember.tensor(d) @ s).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(ember.mm(ember.tensor(d), s).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(ember.matmul(ember.tensor(d), s.to_sparse_csr()).numpy(), want, rtol=1e-12)


def test_addmm():
    rng = np.random.default_rng(5)
    ref, s = _scipy_and_ember(rng, 6, 5, 0.4)
    d, c = rng.standard_normal((5, 3)), rng.standard_normal((6, 3))
    want = 2.0 * c + 3.0 * (ref @ d)
    np.testing.assert_allclose(ember.sparse.addmm(ember.tensor(c), s, ember.tensor(d), beta=2.0, alpha=3.0).numpy(),
                               want, rtol=1e-12)
    np.testing.assert_allclose(ember.addmm(ember.tensor(c), s, ember.tensor(d), beta=2.0, alpha=3.0).numpy(), want,
                               rtol=1e-12)
    np.testing.assert_allclose(ember.addmm(ember.tensor(c), ember.tensor(ref.toarray()), ember.tensor(d), beta=2.0,
                                           alpha=3.0).numpy(), want, rtol=1e-12)  # the dense path is unchanged


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_gradients_to_dense_operand_and_sparse_values(layout):
    rng = np.random.default_rng(6)
    ref, s = _scipy_and_ember(rng, 8, 6, 0.35, layout=layout)
    s.requires_grad_()
    d = ember.tensor(rng.standard_normal((6, 4)), requires_grad=True)
    w = rng.standard_normal((8, 4))
    (ember.sparse.mm(s, d) * ember.tensor(w)).sum().backward()
    # d(sum(W * (A D)))/dD = A^T W; w.r.t. A's stored entries: (W D^T) at those entries only.
    np.testing.assert_allclose(d.grad.numpy(), ref.T @ w, rtol=1e-12)
    g = s.grad
    assert g is not None and g.layout is s.layout and g._nnz() == s._nnz()
    full = w @ d.detach().numpy().T
    mask = (ref.toarray() != 0)
    np.testing.assert_allclose(g.to_dense().numpy(), full * mask, rtol=1e-12, atol=1e-14)


def test_gradient_through_uncoalesced_values_and_addmm():
    vals = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = ember.sparse_coo_tensor(ember.tensor([[0, 0, 1], [1, 1, 0]]), vals, (2, 2))  # (0, 1) twice
    d = ember.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = ember.sparse.addmm(ember.zeros(2, 2), s, d, alpha=2.0)
    out.sum().backward()
    # each value at (r, c) gets 2 * sum_j d[c, j]
    np.testing.assert_allclose(vals.grad.numpy(), [14.0, 14.0, 6.0])
    np.testing.assert_allclose(d.grad.numpy(), 2.0 * np.array([[3.0, 3.0], [3.0, 3.0]]))


def test_gradcheck_float64():
    rng = np.random.default_rng(7)
    ref = sp.random(5, 4, density=0.5, format="csr", random_state=rng)
    crow, col = ember.tensor(ref.indptr.astype(np.int64)), ember.tensor(ref.indices.astype(np.int64))

    def f(values, dense):
        return ember.sparse.mm(ember.sparse_csr_tensor(crow, col, values, (5, 4)), dense)
    values = ember.tensor(ref.data, requires_grad=True)
    dense = ember.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert ember.autograd.gradcheck(f, (values, dense))
    assert ember.autograd.gradgradcheck(f, (values, dense))  # the backward is differentiable too


def test_product_errors():
    s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 3))
    with pytest.raises(RuntimeError, match="addmm: Argument #3 \\(dense\\): Expected dim 0 size 3, got 4"):
        ember.sparse.mm(s, ember.ones(4, 2))
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied \\(2x3 and 4x2\\)"):
        s.to_sparse_csr() @ ember.ones(4, 2)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        ember.sparse.mm(s, ember.ones(3, 2, dtype=ember.float64))
    with pytest.raises(NotImplementedError, match="sparse @ sparse"):
        ember.sparse.mm(s, s.t())


@pytest.mark.parametrize("call,message", [
    (lambda: ember._C._sparse_csr_mm(ember.ones(2), ember.tensor([0, 1, 2]), ember.tensor([0, 5]), ember.ones(3, 2)),
     "`0 <= col_indices < ncols` is not satisfied"),
    (lambda: ember._C._sparse_csr_mm(ember.ones(2), ember.tensor([0, 2, 1]), ember.tensor([0, 1]), ember.ones(3, 2)),
     r"`crow_indices\[..., -1\] == nnz` is not satisfied"),
    (lambda: ember._C._sparse_csr_mm(ember.ones(3), ember.tensor([0, 2, 1, 3]), ember.tensor([0, 1, 1]),
                                  ember.ones(3, 2)), "is not satisfied"),
    (lambda: ember._C._sparse_csr_mm(ember.ones(3), ember.tensor([0, 1, 2]), ember.tensor([0, 1]), ember.ones(3, 2)),
     "values and col_indices must have the same length"),
    (lambda: ember._C._sparse_csr_mm(ember.ones(2), ember.tensor([0, 1, 2]), ember.tensor([0, 1]),
                                  ember.ones(3, 2, dtype=ember.float64)), "same dtype"),
    (lambda: ember._C._sparse_csr_mm(ember.ones(2), ember.tensor([0.0, 1, 2]), ember.tensor([0.0, 1]),
                                     ember.ones(3, 2)), "int32 or int64"),
    (lambda: ember._C._sparse_csr_sddmm(ember.ones(3, 2), ember.tensor([0, 1, 2]), ember.tensor([0, 1]),
                                     ember.ones(3, 2)), "one row per row of the pattern"),
    (lambda: ember._C._sparse_csr_transpose(ember.tensor([0, 1, 2]), ember.tensor([0, 1]), -1), "non-negative"),
])
def test_kernel_argument_checks(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_kernel_dtype_refused():
    with pytest.raises(TypeError, match="not implemented for dtype"):
        ember._C._sparse_csr_mm(ember.ones(2, dtype=ember.int64), ember.tensor([0, 1, 2]), ember.tensor([0, 1]),
                             ember.ones(3, 2, dtype=ember.int64))


def test_transpose_kernel_matches_scipy():
    ref = sp.random(9, 6, density=0.3, format="csr", random_state=8)
    for itype in (np.int64, np.int32):
        crow_t, col_t, perm = ember._C._sparse_csr_transpose(ember.tensor(ref.indptr.astype(itype)),
                                                          ember.tensor(ref.indices.astype(itype)), 6)
        t = ref.T.tocsr()
        t.sort_indices()
        np.testing.assert_array_equal(crow_t.numpy(), t.indptr)
        np.testing.assert_array_equal(col_t.numpy(), t.indices)
        np.testing.assert_array_equal(ref.data[perm.numpy()], t.data)


def test_same_result_on_1_2_3_threads():
    rng = np.random.default_rng(9)
    ref, s = _scipy_and_ember(rng, 400, 300, 0.05, np.float32, "csr")
    d = ember.tensor(rng.standard_normal((300, 64)).astype(np.float32))
    threads = ember.get_num_threads()
    try:
        outs = []
        for n in (1, 2, 3):
            ember.set_num_threads(n)
            grad = ember.ones(400, 64)
            outs.append((ember.sparse.mm(s, d).numpy(),
                         ember._C._sparse_csr_sddmm(grad, s.crow_indices(), s.col_indices(), d).numpy()))
        for o in outs[1:]:
            np.testing.assert_array_equal(o[0], outs[0][0])  # each row summed in one fixed order
            np.testing.assert_array_equal(o[1], outs[0][1])
    finally:
        ember.set_num_threads(threads)
