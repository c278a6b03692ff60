"""Indexing ops beyond the generic op-database tests: in-place and out= forms, nonzero(as_tuple=)
and where(condition), and the errors (index dtype, out-of-range indices, shape mismatches)."""
import numpy as np
import pytest

import ember


def _t(a):
    return ember.tensor(np.asarray(a))


def _i(a):
    return ember.tensor(np.asarray(a, dtype=np.int64))


# ---- nonzero / where(condition) ----

def test_nonzero_as_tuple_and_where_condition():
    x = np.array([[0, 1.5, 0], [2, 0, -1]])
    t = _t(x)
    want = np.nonzero(x)
    for got in (ember.nonzero(t, as_tuple=True), t.nonzero(as_tuple=True), ember.where(t)):
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
            assert g.dtype == ember.int64
    np.testing.assert_array_equal(ember.nonzero(t).numpy(), np.argwhere(x))
    np.testing.assert_array_equal(t.nonzero().numpy(), np.argwhere(x))
    np.testing.assert_array_equal(ember.nonzero(t, as_tuple=False).numpy(), np.argwhere(x))
    # the tuple indexes the selected elements
    np.testing.assert_array_equal(t[ember.where(t)].numpy(), x[np.nonzero(x)])
    # a 0-dim input is treated as 1-D by the tuple form
    (only,) = ember.nonzero(ember.tensor(3.0), as_tuple=True)
    np.testing.assert_array_equal(only.numpy(), [0])
    assert ember.nonzero(ember.tensor(0.0), as_tuple=True)[0].numel() == 0
    # the three-argument where is unchanged
    np.testing.assert_array_equal(ember.where(t > 0, t, 0.0).numpy(), np.where(x > 0, x, 0.0))


def test_nonzero_out_and_large():
    rng = np.random.default_rng(1)
    x = rng.random((300, 700)) < 0.3
    out = ember.empty(0, dtype=ember.int64)
    r = ember.nonzero(_t(x), out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), np.argwhere(x))
    with pytest.raises(TypeError):
        ember.nonzero(_t(x), as_tuple=True, out=out)


def test_nonzero_nan_and_complex():
    x = np.array([np.nan, 0.0, -0.0, 1e-30])
    np.testing.assert_array_equal(ember.nonzero(_t(x)).numpy(), np.argwhere(x))
    z = np.array([0j, 1j, 0j, 2 + 0j])
    np.testing.assert_array_equal(ember.nonzero(_t(z)).numpy(), np.argwhere(z))


# ---- in-place and out= forms ----

def test_inplace_forms_return_self_and_match():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 3))
    idx = np.array([[0, 1, 2], [3, 0, 1]])
    src = rng.standard_normal((2, 3))

    t = _t(a)
    assert t.scatter_(0, _i(idx), _t(src)) is t
    ref = a.copy()
    np.put_along_axis(ref, idx, src, axis=0)
    np.testing.assert_array_equal(t.numpy(), ref)

    t = _t(a)
    t.scatter_add_(0, _i(idx), _t(src))
    ref = a.copy()
    np.add.at(ref, (idx, np.indices(idx.shape)[1]), src)
    np.testing.assert_allclose(t.numpy(), ref)

    t = _t(a)
    t.index_add_(1, _i([2, 2]), _t(np.ones((4, 2))), alpha=3)
    ref = a.copy()
    ref[:, 2] += 6
    np.testing.assert_allclose(t.numpy(), ref)

    t = _t(a)
    t.index_fill_(0, _i([1, 3]), -1.0)
    ref = a.copy()
    ref[[1, 3]] = -1
    np.testing.assert_array_equal(t.numpy(), ref)

    t = _t(a)
    t.masked_fill_(_t(a > 0), 0.0)
    np.testing.assert_array_equal(t.numpy(), np.where(a > 0, 0, a))

    t = _t(a)
    t.index_put_((_i([0, 0]), _i([1, 1])), _t(np.array([1.0, 2.0])), accumulate=True)
    ref = a.copy()
    ref[0, 1] += 3
    np.testing.assert_allclose(t.numpy(), ref)

    t = _t(a)
    t.put_(_i([0, 0, 11]), _t(np.array([1.0, 2.0, 3.0])), accumulate=True)
    ref = a.copy().reshape(-1)
    ref[0] += 3
    ref[11] += 3
    np.testing.assert_allclose(t.numpy(), ref.reshape(4, 3))


def test_inplace_on_noncontiguous_self():
    a = np.arange(12.0).reshape(3, 4)
    t = _t(a.T.copy()).t()  # values of a, transposed strides
    t.put_(_i([1, 5]), _t(np.array([-1.0, -2.0])))
    ref = a.copy().reshape(-1)
    ref[[1, 5]] = [-1, -2]
    np.testing.assert_array_equal(t.numpy(), ref.reshape(3, 4))
    t = _t(a.T.copy()).t()
    t.scatter_reduce_(1, _i([[0, 0], [1, 1], [3, 3]]), _t(np.ones((3, 2))), "mean")
    ref = a.copy()
    ref[0, 0] = (ref[0, 0] + 2) / 3
    ref[1, 1] = (ref[1, 1] + 2) / 3
    ref[2, 3] = (ref[2, 3] + 2) / 3
    np.testing.assert_allclose(t.numpy(), ref)


