"""Copying shape ops against NumPy on layouts the op database samples don't reach (transposed,
sliced, expanded inputs), cat's type promotion and out=, in-place and out= triangles, meta
tensors, and every error case."""
import numpy as np
import pytest

import ember


def _t(a):
    return ember.tensor(np.array(a, order="C"))


RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 6)).astype(np.float32)


def _layouts():
    """(name, ember tensor, the same values in NumPy) over non-contiguous layouts."""
    t = _t(A)
    return [
        ("transposed", t.t(), A.T),
        ("sliced", t[1:, ::2], A[1:, ::2]),
        ("expanded", _t(A[:1]).expand(3, 6), np.broadcast_to(A[:1], (3, 6))),
        ("transposed_sliced", t.t()[::2], A.T[::2]),
    ]


LAYOUTS = _layouts()
IDS = [x[0] for x in LAYOUTS]

OPS = [
    ("clone", lambda t: t.clone(), np.copy),
    ("contiguous", lambda t: t.contiguous(), np.ascontiguousarray),
    ("flip", lambda t: t.flip(0, 1), lambda a: np.flip(a, (0, 1))),
    ("flip1", lambda t: ember.flip(t, (1,)), lambda a: np.flip(a, 1)),
    ("fliplr", lambda t: t.fliplr(), np.fliplr),
    ("flipud", lambda t: ember.flipud(t), np.flipud),
    ("roll", lambda t: t.roll((1, -2), (0, 1)), lambda a: np.roll(a, (1, -2), (0, 1))),
    ("roll_flat", lambda t: t.roll(5), lambda a: np.roll(a, 5)),
    ("repeat", lambda t: t.repeat(2, 1, 3), lambda a: np.tile(a, (2, 1, 3))),
    ("tile", lambda t: t.tile((2,)), lambda a: np.tile(a, 2)),
    ("tril", lambda t: t.tril(1), lambda a: np.tril(a, 1)),
    ("triu", lambda t: ember.triu(t, -1), lambda a: np.triu(a, -1)),
    ("cat", lambda t: ember.cat([t, t], 1), lambda a: np.concatenate([a, a], 1)),
    ("stack", lambda t: ember.stack([t, t], 2), lambda a: np.stack([a, a], 2)),
    ("reshape", lambda t: t.reshape(-1), lambda a: a.reshape(-1)),
]


@pytest.mark.parametrize("layout", range(len(LAYOUTS)), ids=IDS)
@pytest.mark.parametrize("name,ef,nf", OPS, ids=[o[0] for o in OPS])
def test_copy_ops_on_strided_inputs(layout, name, ef, nf):
    _, t, a = LAYOUTS[layout]
    got = ef(t)
    np.testing.assert_array_equal(got.numpy(), nf(a))
    if name not in ("contiguous", "reshape"):
        assert got._storage_ptr() != t._storage_ptr()  # a copy, not a view
        before = t.numpy().copy()
        got[...] = 0.0
        np.testing.assert_array_equal(t.numpy(), before)  # writing the result leaves the input alone


def test_clone_keeps_dense_layouts_and_contiguous_returns_self():
    t = _t(A)
    assert t.contiguous() is t
    tt = t.t()
    c = tt.clone()
    assert c.stride() == tt.stride() == (1, 6)  # NumPy's order='K' copy: same strides
    assert np.copy(A.T, order="K").strides == (4, 24)
    assert tt.contiguous().stride() == (4, 1)
    assert tt.contiguous()._storage_ptr() != tt._storage_ptr()
    s = t[:, ::2].clone()  # not dense: a C-contiguous copy
    assert s.stride() == (3, 1) and s.is_contiguous()


# ---------------------------------------------------------------- cat / stack
PROMOTIONS = [  # PyTorch's result types for cat
    ("int32", "float32", "float32"), ("bool", "uint8", "uint8"), ("int8", "uint8", "int16"),
    ("float16", "bfloat16", "float32"), ("int64", "complex64", "complex64"), ("float64", "complex64", "complex128"),
    ("bool", "bool", "bool"), ("int64", "float16", "float16"),
]


