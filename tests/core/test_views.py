"""View semantics checked against NumPy: views share storage (writes go both ways), their strides
match NumPy's for the same view, reshaping non-contiguous tensors is a view exactly when NumPy can
reshape without copying, and every bad argument raises a clear error."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import ember

BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _t(a):
    return ember.tensor(np.array(a, order="C"))  # (ascontiguousarray would make 0-D arrays 1-D)


def _strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def _same_layout(t, a):
    """Same shape, and the same strides wherever a stride is ever used (dims of size > 1)."""
    assert tuple(t.shape) == a.shape
    got = [s for s, n in zip(t.stride(), t.shape) if n > 1]
    want = [s for s, n in zip(_strides(a), a.shape) if n > 1]
    assert got == want, (t.stride(), _strides(a))


# (name, ember view of t, NumPy view of a) on the (2, 3, 4) base; every NumPy result is a view.
VIEWS = [
    ("view", lambda t: t.view(6, 4), lambda a: a.reshape(6, 4)),
    ("view -1", lambda t: t.view(-1, 2), lambda a: a.reshape(-1, 2)),
    ("view_as", lambda t: t.view_as(ember.tensor(np.zeros((4, 6)))), lambda a: a.reshape(4, 6)),
    ("reshape", lambda t: t.reshape(3, 8), lambda a: a.reshape(3, 8)),
    ("reshape_as", lambda t: t.reshape_as(ember.tensor(np.zeros(24))), lambda a: a.reshape(24)),
    ("permute", lambda t: t.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    ("transpose", lambda t: t.transpose(0, 2), lambda a: a.swapaxes(0, 2)),
    ("swapaxes", lambda t: ember.swapaxes(t, -1, 1), lambda a: a.swapaxes(-1, 1)),
    ("swapdims", lambda t: t.swapdims(0, 1), lambda a: a.swapaxes(0, 1)),
    ("t", lambda t: t[0].t(), lambda a: a[0].T),
    ("T", lambda t: t.T, lambda a: a.T),
    ("mT", lambda t: t.mT, lambda a: np.swapaxes(a, -1, -2)),
    ("squeeze", lambda t: t[:1].squeeze(), lambda a: a[:1].squeeze()),
    ("unsqueeze", lambda t: t.unsqueeze(1), lambda a: np.expand_dims(a, 1)),
    ("flatten", lambda t: t.flatten(1), lambda a: a.reshape(2, 12)),
    ("ravel", lambda t: t.ravel(), lambda a: a.ravel()),
    ("unflatten", lambda t: t.unflatten(2, (2, 2)), lambda a: a.reshape(2, 3, 2, 2)),
    ("narrow", lambda t: t.narrow(2, 1, 2), lambda a: a[:, :, 1:3]),
    ("select", lambda t: t.select(1, 2), lambda a: a[:, 2]),
    ("as_strided", lambda t: t.as_strided((3, 3), (5, 2), 1), lambda a: np.lib.stride_tricks.as_strided(
        a.ravel()[1:], (3, 3), (20, 8))),
    ("unfold", lambda t: t.unfold(2, 2, 1), lambda a: sliding_window_view(a, 2, axis=2)),
    ("diagonal", lambda t: t.diagonal(0, 1, 2), lambda a: np.diagonal(a, 0, 1, 2)),
    ("diagonal offset", lambda t: t.diagonal(1, 2, 1), lambda a: np.diagonal(a, 1, 2, 1)),
    ("movedim", lambda t: t.movedim(0, -1), lambda a: np.moveaxis(a, 0, -1)),
    ("moveaxis", lambda t: ember.moveaxis(t, (0, 1), (1, 2)), lambda a: np.moveaxis(a, (0, 1), (1, 2))),
    ("split", lambda t: t.split(2, dim=2)[1], lambda a: a[:, :, 2:4]),
    ("split sizes", lambda t: ember.split(t, [1, 2], 1)[1], lambda a: a[:, 1:3]),
    ("chunk", lambda t: t.chunk(2, 2)[1], lambda a: a[:, :, 2:]),
    ("unbind", lambda t: t.unbind(1)[2], lambda a: a[:, 2]),
]


@pytest.mark.parametrize("name,ev,nv", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_shares_storage_and_matches_numpy(name, ev, nv):
    t = _t(BASE)
    a = BASE.copy()
    v, w = ev(t), nv(a)
    assert v._storage_ptr() == t._storage_ptr()
    _same_layout(v, w)
    np.testing.assert_array_equal(v.numpy(), w)
    assert v.data_ptr() - t.data_ptr() == _ptr(w) - _ptr(a)


def _ptr(a):
    return a.__array_interface__["data"][0]


def _writable(base, w):
    """A writable NumPy view with w's layout (np.diagonal's views are read-only)."""
    if w.flags.writeable:
        return w
    off = (_ptr(w) - _ptr(base)) // base.itemsize
    return np.lib.stride_tricks.as_strided(base.ravel()[off:], w.shape, w.strides)


WRITABLE = [v for v in VIEWS if v[0] != "unfold"]  # unfold's windows overlap


@pytest.mark.parametrize("name,ev,nv", WRITABLE, ids=[v[0] for v in WRITABLE])
def test_writes_go_both_ways(name, ev, nv):
    t = _t(BASE)
    a = BASE.copy()
    v, w = ev(t), _writable(a, nv(a))
    w_vals = np.arange(100, 100 + w.size, dtype=np.float32).reshape(w.shape)
    v[...] = ember.tensor(w_vals)
    w[...] = w_vals
    np.testing.assert_array_equal(t.numpy(), a)  # the view's write reached the base
    t[...] = -1.0
    np.testing.assert_array_equal(v.numpy(), np.full(w.shape, -1.0, np.float32))  # and back


def test_view_of_view_and_version_shared():
    t = _t(BASE)
    v = t.transpose(0, 2).narrow(0, 1, 2).select(1, 1)
    a = BASE.copy()
    w = a.swapaxes(0, 2)[1:3, 1]
    _same_layout(v, w)
    np.testing.assert_array_equal(v.numpy(), w)
    before = t._version
    v[...] = 0.0
    assert t._version > before


def test_expand_strides_are_zero():
    t = _t(np.arange(3, dtype=np.float32).reshape(3, 1))
    e = t.expand(2, 3, 4)
    _same_layout(e, np.broadcast_to(np.arange(3, dtype=np.float32).reshape(3, 1), (2, 3, 4)))
    assert e.stride() == (0, 1, 0)
    assert e._storage_ptr() == t._storage_ptr()
    assert t.expand(-1, 5).shape == (3, 5)
    assert t.expand_as(ember.tensor(np.zeros((2, 3, 2)))).shape == (2, 3, 2)
    # a size-1 dim kept at size 1 keeps its stride
    assert t.expand(3, 1).stride() == t.stride()


def test_view_as_real_and_complex_share_storage():
    z = ember.tensor(np.array([1 + 2j, 3 - 4j, 5j], dtype=np.complex64))
    r = ember.view_as_real(z)
    assert r.dtype == ember.float32 and r.shape == (3, 2) and r.stride() == (2, 1)
    assert r._storage_ptr() == z._storage_ptr()
    np.testing.assert_array_equal(r.numpy(), z.numpy().view(np.float32).reshape(3, 2))
    r[1, 1] = 9.0
    assert z.numpy()[1] == 3 + 9j
    c = ember.view_as_complex(r)
    assert c.dtype == ember.complex64 and c.shape == (3,) and c._storage_ptr() == z._storage_ptr()
    np.testing.assert_array_equal(c.numpy(), z.numpy())
    # a complex view of an offset real slice: offset halves
    f = ember.tensor(np.arange(12, dtype=np.float64)).view(6, 2)[1:]
    cf = ember.view_as_complex(f)
    np.testing.assert_array_equal(cf.numpy(), np.arange(12.0).view(np.complex128)[1:])
    assert cf.storage_offset() == 1 and cf.stride() == (1,)


def test_reshape_copies_only_when_needed():
    t = _t(BASE).transpose(1, 2)  # (2, 4, 3), strides (12, 1, 4)
    r = t.reshape(2, 12)
    assert r._storage_ptr() != t._storage_ptr() and r.is_contiguous()
    np.testing.assert_array_equal(r.numpy(), BASE.transpose(0, 2, 1).reshape(2, 12))
    v = t.reshape(1, 2, 4, 3)
    assert v._storage_ptr() == t._storage_ptr()
    f = t.flatten(0, 1)  # dims 0 and 1 are not one block: a copy
    assert f._storage_ptr() != t._storage_ptr()
    np.testing.assert_array_equal(f.numpy(), BASE.transpose(0, 2, 1).reshape(8, 3))
    assert t.ravel().is_contiguous() and t.ravel()._storage_ptr() != t._storage_ptr()
    c = _t(BASE)
    assert c.ravel()._storage_ptr() == c._storage_ptr()


FLAT = np.arange(96, dtype=np.float64)


def _numpy_strided_bases():
    a = FLAT
    return {
        "transposed": a[:24].reshape(2, 3, 4).transpose(1, 2, 0),
        "sliced": a.reshape(8, 12)[1:5, 2:10],
        "stepped": a.reshape(4, 24)[:, ::3],
        "sliced_inner": a.reshape(4, 4, 6)[:, :, :3],
        "with_ones": a[:12].reshape(3, 1, 4, 1)[:, :, ::2],
        "expanded": np.broadcast_to(a[:4].reshape(1, 4), (3, 4)),
        "expanded_inner": np.broadcast_to(a[:6].reshape(2, 3, 1), (2, 3, 2)),
        "permuted_4d": a[:48].reshape(2, 2, 3, 4).transpose(0, 2, 1, 3),
        "column": a.reshape(12, 8)[:, 3:4],
    }


def _shapes(n, max_len=4):
    """Every shape of up to max_len dims (1s included) whose product is n."""
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    out = []

    def rec(rest, prefix):
        if rest == 1 and prefix:
            out.append(tuple(prefix))
        if len(prefix) < max_len:
            for d in divisors:
                if rest % d == 0:
                    rec(rest // d, prefix + [d])
    rec(n, [])
    return out


@pytest.mark.parametrize("base", list(_numpy_strided_bases()))
def test_view_possible_exactly_when_numpy_reshapes_in_place(base):
    a = _numpy_strided_bases()[base]
    t = ember.tensor(FLAT).as_strided(a.shape, _strides(a), (_ptr(a) - _ptr(FLAT)) // 8)
    np.testing.assert_array_equal(t.numpy(), a)
    for shape in _shapes(a.size):
        w = a.view()
        try:
            w.shape = shape  # NumPy refuses when it would need a copy
            ok = True
        except AttributeError:
            ok = False
        if ok:
            v = t.view(shape)
            _same_layout(v, w)
            np.testing.assert_array_equal(v.numpy(), w)
            assert v._storage_ptr() == t._storage_ptr()
        else:
            with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and "
                                                   r"stride \(at least one dimension spans across two contiguous "
                                                   r"subspaces\)\. Use \.reshape\(\.\.\.\) instead\."):
                t.view(shape)
            r = t.reshape(shape)
            assert r.is_contiguous()
            np.testing.assert_array_equal(r.numpy(), a.reshape(shape))


def test_unsqueeze_and_squeeze_strides():
    t = _t(BASE)
    assert t.unsqueeze(0).stride() == (24, 12, 4, 1)
    assert t.unsqueeze(3).stride() == (12, 4, 1, 1)
    assert t.unsqueeze(-1).shape == (2, 3, 4, 1)
    s = _t(np.zeros((1, 3, 1)))
    assert s.squeeze().shape == (3,)
    assert s.squeeze(1).shape == (1, 3, 1)  # not size 1: kept
    assert s.squeeze((0, 2)).shape == (3,)
    assert ember.squeeze(s, -1).shape == (1, 3)
    assert _t(np.float32(5)).squeeze().shape == ()


def test_split_overloads_and_chunk_sizes():
    t = _t(np.arange(10, dtype=np.int64))
    assert [p.numel() for p in ember.split(t, 3)] == [3, 3, 3, 1]
    assert [p.numel() for p in t.split(3)] == [3, 3, 3, 1]
    assert [p.numel() for p in ember.split(t, [3, 7])] == [3, 7]
    assert [p.numel() for p in t.split((5, 0, 5))] == [5, 0, 5]
    assert [p.numel() for p in t.split_with_sizes([4, 6])] == [4, 6]
    # chunk: pieces of ceil(n / chunks), so fewer pieces than asked for can come back
    assert [p.numel() for p in t.chunk(4)] == [3, 3, 3, 1]
    assert [p.numel() for p in _t(np.arange(6)).chunk(4)] == [2, 2, 2]
    assert [p.numel() for p in _t(np.arange(2)).chunk(5)] == [1, 1]
    assert isinstance(t.unbind(), tuple) and len(t.unbind()) == 10
    for p in ember.split(t, 3):
        assert p._storage_ptr() == t._storage_ptr()


def test_T_mT_on_other_ranks():
    assert _t(np.zeros((2, 3, 4))).T.shape == (4, 3, 2)
    assert _t(np.zeros(5)).T.shape == (5,)
    assert _t(np.float32(1)).T.shape == ()
    assert _t(np.zeros((5, 2, 3))).mT.shape == (5, 3, 2)
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches of matrices. Got 1-D"):
        _t(np.zeros(3)).mT


@pytest.mark.skipif(not hasattr(ember.Tensor, "conj"), reason="ember.conj is not built")
def test_H_mH_conjugate_transpose():
    z = np.arange(6).reshape(2, 3) + 1j * np.arange(6, 12).reshape(2, 3)
    t = ember.tensor(z)
    np.testing.assert_array_equal(t.H.numpy(), z.conj().T)
    np.testing.assert_array_equal(
        ember.tensor(np.stack([z, 2 * z])).mH.numpy(), np.stack([z, 2 * z]).conj().swapaxes(-1, -2)
    )
    with pytest.raises(RuntimeError, match="tensor.H is only supported on matrices"):
        ember.tensor(np.stack([z, z])).H
    with pytest.raises(RuntimeError, match="tensor.mH is only supported on matrices or batches of matrices"):
        ember.tensor(z[0]).mH


def test_meta_views_keep_shapes_and_strides():
    m = _t(BASE).to("meta")
    v = m.transpose(0, 2).unsqueeze(1)
    assert v.is_meta and v.shape == (4, 1, 3, 2)
    assert m.view(4, 6).stride() == (6, 1)
    assert m.transpose(0, 1).reshape(6, 4).is_meta
    assert [p.shape for p in m.split(3, 2)] == [(2, 3, 3), (2, 3, 1)]


# ---------------------------------------------------------------- errors
def _dim_error(lo, hi, got):
    return pytest.raises(IndexError, match=fr"Dimension out of range \(expected to be in range of \[{lo}, {hi}\], "
                                           fr"but got {got}\)")


def test_out_of_range_dims():
    t = _t(np.zeros((2, 3)))
    with _dim_error(-2, 1, 2):
        t.transpose(0, 2)
    with _dim_error(-2, 1, -3):
        t.permute(0, -3)
    with _dim_error(-3, 2, 3):
        t.unsqueeze(3)
    with _dim_error(-2, 1, 2):
        t.squeeze(2)
    with _dim_error(-2, 1, 2):
        t.select(2, 0)
    with _dim_error(-2, 1, 5):
        t.narrow(5, 0, 1)
    with _dim_error(-2, 1, 2):
        t.flatten(0, 2)
    with _dim_error(-2, 1, 2):
        t.diagonal(0, 0, 2)
    with _dim_error(-2, 1, 2):
        t.movedim(2, 0)
    with _dim_error(-2, 1, 2):
        t.split(1, 2)
    with _dim_error(-2, 1, -3):
        t.chunk(2, -3)
    with _dim_error(-2, 1, 2):
        t.unbind(2)
    with _dim_error(-2, 1, 2):
        t.unfold(2, 1, 1)
    with _dim_error(-2, 1, 2):
        t.unflatten(2, (1, 1))


def test_view_errors():
    t = _t(np.zeros((2, 3)))
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        t.view(4, 2)
    with pytest.raises(RuntimeError, match=r"shape '\[-1, 4\]' is invalid for input of size 6"):
        t.reshape(-1, 4)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        t.view(-1, -1)
    with pytest.raises(RuntimeError, match="invalid shape dimension -2"):
        t.view(-2, 3)
    with pytest.raises(RuntimeError, match="cannot reshape tensor of 0 elements into shape"):
        _t(np.zeros((0, 3))).view(-1, 0)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view(6)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view_as(_t(np.zeros(6)))


def test_permute_transpose_t_errors():
    t = _t(np.zeros((2, 3)))
    with pytest.raises(RuntimeError, match=r"input.dim\(\) = 2 is not equal to len\(dims\) = 3"):
        t.permute(0, 1, 2)
    with pytest.raises(RuntimeError, match="duplicate dims are not allowed"):
        t.permute(1, -1)
    with pytest.raises(RuntimeError, match=r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D"):
        _t(BASE).t()
    with pytest.raises(RuntimeError, match=r"movedim: Invalid source or destination dims"):
        t.movedim((0, 1), (0,))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        t.movedim((0, 0), (0, 1))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `destination` \(\[1, -1\]\)"):
        t.movedim((0, 1), (1, -1))


def test_expand_errors():
    t = _t(np.zeros((3, 1)))
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the existing size \(3\) "
                                           r"at non-singleton dimension 0"):
        t.expand(4, 2)
    with pytest.raises(RuntimeError, match=r"the number of sizes provided \(1\) must be greater or equal to the "
                                           r"number of dimensions in the tensor \(2\)"):
        t.expand(3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(-1\) isn't allowed in a leading, "
                                           r"non-existing dimension 0"):
        t.expand(-1, 3, 1)
    with pytest.raises(RuntimeError, match="negative dimension -2"):
        t.expand(3, -2)
    with pytest.raises(RuntimeError, match="must match the existing size"):
        t.expand_as(_t(np.zeros((2, 2))))


def test_squeeze_narrow_select_errors():
    t = _t(np.zeros((1, 3)))
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        t.squeeze((0, -2))
    with pytest.raises(RuntimeError, match=r"start \(2\) \+ length \(2\) exceeds dimension size \(3\)"):
        t.narrow(1, 2, 2)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of \[-3, 3\], but got 4\)"):
        t.narrow(1, 4, 0)
    with pytest.raises(RuntimeError, match="narrow\\(\\): length must be non-negative"):
        t.narrow(1, 0, -1)
    with pytest.raises(RuntimeError, match="narrow\\(\\) cannot be applied to a 0-dim tensor"):
        _t(np.float32(1)).narrow(0, 0, 1)
    with pytest.raises(
        IndexError, match=r"select\(\): index 3 out of range for tensor of size \[1, 3\] at dimension 1"
    ):
        t.select(1, 3)
    with pytest.raises(IndexError, match=r"index -4 out of range"):
        t.select(1, -4)
    with pytest.raises(IndexError, match="select\\(\\) cannot be applied to a 0-dim tensor"):
        _t(np.float32(1)).select(0, 0)


def test_flatten_unflatten_errors():
    t = _t(BASE)
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        t.flatten(2, 0)
    with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[2, 3\] don't multiply up to the size of dim 2 "
                                           r"\(4\) in the input tensor"):
        t.unflatten(2, (2, 3))
    with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[3, -1\] don't multiply up"):
        t.unflatten(-1, (3, -1))
    with pytest.raises(RuntimeError, match="unflatten: sizes must be non-empty"):
        t.unflatten(0, ())


def test_as_strided_unfold_diagonal_errors():
    t = _t(np.zeros(4, dtype=np.float32))
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        t.as_strided((2, 2), (1,))
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        t.as_strided((2,), (-1,))
    with pytest.raises(RuntimeError, match=r"requiring a storage size of 28 are out of bounds for storage of size 16"):
        t.as_strided((4,), (2,))
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        t.as_strided((2,), (1,), 3)
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 0 is 4 but size is 5"):
        t.unfold(0, 5, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        t.unfold(0, 2, 0)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, -1"):
        _t(np.zeros((2, 2))).diagonal(0, 1, -1)


def test_split_chunk_unbind_errors():
    t = _t(np.zeros((5, 2)))
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes to sum exactly to 5 \(input tensor's "
                                           r"size at dimension 0\), but got split_sizes=\[2, 2\]"):
        ember.split(t, [2, 2])
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes have only non-negative entries"):
        t.split([-1, 6])
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        t.split(-1)
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0"):
        t.split(0)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        t.chunk(0)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional tensor"):
        _t(np.float32(1)).chunk(1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        _t(np.float32(1)).unbind()


def test_view_as_real_complex_errors():
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        ember.view_as_real(_t(np.zeros(2)))
    with pytest.raises(RuntimeError, match="view_as_complex is only supported for float and double tensors, but got "
                                           "a tensor of scalar type: int64"):
        ember.view_as_complex(_t(np.zeros((2, 2), dtype=np.int64)))
    with pytest.raises(RuntimeError, match="Tensor must have a last dimension of size 2"):
        ember.view_as_complex(_t(np.zeros((2, 3))))
    with pytest.raises(RuntimeError, match="Tensor must have a last dimension with stride 1"):
        ember.view_as_complex(_t(np.zeros((2, 2))).t())
    with pytest.raises(RuntimeError, match="Tensor must have a stride divisible by 2 for all but last dimension"):
        ember.view_as_complex(_t(np.zeros((3, 3)))[:, :2])
    with pytest.raises(RuntimeError, match="Tensor must have a storage_offset divisible by 2"):
        ember.view_as_complex(_t(np.zeros(5))[1:].view(2, 2))
    with pytest.raises(RuntimeError, match="Input tensor must have one or more dimensions"):
        ember.view_as_complex(_t(np.float32(1)))