def test_out_variants():
    a = np.arange(12.0).reshape(3, 4)
    t = _t(a)
    out = ember.empty(0, dtype=ember.float64)  # a fresh out= each time: .numpy() pins its memory
    assert ember.index_select(t, 1, _i([3, 0]), out=out) is out
    np.testing.assert_array_equal(out.numpy(), a[:, [3, 0]])
    out = ember.empty(0, dtype=ember.float64)
    ember.gather(t, 1, _i([[0], [1], [2]]), out=out)
    np.testing.assert_array_equal(out.numpy(), a[[0, 1, 2], [0, 1, 2]][:, None])
    out = ember.empty(0, dtype=ember.float64)
    ember.take(t, _i([11, 0]), out=out)
    np.testing.assert_array_equal(out.numpy(), [11, 0])
    out = ember.empty(0, dtype=ember.float64)
    ember.take_along_dim(t, _i([[1], [0], [0]]), 1, out=out)
    np.testing.assert_array_equal(out.numpy(), [[1], [4], [8]])
    out = ember.empty(0, dtype=ember.float64)
    ember.masked_select(t, _t(a > 8), out=out)
    np.testing.assert_array_equal(out.numpy(), [9, 10, 11])
    out = ember.empty(0, dtype=ember.float64)
    ember.scatter(t, 0, _i([[2, 1, 0, 2]]), 5.0, out=out)
    ref = a.copy()
    ref[[2, 1, 0, 2], [0, 1, 2, 3]] = 5
    np.testing.assert_array_equal(out.numpy(), ref)
    out = ember.empty(0, dtype=ember.float64)
    ember.index_copy(t, 0, _i([0]), _t(np.zeros((1, 4))), out=out)
    np.testing.assert_array_equal(out.numpy()[0], 0)
    with pytest.raises(RuntimeError, match="dtype"):
        ember.index_select(t, 0, _i([0]), out=ember.empty(0, dtype=ember.int64))


def test_out_of_place_leaves_input_alone():
    a = np.arange(6.0)
    t = _t(a)
    t.scatter(0, _i([0]), 9.0)
    t.index_fill(0, _i([1]), 9.0)
    t.masked_fill(t > 2, 9.0)
    t.index_put((_i([2]),), _t(np.array([9.0])))
    t.put(_i([3]), _t(np.array([9.0])))
    t.masked_scatter(t > 2, _t(np.zeros(6)))
    np.testing.assert_array_equal(t.numpy(), a)


