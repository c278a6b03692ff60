"""The factories' layout= argument, as PyTorch 2.13 takes it: strided makes the dense tensor; zeros, empty and
zeros_like also make an all-zero sparse COO or CSR tensor; the other factories refuse a sparse layout with
PyTorch's errors (written out here), and a layout that is not an ember.layout is a TypeError."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("name,args", [("zeros", ((2, 3),)), ("ones", (2, 3)), ("empty", ((4,),)),
                                       ("full", ((2,), 7.0)),
                                       ("arange", (5,)), ("eye", (3,)), ("linspace", (0, 1, 4)),
                                       ("zeros_like", (np.ones((2, 2)),)), ("full_like", (np.ones(3), 2.0))])
def test_strided_layout_gives_the_dense_result(name, args):
    args = tuple(ember.tensor(a) if isinstance(a, np.ndarray) else a for a in args)
    fn = getattr(ember, name)
    got = fn(*args, layout=ember.strided)
    assert got.layout == ember.strided
    if name != "empty":
        np.testing.assert_array_equal(got.numpy(), fn(*args).numpy())
    assert tuple(got.shape) == tuple(fn(*args).shape)


@pytest.mark.parametrize("name", ["zeros", "empty", "zeros_like"])
@pytest.mark.parametrize("layout", ["sparse_coo", "sparse_csr"])
def test_zeros_empty_and_zeros_like_make_empty_sparse_tensors(name, layout):
    layout = getattr(ember, layout)
    arg = ember.ones(2, 3, dtype=ember.float64) if name == "zeros_like" else (2, 3)
    kwargs = {} if name == "zeros_like" else {"dtype": ember.float64}
    s = getattr(ember, name)(arg, layout=layout, **kwargs)
    assert s.layout == layout and tuple(s.shape) == (2, 3) and s.dtype == ember.float64
    np.testing.assert_array_equal(s.to_dense().numpy(), np.zeros((2, 3)))
    if layout == ember.sparse_coo:
        assert s._nnz() == 0 and s.sparse_dim() == 2 and s.dense_dim() == 0 and s.is_coalesced()
    else:
        np.testing.assert_array_equal(s.crow_indices().numpy(), [0, 0, 0])
        assert s.col_indices().numel() == 0


def test_a_sparse_csr_factory_needs_two_dims():
    with pytest.raises(RuntimeError, match=r"Only batched sparse compressed \(non-block\) tensors are supported, but "
                                           r"got size \[4\]"):
        ember.zeros(4, layout=ember.sparse_csr)


@pytest.mark.parametrize("name,args,op", [
    ("rand", ((2,),), "uniform_"), ("randn", ((2,),), "normal_"), ("randint", (3, (2,)), "random_.from"),
    ("arange", (3,), "arange.start_out"), ("eye", (2,), "eye.m_out"), ("linspace", (0, 1, 3), "linspace.out"),
    ("empty_like", ("t",), "empty_strided"), ("ones_like", ("t",), "empty_strided"),
    ("rand_like", ("t",), "empty_strided"), ("tril_indices", (3, 3), "tril_indices")])
def test_other_factories_refuse_a_sparse_layout_as_pytorch_does(name, args, op):
    args = tuple(ember.ones(2) if a == "t" else a for a in args)
    with pytest.raises(NotImplementedError, match=rf"^Could not run 'aten::{op}' with arguments from the 'SparseCPU' "
                                                  rf"backend"):
        getattr(ember, name)(*args, layout=ember.sparse_coo)


@pytest.mark.parametrize("name", ["ones", "full"])
def test_ones_and_full_refuse_sparse_with_pytorchs_message(name):
    args = ((2,), 1.0) if name == "full" else ((2,),)
    with pytest.raises(RuntimeError, match=r"^full\(\.\.\.\) is not implemented for sparse layout$"):
        getattr(ember, name)(*args, layout=ember.sparse_coo)


def test_layout_must_be_a_layout():
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'layout' must be ember.layout, not str"):
        ember.zeros(2, layout="strided")