@pytest.mark.parametrize("a,b,want", PROMOTIONS)
def test_cat_promotes_like_pytorch(a, b, want):
    x = _t(np.arange(6).reshape(2, 3) % 2).to(getattr(ember, a))
    y = _t(np.arange(3).reshape(1, 3) % 2).to(getattr(ember, b))
    r = ember.cat([x, y])
    assert r.dtype == getattr(ember, want)
    assert r.shape == (3, 3)
    np.testing.assert_array_equal(r.to(ember.complex128).numpy().real,
                                  np.concatenate([np.arange(6).reshape(2, 3) % 2, np.arange(3).reshape(1, 3) % 2]))


def test_cat_skips_legacy_empty_but_promotes_with_it():
    x = _t(np.arange(6, dtype=np.int32).reshape(2, 3))
    e = _t(np.zeros(0, dtype=np.float64))
    r = ember.cat([e, x, e], dim=1)
    assert r.dtype == ember.float64 and r.shape == (2, 3)
    np.testing.assert_array_equal(r.numpy(), np.arange(6).reshape(2, 3))
    assert ember.cat([e, e]).shape == (0,)


def test_cat_out_and_aliases():
    x, y = _t(A[:2]), _t(A[2:])
    out = _t(np.zeros((1,), np.float64))
    r = ember.cat([x, y], out=out)
    assert r is out and out.shape == (4, 6) and out.dtype == ember.float64
    np.testing.assert_allclose(out.numpy(), A.astype(np.float64))
    np.testing.assert_array_equal(ember.concat((x, y), dim=-1).numpy(), np.concatenate([A[:2], A[2:]], -1))
    np.testing.assert_array_equal(ember.concatenate([x, y], axis=1).numpy(), np.concatenate([A[:2], A[2:]], 1))
    o2 = _t(np.zeros((2, 2, 6), np.float32))
    assert ember.stack([x, y], out=o2) is o2
    np.testing.assert_array_equal(o2.numpy(), np.stack([A[:2], A[2:]]))
    o3 = _t(np.zeros(0, np.float32))
    ember.hstack([x, y], out=o3)
    np.testing.assert_array_equal(o3.numpy(), np.hstack([A[:2], A[2:]]))


def test_cat_many_pieces():
    parts = [RNG.standard_normal((3, i % 4)).astype(np.float32) for i in range(300)]
    np.testing.assert_array_equal(ember.cat([_t(p) for p in parts], 1).numpy(), np.concatenate(parts, 1))
    rows = [RNG.standard_normal((1, 5)) for _ in range(500)]
    np.testing.assert_array_equal(ember.cat([_t(r) for r in rows]).numpy(), np.concatenate(rows))
    np.testing.assert_array_equal(ember.stack([_t(r[0]) for r in rows], 1).numpy(), np.stack([r[0] for r in rows], 1))


