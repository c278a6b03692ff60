"""Sparse elementwise arithmetic, sums, softmax, transposes and sparse_mask against SciPy/NumPy references
(and PyTorch's behaviour and messages, written out), with gradients to the values."""
import numpy as np
import pytest
import scipy.sparse as sp

import ember


def _pair(seed, shape=(6, 5), density=0.4):
    ref = sp.random(*shape, density=density, format="coo", random_state=seed)
    s = ember.sparse_coo_tensor(ember.tensor(np.stack([ref.row, ref.col]).astype(np.int64)), ember.tensor(ref.data),
                                shape)
    return ref, s


def test_scalar_mul_div_neg_keep_the_pattern():
    ref, s = _pair(0)
    for got, want in ((s * 2.5, ref * 2.5), (2.5 * s, ref * 2.5), (s / 4, ref / 4), (-s, -ref),
                      (s.mul(3), ref * 3), (s.div(2), ref / 2)):
        assert got.is_sparse and got._nnz() == s._nnz()
        np.testing.assert_allclose(got.to_dense().numpy(), want.toarray(), rtol=1e-12)


def test_sparse_plus_sparse_matches_scipy():
    ra, a = _pair(1)
    rb, b = _pair(2)
    for got, want in ((a + b, ra + rb), (a - b, ra - rb), (a.add(b, alpha=2), ra + 2 * rb), (a.sub(b), ra - rb)):
        assert got.is_sparse
        np.testing.assert_allclose(got.to_dense().numpy(), want.toarray(), rtol=1e-12)
    ca, cb = a.coalesce(), b.coalesce()
    assert (ca + cb).is_coalesced()  # a merge of coalesced operands, as PyTorch's
    csum = a.to_sparse_csr() + b.to_sparse_csr()
    assert csum.is_sparse_csr
    np.testing.assert_allclose(csum.to_dense().numpy(), (ra + rb).toarray(), rtol=1e-12)


def test_sparse_times_sparse_is_the_intersection():
    ra, a = _pair(3, density=0.6)
    rb, b = _pair(4, density=0.6)
    got = a * b
    want = ra.multiply(rb).toarray()
    np.testing.assert_allclose(got.to_dense().numpy(), want, rtol=1e-12)
    assert got._nnz() == int((ra.toarray() != 0).__and__(rb.toarray() != 0).sum())


def test_dense_and_sparse_mixed():
    ra, a = _pair(5)
    d = np.arange(30.0).reshape(6, 5)
    np.testing.assert_allclose((ember.tensor(d) + a).numpy(), d + ra.toarray(), rtol=1e-12)
    np.testing.assert_allclose((ember.tensor(d) - a).numpy(), d - ra.toarray(), rtol=1e-12)
    prod = a * ember.tensor(d)  # sparse * dense: sparse, a's pattern
    assert prod.is_sparse
    np.testing.assert_allclose(prod.to_dense().numpy(), ra.toarray() * d, rtol=1e-12)
    np.testing.assert_allclose((ember.tensor(d) * a).to_dense().numpy(), ra.toarray() * d, rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported. Use add\(dense, sparse\) instead."):
        a + ember.tensor(d)
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported"):
        a + 1
    with pytest.raises(RuntimeError, match=r"add: expected sizes of 'self' and 'other' to match, but \[6, 5\] != "
                                           r"\[5, 5\]"):
        a + _pair(6, shape=(5, 5))[1]


def test_sums_match_numpy():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 5, 3)) * (rng.random((4, 5, 1)) < 0.5)
    s = ember.tensor(x).to_sparse(2)  # hybrid: 2 sparse dims, 1 dense
    np.testing.assert_allclose(ember.sparse.sum(s).item(), x.sum(), rtol=1e-12)
    np.testing.assert_allclose(s.sum().item(), x.sum(), rtol=1e-12)
    for dim in (0, 1, 2, (0, 2), (1, 2), -1):
        got = ember.sparse.sum(s, dim)
        got = got.to_dense() if isinstance(got, ember.Tensor) and got.is_sparse else got
        np.testing.assert_allclose(got.numpy(), x.sum(axis=dim), rtol=1e-12, atol=1e-14)
    full = ember.sparse.sum(s, (0, 1))
    assert not full.is_sparse and full.shape == (3,)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 5\)"):
        ember.sparse.sum(s, 5)