def test_scatter_reduce_semantics():
    x = _t(np.array([1.0, 2.0, 3.0, 4.0]))
    idx = _i([0, 1, 0, 1, 2, 1])
    src = _t(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    np.testing.assert_array_equal(x.scatter_reduce(0, idx, src, "sum").numpy(), [5, 14, 8, 4])
    np.testing.assert_array_equal(x.scatter_reduce(0, idx, src, "sum", include_self=False).numpy(), [4, 12, 5, 4])
    np.testing.assert_array_equal(x.scatter_reduce(0, idx, src, "amax").numpy(), [3, 6, 5, 4])
    np.testing.assert_array_equal(x.scatter_reduce(0, idx, src, "amin", include_self=False).numpy(), [1, 2, 5, 4])
    np.testing.assert_allclose(x.scatter_reduce(0, idx, src, "mean").numpy(), [5 / 3, 14 / 4, 4, 4])
    np.testing.assert_allclose(x.scatter_reduce(0, idx, src, "mean", include_self=False).numpy(), [2, 4, 5, 4])
    # integer mean rounds toward -inf
    xi = _i([0, 0])
    r = xi.scatter_reduce(0, _i([0, 0, 1]), _i([-3, 0, 5]), "mean", include_self=False)
    np.testing.assert_array_equal(r.numpy(), [-2, 5])
    # NaN propagates through amax/amin
    xn = _t(np.array([0.0, 0.0]))
    r = xn.scatter_reduce(0, _i([0, 0]), _t(np.array([np.nan, 1.0])), "amax")
    assert np.isnan(r.numpy()[0])


# ---- errors ----

def test_index_dtype_errors():
    t = ember.zeros(3, 4)
    f = ember.tensor([0.0])
    with pytest.raises(IndexError, match="int32 or int64"):
        ember.index_select(t, 0, f)
    with pytest.raises(RuntimeError, match="int64"):
        ember.gather(t, 0, ember.tensor([[0]], dtype=ember.int32))
    with pytest.raises(RuntimeError, match="int64"):
        t.scatter(0, ember.tensor([[0]], dtype=ember.int32), 1.0)
    with pytest.raises(RuntimeError, match="long"):
        ember.take(t, ember.tensor([0], dtype=ember.int32))
    with pytest.raises(RuntimeError, match="int64"):
        ember.take_along_dim(t, ember.tensor([[0]], dtype=ember.int32), 0)
    with pytest.raises(IndexError):
        t.index_copy(0, ember.tensor([0], dtype=ember.int32), ember.zeros(1, 4))
    with pytest.raises(RuntimeError, match="long"):
        t.put_(ember.tensor([0], dtype=ember.int32), ember.zeros(1))
    with pytest.raises(IndexError, match="long, int, byte or bool"):
        t.index_put((f,), ember.zeros(1))
    with pytest.raises(RuntimeError, match="boolean"):
        t.masked_fill(ember.zeros(3, 4), 1.0)
    with pytest.raises(RuntimeError, match="Bool|bool"):
        ember.masked_select(t, ember.zeros(3, 4, dtype=ember.uint8))


def test_out_of_range_errors():
    t = ember.zeros(3, 4)
    msg = "index {} is out of bounds for dimension {} with size {}"
    with pytest.raises(IndexError, match=msg.format(5, 1, 4)):
        ember.index_select(t, 1, _i([0, 5]))
    with pytest.raises(IndexError, match=msg.format(-4, 0, 3)):
        ember.index_select(t, 0, _i([-4]))
    with pytest.raises(IndexError, match=msg.format(3, 0, 3)):
        ember.gather(t, 0, _i([[3]]))
    with pytest.raises(IndexError, match=msg.format(4, 1, 4)):
        t.scatter_(1, _i([[4]]), 1.0)
    with pytest.raises(IndexError, match=msg.format(9, 0, 3)):
        t.scatter_add(0, _i([[9]]), ember.ones(1, 1))
    with pytest.raises(IndexError, match=msg.format(7, 1, 4)):
        t.index_add(1, _i([7]), ember.ones(3, 1))
    with pytest.raises(IndexError, match=msg.format(3, 0, 3)):
        t.index_fill(0, _i([3]), 1.0)
    with pytest.raises(IndexError, match=msg.format(12, 0, 12)):
        ember.take(t, _i([12]))
    with pytest.raises(IndexError, match=msg.format(-13, 0, 12)):
        t.put(_i([-13]), ember.ones(1))
    with pytest.raises(IndexError, match=msg.format(3, 0, 3)):
        t.index_put((_i([3]),), ember.ones(4))
    with pytest.raises(IndexError, match=msg.format(4, 1, 4)):
        ember.take_along_dim(t, _i([[4]]), 1)


def test_shape_errors():
    t = ember.zeros(3, 4)
    with pytest.raises(IndexError, match="vector"):
        ember.index_select(t, 0, _i([[0]]))
    with pytest.raises(IndexError):
        ember.index_select(t, 2, _i([0]))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        ember.gather(t, 0, _i([0]))
    with pytest.raises(RuntimeError, match="no larger"):
        ember.gather(t, 0, _i(np.zeros((1, 5))))
    with pytest.raises(RuntimeError, match="no larger"):
        t.scatter(0, _i(np.zeros((2, 2))), ember.ones(1, 2))
    with pytest.raises(RuntimeError, match="dtype"):
        t.scatter(0, _i([[0]]), ember.ones(1, 1, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="reduce"):
        t.scatter(0, _i([[0]]), ember.ones(1, 1), reduce="max")
    with pytest.raises(RuntimeError, match="reduce"):
        t.scatter_reduce(0, _i([[0]]), ember.ones(1, 1), "max")
    with pytest.raises(RuntimeError, match="complex"):
        ember.zeros(2, dtype=ember.complex64).scatter_reduce(0, _i([0]), ember.ones(1, dtype=ember.complex64), "amax")
    with pytest.raises(IndexError, match="Number of indices"):
        t.index_add(0, _i([0, 1]), ember.ones(3, 4))
    with pytest.raises(IndexError, match="same size"):
        t.index_copy(0, _i([0]), ember.ones(1, 3))
    with pytest.raises(RuntimeError, match="same scalar type"):
        t.index_add(0, _i([0]), ember.ones(1, 4, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="alpha"):
        ember.zeros(3, dtype=ember.int64).index_add(0, _i([0]), _i([1]), alpha=1.5)
    with pytest.raises(RuntimeError, match="0-dimensional"):
        t.index_fill(0, _i([0]), ember.ones(2))
    with pytest.raises(RuntimeError, match="same number of elements"):
        t.put(_i([0, 1]), ember.ones(3))
    with pytest.raises(RuntimeError, match="same dtype"):
        t.put(_i([0]), ember.ones(1, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="dtypes match"):
        t.index_put((_i([0]),), ember.ones(4, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="shape mismatch"):
        t.index_put((_i([0, 1]),), ember.ones(3))
    with pytest.raises(IndexError, match="shape mismatch"):
        t.index_put((_i([0, 1]), _i([0, 1, 2])), ember.ones(1))
    with pytest.raises(RuntimeError, match="broadcastable"):
        t.masked_fill_(ember.ones(2, 3, 4, dtype=ember.bool), 1.0)
    with pytest.raises(RuntimeError, match="at least"):
        t.masked_scatter(ember.ones(3, 4, dtype=ember.bool), ember.ones(5))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        ember.take_along_dim(t, _i([0]), 0)
    with pytest.raises(IndexError, match="empty"):
        ember.take(ember.zeros(0), _i([0]))