def test_cat_errors():
    x = _t(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):  # as PyTorch
        ember.cat([])
    with pytest.raises(RuntimeError, match=r"zero-dimensional tensor \(at position 1\) cannot be concatenated"):
        ember.cat([x, _t(np.float32(1))])
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 3"):
        ember.cat([x, _t(np.zeros((2, 3, 1)))])
    with pytest.raises(
        RuntimeError,
        match=r"Sizes of tensors must match except in dimension 0. Expected size 3 but got "
        r"size 4 for tensor number 2 in the list",
    ):
        ember.cat([x, x, _t(np.zeros((2, 4)))])
    with pytest.raises(
        RuntimeError,
        match=r"Sizes of tensors must match except in dimension 1. Expected size 2 but got "
        r"size 1 for tensor number 1",
    ):
        ember.cat([x, _t(np.zeros((1, 3)))], dim=-1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        ember.cat([x, x], 2)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        ember.cat([x, x], out=_t(np.zeros(1, np.int64)))
    with pytest.raises(RuntimeError, match="Found overlap in input tensor 1"):
        big = _t(np.zeros((4, 3), np.float32))
        ember.cat([x, big[:2]], out=big)
    with pytest.raises(RuntimeError, match="same device"):
        ember.cat([x, x.to("meta")])
    with pytest.raises(TypeError, match="cat"):
        ember.cat([x, 1.0])


def test_stack_family_errors():
    x = _t(np.zeros((2, 3)))
    with pytest.raises(
        RuntimeError,
        match=r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and "
        r"\[3, 2\] at entry 1",
    ):
        ember.stack([x, x.t()])
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        ember.stack([])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
        ember.stack([x, x], 3)
    for fn in (ember.hstack, ember.vstack, ember.dstack, ember.column_stack):
        with pytest.raises(RuntimeError, match="expects a non-empty TensorList"):
            fn([])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        ember.vstack([x, _t(np.zeros(4))])


# ---------------------------------------------------------------- flip / roll / repeat errors
def test_flip_roll_repeat_errors():
    x = _t(np.zeros((2, 3)))
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        x.flip(1, -1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.flip(2)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        _t(np.zeros(3)).fliplr()
    with pytest.raises(RuntimeError, match="Input must be >= 1-d."):
        _t(np.float32(1)).flipud()
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        x.roll((1, 2), 0)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:0"):
        x.roll((1, 2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.roll(1, 2)
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller than number of "
                                           "dimensions of tensor"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        x.repeat(1, -1)
    with pytest.raises(RuntimeError, match="negative dimension -2"):
        x.tile((-2,))


# ---------------------------------------------------------------- triangles
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tri_inplace_and_out(name):
    ref = getattr(np, name)
    a = RNG.standard_normal((2, 4, 5))
    t = _t(a)
    ptr = t._storage_ptr()
    r = getattr(t, name + "_")(1)
    assert r is t and t._storage_ptr() == ptr
    np.testing.assert_array_equal(t.numpy(), ref(a, 1))
    # in place on a transposed view writes through to the base
    base = _t(a)
    getattr(base.transpose(1, 2), name + "_")()
    want = a.copy()
    want.swapaxes(1, 2)[...] = ref(a.swapaxes(1, 2))
    np.testing.assert_array_equal(base.numpy(), want)
    out = _t(np.zeros(3))
    assert getattr(ember, name)(_t(a), -1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), ref(a, -1))
    same = _t(a)
    getattr(ember, name)(same, 0, out=same)  # out aliasing the input
    np.testing.assert_array_equal(same.numpy(), ref(a))
    shifted = _t(np.arange(30.0).reshape(6, 5))
    getattr(ember, name)(shifted[:5], out=shifted[1:])  # partial overlap goes through a temporary
    want = np.arange(30.0).reshape(6, 5)
    want[1:] = ref(np.arange(25.0).reshape(5, 5))
    np.testing.assert_array_equal(shifted.numpy(), want)


def test_tri_errors():
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        _t(np.zeros(3)).tril()
    with pytest.raises(RuntimeError, match="triu: input tensor must have at least 2 dimensions"):
        ember.triu(_t(np.float32(1)))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float64, but got int64 instead"):
        ember.tril(_t(np.zeros((2, 2))), out=_t(np.zeros((2, 2), np.int64)))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single memory"):
        _t(np.zeros((1, 3))).expand(3, 3).triu_()
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        _t(np.zeros(4)).tril_()


def test_tri_extreme_diagonals():
    a = RNG.standard_normal((3, 4))
    for k in (2**62, -(2**62), 100, -100):
        np.testing.assert_array_equal(_t(a).tril(k).numpy(), np.tril(a, k))
        np.testing.assert_array_equal(_t(a).triu(k).numpy(), np.triu(a, k))


# ---------------------------------------------------------------- meta
def test_meta_copy_ops_give_shapes_only():
    m = ember.tensor(np.zeros((2, 3), np.float32)).to("meta")
    assert ember.cat([m, m], 1).shape == (2, 6) and ember.cat([m, m]).is_meta
    assert ember.stack([m, m, m]).shape == (3, 2, 3)
    assert m.t().flip(0).shape == (3, 2) and m.flip(0).is_meta
    assert m.roll(1, 0).is_meta and m.repeat(2, 2).shape == (4, 6)
    assert m.tril().is_meta and m.triu_() is m
    assert m.t().contiguous().is_meta and m.t().contiguous().is_contiguous()
    assert ember.hstack([m, m]).shape == (2, 6) and ember.vstack([m, m]).shape == (4, 3)
    assert ember.dstack([m, m]).shape == (2, 3, 2) and ember.column_stack([m, m]).shape == (2, 6)