def _dense_masked_softmax(x, mask, axis):
    e = np.where(mask, np.exp(x - np.where(mask, x, -np.inf).max(axis=axis, keepdims=True)), 0.0)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_over_stored_entries(dim):
    ref, s = _pair(8, shape=(7, 6), density=0.5)
    x, mask = ref.toarray(), ref.toarray() != 0
    want = _dense_masked_softmax(x, mask, dim)
    got = ember.sparse.softmax(s, dim)
    assert got.is_sparse and got._nnz() == s.coalesce()._nnz()
    np.testing.assert_allclose(got.to_dense().numpy(), want, rtol=1e-12, atol=1e-15)
    logs = ember.sparse.log_softmax(s, dim).to_dense().numpy()
    np.testing.assert_allclose(logs[mask], np.log(want[mask]), rtol=1e-10)


def test_softmax_gradient_to_values():
    vals = ember.tensor([1.0, 2.0, 0.5, -1.0], requires_grad=True)
    s = ember.sparse_coo_tensor([[0, 0, 1, 1], [0, 2, 1, 2]], vals, (2, 3))
    w = ember.tensor([0.3, -1.0, 2.0, 0.7])
    (ember.sparse.softmax(s, 1)._values() * w).sum().backward()
    # per row: softmax p over its stored entries; d(w.p)/dx = p * (w - w.p)
    want = []
    for xs, ws in (([1.0, 2.0], [0.3, -1.0]), ([0.5, -1.0], [2.0, 0.7])):
        p = np.exp(xs) / np.exp(xs).sum()
        want += list(p * (np.array(ws) - (p * ws).sum()))
    np.testing.assert_allclose(vals.grad.numpy(), want, rtol=1e-6)


def test_transpose_and_sparse_mask():
    ref, s = _pair(9)
    t = s.t()
    assert t.shape == (5, 6) and not t.is_coalesced()
    np.testing.assert_array_equal(t.to_dense().numpy(), ref.toarray().T)
    d = ember.tensor(np.arange(30.0).reshape(6, 5))
    m = d.sparse_mask(s.coalesce())
    assert m.is_sparse and m.is_coalesced()
    np.testing.assert_array_equal(m.to_dense().numpy(), np.where(ref.toarray() != 0, np.arange(30.0).reshape(6, 5),
                                                                 0.0))
    assert d.sparse_mask(s.to_sparse_csr()).is_sparse_csr
    with pytest.raises(RuntimeError, match=r"sparse_mask\(\): operands have incompatible sizes; self has size \[2, 2\] "
                                           r"but mask has size \[6, 5\]"):
        ember.ones(2, 2).sparse_mask(s)


def test_dtype_conversion_and_detach():
    ref, s = _pair(10)
    f = s.float()
    assert f.dtype == ember.float32 and f.is_sparse
    assert s.to(ember.float32).dtype == ember.float32
    g = s.detach().requires_grad_()
    assert g.requires_grad and g.is_leaf and not s.requires_grad
    np.testing.assert_allclose(to_np(f), ref.toarray(), rtol=1e-6)


def to_np(t):
    return t.to_dense().numpy()


def test_to_dense_gradient_reaches_values():
    vals = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = ember.sparse_coo_tensor([[0, 1, 0], [1, 0, 1]], vals, (2, 2))
    (s.to_dense() * ember.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    np.testing.assert_array_equal(vals.grad.numpy(), [2.0, 3.0, 2.0])
    x = ember.tensor([[0.0, 1.5], [2.0, 0.0]], requires_grad=True)
    x.to_sparse().coalesce()._values().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 1.0], [1.0, 0.0]])
