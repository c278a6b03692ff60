"""Sparse COO/CSR tensors: construction, layouts, coalesce, conversions and repr, against SciPy's sparse
matrices and NumPy; bad inputs raise PyTorch's errors (its messages written out here)."""
import numpy as np
import pytest
import scipy.sparse as sp

import ember


def _random_coo(rng, shape, nnz, duplicates=True):
    rows = rng.integers(0, shape[0], nnz)
    cols = rng.integers(0, shape[1], nnz)
    if duplicates and nnz > 2:
        rows[1], cols[1] = rows[0], cols[0]  # one repeated position at least
    return rows, cols, rng.standard_normal(nnz)


def test_layouts_and_predicates():
    i = ember.tensor([[0, 1, 1], [2, 0, 2]])
    s = ember.sparse_coo_tensor(i, ember.tensor([3.0, 4.0, 5.0]), (2, 3))
    assert isinstance(s, ember.Tensor) and s.is_sparse and not s.is_sparse_csr
    assert s.layout is ember.sparse_coo and repr(s.layout) == "ember.sparse_coo"
    assert ember.ones(2).layout is ember.strided and not ember.ones(2).is_sparse
    c = s.to_sparse_csr()
    assert c.layout is ember.sparse_csr and c.is_sparse_csr and not c.is_sparse
    assert s.shape == (2, 3) and s.dtype == ember.float32 and s.dim() == 2 and s.device.type == "cpu"
    assert (s.sparse_dim(), s.dense_dim(), s._nnz()) == (2, 0, 3)
    assert (c.sparse_dim(), c.dense_dim(), c._nnz()) == (2, 0, 3)
    assert ember.ones(2, 3).sparse_dim() == 0 and ember.ones(2, 3).dense_dim() == 2


def test_coalesce_matches_scipy_sum_duplicates():
    rng = np.random.default_rng(0)
    rows, cols, vals = _random_coo(rng, (7, 9), 40)
    s = ember.sparse_coo_tensor(ember.tensor(np.stack([rows, cols])), ember.tensor(vals), (7, 9))
    assert not s.is_coalesced()
    c = s.coalesce()
    ref = sp.coo_matrix((vals, (rows, cols)), shape=(7, 9))
    ref.sum_duplicates()  # sorts row-major and sums repeats
    order = np.lexsort((ref.col, ref.row))
    assert c.is_coalesced() and c.coalesce() is c
    np.testing.assert_array_equal(c.indices().numpy(), np.stack([ref.row[order], ref.col[order]]))
    np.testing.assert_allclose(c.values().numpy(), ref.data[order], rtol=1e-12)
    np.testing.assert_allclose(s.to_dense().numpy(), ref.toarray(), rtol=1e-12)
    assert c._nnz() == ref.nnz


def test_uncoalesced_indices_and_values_are_refused():
    s = ember.sparse_coo_tensor([[0, 0], [1, 1]], [1.0, 2.0], (2, 2))
    with pytest.raises(RuntimeError, match="Cannot get indices on an uncoalesced tensor, please call .coalesce"):
        s.indices()
    with pytest.raises(RuntimeError, match="Cannot get values on an uncoalesced tensor"):
        s.values()
    assert s._indices().shape == (2, 2) and s._values().tolist() == [1.0, 2.0]
    assert s.coalesce().values().tolist() == [3.0]


def test_hybrid_coo_to_dense_and_back():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4, 3))
    x[[0, 2, 2], [1, 0, 3]] = 0.0  # whole dense rows zero: not stored
    x[4, 2, 1] = 0.0  # one zero inside a stored row: stays stored
    t = ember.tensor(x)
    s = t.to_sparse(2)
    assert (s.sparse_dim(), s.dense_dim(), s._nnz()) == (2, 1, 20 - 3)
    assert s.values().shape == (17, 3)
    np.testing.assert_array_equal(s.to_dense().numpy(), x)
    s1 = t.to_sparse(1)
    assert (s1.sparse_dim(), s1.dense_dim()) == (1, 2)
    np.testing.assert_array_equal(s1.to_dense().numpy(), x)


