"""In-place resizes of sparse COO tensors (sparse_resize_, sparse_resize_and_clear_, resize_as_sparse_) with
PyTorch 2.13's rules and messages (written out here), and the sparse accessors of a dense tensor, which raise
PyTorch's layout errors."""
import numpy as np
import pytest

import ember


def _coo():
    return ember.sparse_coo_tensor(ember.tensor([[0, 1], [1, 2]]), ember.tensor([1.0, 2.0]), (2, 3))


def test_growing_keeps_the_entries():
    s = _coo()
    assert s.sparse_resize_((3, 4), 2, 0) is s
    assert tuple(s.shape) == (3, 4) and s._nnz() == 2
    want = np.zeros((3, 4))
    want[0, 1], want[1, 2] = 1, 2
    np.testing.assert_array_equal(s.to_dense().numpy(), want)


def test_growing_a_dense_dim_pads_the_values():
    s = ember.sparse_coo_tensor(ember.tensor([[0, 1]]), ember.ones(2, 3), (2, 3))
    s.sparse_resize_((2, 4), 1, 1)
    np.testing.assert_array_equal(s.to_dense().numpy()[:, :3], np.ones((2, 3)))
    assert tuple(s._values().shape) == (2, 4)


@pytest.mark.parametrize("size,sd,dd,message", [
    ((2, 2), 2, 0, r"^shrinking the size of sparse dimensions \(from \[2, 3\] to \[2, 2\]\) on a non-empty sparse "
                   r"tensor is not supported.\nYou could try the following options:\n1. If you need an empty sparse "
                   r"tensor of this size, call `x = torch.sparse_coo_tensor\(size\)`."),
    ((2, 3, 1), 3, 0, r"^changing the number of sparse dimensions \(from 2 to 3\) on a non-empty sparse tensor"),
    ((2, 3, 4), 2, 1, r"^changing the number of dense dimensions \(from 0 to 1\) on a non-empty sparse tensor"),
    ((2, 3), 1, 0, r"^'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: len\(size\) = 2, sparse_dim = 1, "
                   r"dense_dim = 0$")])
def test_a_non_empty_tensor_refuses_what_pytorch_refuses(size, sd, dd, message):
    with pytest.raises(RuntimeError, match=message):
        _coo().sparse_resize_(size, sd, dd)


def test_an_empty_tensor_takes_any_size_and_clear_empties():
    e = ember.sparse_coo_tensor(ember.zeros(2, 0, dtype=ember.int64), ember.zeros(0), (2, 3))
    e.sparse_resize_((5,), 1, 0)
    assert tuple(e.shape) == (5,) and e.sparse_dim() == 1 and e._nnz() == 0
    s = _coo().sparse_resize_and_clear_((4, 5, 2), 2, 1)
    assert tuple(s.shape) == (4, 5, 2) and (s.sparse_dim(), s.dense_dim(), s._nnz()) == (2, 1, 0)
    np.testing.assert_array_equal(s.to_dense().numpy(), np.zeros((4, 5, 2)))


def test_resize_as_sparse_takes_the_templates_size_and_dims():
    template = ember.sparse_coo_tensor(ember.tensor([[0], [0]]), ember.tensor([1.0]), (5, 6))
    for resize in (lambda s: s.resize_as_sparse_(template), lambda s: ember.resize_as_sparse_(s, template)):
        s = resize(_coo())
        assert tuple(s.shape) == (5, 6) and s._nnz() == 2
    with pytest.raises(RuntimeError, match=r"changing the number of sparse dimensions \(from 2 to 0\)"):
        _coo().resize_as_sparse_(ember.ones(5, 6))


@pytest.mark.parametrize("op", ["sparse_resize_", "sparse_resize_and_clear_"])
def test_dense_tensors_have_no_sparse_resize(op):
    with pytest.raises(NotImplementedError,
                       match=rf"^Could not run 'aten::{op}' with arguments from the 'CPU' backend"):
        getattr(ember.ones(2, 2), op)((2, 2), 2, 0)


@pytest.mark.parametrize("op,layout", [("coalesce", "sparse coordinate"), ("indices", "sparse coordinate"),
                                       ("is_coalesced", "sparse coordinate"), ("values", "sparse"),
                                       ("crow_indices", "sparse row compressed"),
                                       ("col_indices", "sparse row compressed")])
def test_sparse_accessors_of_a_dense_tensor_raise_pytorchs_error(op, layout):
    with pytest.raises(RuntimeError, match=rf"^{op} expected {layout} tensor layout but got Strided$"):
        getattr(ember.ones(2, 2), op)()
    assert getattr(_coo().coalesce(), op if layout != "sparse row compressed" else "to_sparse_csr")() is not None