def test_dense_to_coo_and_csr_match_scipy():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 8)) * (rng.random((6, 8)) < 0.3)
    t = ember.tensor(x)
    coo, csr, ref = t.to_sparse(), t.to_sparse_csr(), sp.csr_matrix(x)
    assert coo.is_coalesced()
    np.testing.assert_array_equal(csr.crow_indices().numpy(), ref.indptr)
    np.testing.assert_array_equal(csr.col_indices().numpy(), ref.indices)
    np.testing.assert_array_equal(csr.values().numpy(), ref.data)
    np.testing.assert_array_equal(coo.indices().numpy(), np.stack(x.nonzero()))
    np.testing.assert_array_equal(csr.to_dense().numpy(), x)
    back = csr.to_sparse()
    assert back.is_sparse and back.is_coalesced()
    np.testing.assert_array_equal(back.to_dense().numpy(), x)
    assert t.to_sparse(layout=ember.sparse_csr).is_sparse_csr
    assert t.to_dense() is t


def test_sparse_csr_tensor_from_scipy_arrays():
    ref = sp.random(9, 7, density=0.3, format="csr", random_state=3)
    c = ember.sparse_csr_tensor(ember.tensor(ref.indptr.astype(np.int64)), ember.tensor(ref.indices.astype(np.int64)),
                                ember.tensor(ref.data), (9, 7))
    np.testing.assert_array_equal(c.to_dense().numpy(), ref.toarray())
    assert c.crow_indices().dtype == ember.int64 and c.values().dtype == ember.float64


def test_size_inferred():
    s = ember.sparse_coo_tensor([[0, 3], [1, 0]], [1.0, 2.0])
    assert s.shape == (4, 2)
    h = ember.sparse_coo_tensor([[0, 2]], ember.ones(2, 5))
    assert h.shape == (3, 5)
    c = ember.sparse_csr_tensor([0, 1, 3], [2, 0, 1], [3.0, 4.0, 5.0])
    assert c.shape == (2, 3)


def test_empty_sparse():
    s = ember.sparse_coo_tensor(ember.zeros((2, 0), dtype=ember.int64), ember.zeros(0), (2, 3))
    assert s._nnz() == 0 and s.coalesce()._nnz() == 0
    np.testing.assert_array_equal(s.to_dense().numpy(), np.zeros((2, 3)))


def test_repr_as_pytorch():
    s = ember.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
    assert repr(s) == ("tensor(indices=tensor([[0, 1, 1],\n"
                       "                       [2, 0, 2]]),\n"
                       "       values=tensor([3., 4., 5.]),\n"
                       "       size=(2, 3), nnz=3, layout=ember.sparse_coo)")
    c = ember.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], ember.tensor([3.0, 4.0, 5.0], dtype=ember.float64),
                                (2, 3)).to_sparse_csr()
    assert repr(c) == ("tensor(crow_indices=tensor([0, 1, 3]),\n"
                       "       col_indices=tensor([2, 0, 2]),\n"
                       "       values=tensor([3., 4., 5.]), size=(2, 3), nnz=3, dtype=ember.float64,\n"
                       "       layout=ember.sparse_csr)")
    h = ember.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], ember.ones(3, 2), (2, 3, 2), requires_grad=True)
    assert repr(h) == ("tensor(indices=tensor([[0, 1, 1],\n"
                       "                       [2, 0, 2]]),\n"
                       "       values=tensor([[1., 1.],\n"
                       "                      [1., 1.],\n"
                       "                      [1., 1.]]),\n"
                       "       size=(2, 3, 2), nnz=3, layout=ember.sparse_coo, requires_grad=True)")
    e = ember.sparse_coo_tensor(ember.zeros((2, 0), dtype=ember.int64), ember.zeros(0), (2, 3))
    assert repr(e) == ("tensor(indices=tensor([], size=(2, 0)),\n"
                       "       values=tensor([], size=(0,)),\n"
                       "       size=(2, 3), nnz=0, layout=ember.sparse_coo)")


@pytest.mark.parametrize("indices,size,message", [
    ([[0, 1, 2], [2, 0, 2]], (2, 3), "size is inconsistent with indices: for dim 0, size is 2 but found index 2"),
    ([[0, 1, 1], [2, 0, 3]], (2, 3), "size is inconsistent with indices: for dim 1, size is 3 but found index 3"),
    ([[0, 1, -1], [2, 0, 2]], (2, 3), "found negative index -1 for dim 0"),
    ([[0, 1], [2, 0]], (2, 3),
     "indices and values must have same nnz, but got nnz from indices: 2, nnz from values: 3"),
    ([0, 1, 1], (2, 3), r"indices must be sparse_dim x nnz, but got: \[3\]"),
    ([[0, 1, 1], [2, 0, 2]], (2,), "'len\\(size\\) == sparse_dim \\+ dense_dim' is not satisfied: len\\(size\\) = 1, "
                                   "sparse_dim = 2, dense_dim = 0"),
])
def test_coo_bad_inputs(indices, size, message):
    with pytest.raises(RuntimeError, match=message):
        ember.sparse_coo_tensor(indices, [3.0, 4.0, 5.0], size)


def test_coo_values_of_wrong_shape():
    with pytest.raises(RuntimeError, match=r"values has incorrect size, expected \[3, 2\], got \[3, 1\]"):
        ember.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], ember.ones(3, 1), (2, 3, 2))


def test_coo_index_dtypes_are_converted_like_pytorch():
    # PyTorch casts the indices to int64 (int32, bool and float indices alike).
    s = ember.sparse_coo_tensor(ember.tensor([[0, 1, 1], [2, 0, 2]], dtype=ember.int32), [1.0, 2.0, 3.0], (2, 3))
    assert s._indices().dtype == ember.int64
    f = ember.sparse_coo_tensor(ember.tensor([[0.0, 1.0], [2.0, 0.0]]), [1.0, 2.0], (2, 3))
    np.testing.assert_array_equal(f.to_dense().numpy(), [[0, 0, 1], [2, 0, 0]])


@pytest.mark.parametrize("crow,col,message", [
    ([0, 1, 3], [2, 0, 5], "`0 <= col_indices < ncols` is not satisfied."),
    ([0, 1, 2], [2, 0, 1], r"`crow_indices\[..., -1\] == nnz` is not satisfied."),
    ([1, 1, 3], [2, 0, 1], r"`crow_indices\[..., 0\] == 0` is not satisfied."),
    ([0, 1, 3, 3], [2, 0, 1], r"crow_indices.shape\[-1\] must be equal to the number of rows \+ 1 \(=3\), but got 4"),
    ([0, 1, 3], [2, 1, 0], "are sorted and distinct along the last dimension values` is not satisfied."),
    ([0, 1, 3], [2, 0], r"col_indices.shape\[-1\] must be equal to nnz \(=3\) as defined by values.shape\[0\], but "
                        r"got 2"),
])
def test_csr_bad_inputs(crow, col, message):
    with pytest.raises(RuntimeError, match=message):
        ember.sparse_csr_tensor(crow, col, [3.0, 4.0, 5.0], (2, 3))


def test_csr_index_dtypes():
    with pytest.raises(RuntimeError, match="crow_indices and col_indices must have the same dtype, bot got Int and "
                                           "Long, respectively"):
        ember.sparse_csr_tensor(ember.tensor([0, 1, 3], dtype=ember.int32), ember.tensor([2, 0, 1]),
                                [3.0, 4.0, 5.0], (2, 3))
    with pytest.raises(RuntimeError, match="must be an int32 or int64 type, but got: Float"):
        ember.sparse_csr_tensor(ember.tensor([0.0, 1, 3]), ember.tensor([2.0, 0, 1]), [3.0, 4.0, 5.0], (2, 3))


def test_layout_errors_as_pytorch():
    s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    with pytest.raises(RuntimeError, match="crow_indices expected sparse row compressed tensor layout but got Sparse"):
        s.crow_indices()
    with pytest.raises(RuntimeError, match="indices expected sparse coordinate tensor layout but got SparseCsr"):
        s.to_sparse_csr().indices()
    with pytest.raises(TypeError, match="can't convert Sparse layout tensor to numpy. Use Tensor.to_dense"):
        s.numpy()


def test_dense_ops_on_sparse_raise_not_silently_compute():
    s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    with pytest.raises(NotImplementedError, match="Could not run 'aten::exp' with arguments from the 'SparseCPU'"):
        s.exp()
    with pytest.raises(NotImplementedError, match="SparseCsrCPU"):
        s.to_sparse_csr().abs()
    with pytest.raises(NotImplementedError):
        s ** 2
    with pytest.raises(NotImplementedError):
        s[0]
    with pytest.raises(NotImplementedError):
        s.T


@pytest.mark.parametrize("call, op", [
    (lambda s: ember.relu(s), "relu"), (lambda s: ember.cat([s]), "cat"), (lambda s: ember.exp(s), "exp"),
    (lambda s: ember.ones(2, 2).mm(s), "mm"), (lambda s: ember.nn.functional.relu(s), "relu"),
])
def test_function_forms_name_the_op(call, op):
    # the functions reach a sparse argument through __torch_function__; the refusal names their op
    s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    with pytest.raises(NotImplementedError, match=f"Could not run 'aten::{op}' with arguments from the 'SparseCPU'"):
        call(s)


def test_mm_dtype_mismatch_names_pytorch_scalar_types():
    s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Half"):
        ember.sparse.mm(s, ember.ones(2, 2, dtype=ember.float16))
