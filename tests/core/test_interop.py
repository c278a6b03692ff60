"""NumPy and DLPack interop (zero-copy both ways), tolist, and the Tensor conversion methods
(type, float(), ..., new_*), checked against NumPy."""
import gc

import numpy as np
import pytest

import ember

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
             np.complex64, np.complex128]


def sample(np_dtype, shape=(2, 3)):
    a = np.arange(int(np.prod(shape))).reshape(shape) % 5
    return (a > 1) if np_dtype is np.bool_ else (a - 1 if np.dtype(np_dtype).kind != "u" else a).astype(np_dtype)


# ---- NumPy ----

def test_from_numpy_and_numpy_share_memory_both_ways():
    a = np.zeros(4, dtype=np.float32)
    t = ember.from_numpy(a)
    a[1] = 5.0
    assert t.tolist() == [0.0, 5.0, 0.0, 0.0]
    ember.ones(4, out=t)  # an in-place write from ember's side
    np.testing.assert_array_equal(a, np.ones(4, np.float32))
    n = t.numpy()
    assert np.shares_memory(n, a) and n.ctypes.data == t.data_ptr()
    n[3] = -2.0
    assert t.tolist() == [1.0, 1.0, 1.0, -2.0]

    u = ember.zeros(2, 3, dtype=ember.int32)
    m = u.numpy()
    m[1, 2] = 9
    assert u.tolist() == [[0, 0, 0], [0, 0, 9]]
    ember.full((2, 3), 4, dtype=ember.int32, out=u)
    np.testing.assert_array_equal(m, np.full((2, 3), 4, np.int32))


@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpy_round_trip_every_dtype(np_dtype):
    a = sample(np_dtype)
    t = ember.from_numpy(a)
    assert repr(t.dtype) == "ember." + np.dtype(np_dtype).name
    back = t.numpy()
    assert back.dtype == a.dtype and back.shape == a.shape
    np.testing.assert_array_equal(back, a)
    assert np.shares_memory(back, a)
    np.testing.assert_array_equal(np.asarray(ember.tensor(a)), a)  # a copy made by ember.tensor


def test_numpy_of_strided_and_offset_views():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    for view in (a.T, a[1:, ::2], a[2], a[:, 1:3].T):
        t = ember.from_numpy(view)
        n = t.numpy()
        np.testing.assert_array_equal(n, view)
        assert np.shares_memory(n, a)
        assert t.tolist() == view.tolist()


def test_numpy_array_outlives_the_tensor():
    n = ember.arange(5).numpy()
    gc.collect()
    np.testing.assert_array_equal(n, np.arange(5))
    m = ember.full((1000,), 3.0).numpy()
    gc.collect()
    assert m.sum() == 3000.0


def test_numpy_errors_and_force():
    b = ember.ones(3, dtype=ember.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        b.numpy()
    with pytest.raises(TypeError, match="bfloat16"):
        np.asarray(b)
    forced = b.numpy(force=True)
    assert forced.dtype == np.float32 and forced.tolist() == [1.0, 1.0, 1.0]
    meta = ember.zeros(2, device="meta")
    with pytest.raises(TypeError, match="meta"):  # as PyTorch
        meta.numpy()
    with pytest.raises(RuntimeError, match="meta"):
        meta.tolist()
    with pytest.raises(TypeError, match="expected np.ndarray"):
        ember.from_numpy([1, 2])


def test_array_protocol_with_dtype():
    t = ember.tensor([1.5, 2.5])
    assert np.asarray(t).dtype == np.float32
    a = np.array(t, dtype=np.float64)
    assert a.dtype == np.float64 and a.tolist() == [1.5, 2.5]
    assert not np.shares_memory(np.array(t), t.numpy())  # np.array copies by default
    np.testing.assert_array_equal(t.__array__(np.int64), [1, 2])
    with pytest.raises(ValueError, match="copy"):
        t.__array__(np.int64, copy=False)


# ---- tolist ----

def test_tolist_gives_python_numbers():
    cases = [
        (ember.tensor([1, 2]), [1, 2], int), (ember.tensor([1.5]), [1.5], float),
        (ember.tensor([True, False]), [True, False], bool), (ember.tensor([1 + 2j]), [1 + 2j], complex),
        (ember.tensor([1, 2], dtype=ember.uint8), [1, 2], int),
        (ember.tensor([0.5], dtype=ember.float16), [0.5], float),
        (ember.tensor([0.5], dtype=ember.bfloat16), [0.5], float),
        (ember.tensor([0.1], dtype=ember.float32), [float(np.float32(0.1))], float),
    ]
    for t, want, typ in cases:
        got = t.tolist()
        assert got == want and all(type(x) is typ for x in got), (t.dtype, got)
    for t, want in ((ember.tensor(3), 3), (ember.tensor(2.5), 2.5), (ember.tensor(True), True),
                    (ember.tensor(1j), 1j)):
        assert t.tolist() == want and type(t.tolist()) is type(want)
    assert ember.zeros(2, 0).tolist() == [[], []]
    assert ember.zeros(0).tolist() == []
    a = np.arange(24).reshape(2, 3, 4)
    assert ember.tensor(a).tolist() == a.tolist()


# ---- DLPack ----

@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_dlpack_numpy_to_ember_and_back(np_dtype):
    a = sample(np_dtype, (3, 4))
    t = ember.from_dlpack(a)
    assert t.shape == a.shape and t.tolist() == a.tolist()
    assert t.data_ptr() == a.ctypes.data  # zero-copy
    n = np.from_dlpack(t)
    assert n.dtype == a.dtype and np.shares_memory(n, a)
    np.testing.assert_array_equal(n, a)


def test_dlpack_writes_show_through():
    a = np.zeros(5, np.float64)
    t = ember.from_dlpack(a)
    a[0] = 7.0
    assert t.tolist()[0] == 7.0
    e = ember.arange(6, dtype=ember.float32)
    n = np.from_dlpack(e)
    n[2] = 100.0
    assert e.tolist()[2] == 100.0
    ember.zeros(6, out=e)
    assert n.sum() == 0


def test_dlpack_strided_and_0dim():
    a = np.arange(20, dtype=np.int32).reshape(4, 5)[::2, 1:4]
    t = ember.from_dlpack(a)
    assert t.stride() == (10, 1) and t.tolist() == a.tolist()
    n = np.from_dlpack(ember.from_numpy(a.T))
    np.testing.assert_array_equal(n, a.T)
    s = np.from_dlpack(ember.tensor(2.5))
    assert s.shape == () and s == 2.5


def test_dlpack_protocol_details():
    t = ember.tensor([1.0, 2.0])
    assert t.__dlpack_device__() == (1, 0)
    cap = t.__dlpack__()
    u = ember.from_dlpack(cap)
    assert u.tolist() == [1.0, 2.0] and u.data_ptr() == t.data_ptr()
    with pytest.raises(RuntimeError, match="consumed only once"):
        ember.from_dlpack(cap)
    copied = ember.from_dlpack(t.__dlpack__(copy=True))
    assert copied.data_ptr() != t.data_ptr() and copied.tolist() == [1.0, 2.0]
    assert ember.from_dlpack(t.__dlpack__(max_version=(1, 0), dl_device=(1, 0))).tolist() == [1.0, 2.0]
    with pytest.raises(BufferError, match="stream"):
        t.__dlpack__(stream=3)
    with pytest.raises(BufferError, match="device"):
        t.__dlpack__(dl_device=(2, 0))
    meta = ember.zeros(2, device="meta")
    with pytest.raises(BufferError, match="meta"):
        meta.__dlpack__()
    with pytest.raises(BufferError):
        meta.__dlpack_device__()
    v = ember.from_dlpack(t.__dlpack__(max_version=(1, 0)))  # a DLPack 1.0 ("versioned") capsule
    assert v.tolist() == [1.0, 2.0] and v.data_ptr() == t.data_ptr()
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        ember.from_dlpack(ro.__dlpack__(max_version=(1, 0)))
    b = ember.tensor([1.5, -2.0], dtype=ember.bfloat16)  # DLPack has bfloat16 even though NumPy does not
    assert ember.from_dlpack(b.__dlpack__()).dtype == ember.bfloat16
    assert ember.from_dlpack(t) is t


# ---- conversion methods ----

CONVERSIONS = [("float", ember.float32, np.float32), ("double", ember.float64, np.float64),
               ("half", ember.float16, np.float16), ("bfloat16", ember.bfloat16, None),
               ("long", ember.int64, np.int64), ("int", ember.int32, np.int32), ("short", ember.int16, np.int16),
               ("char", ember.int8, np.int8), ("byte", ember.uint8, np.uint8), ("bool", ember.bool, np.bool_),
               ("cfloat", ember.complex64, np.complex64), ("cdouble", ember.complex128, np.complex128)]


@pytest.mark.parametrize("method,dtype,np_dtype", CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_dtype_shortcuts(method, dtype, np_dtype):
    a = np.array([0.0, 1.75, 3.5, 100.25], np.float64)
    t = ember.from_numpy(a)
    out = getattr(t, method)()
    assert out.dtype == dtype
    if np_dtype is not None:
        np.testing.assert_array_equal(out.numpy(), a.astype(np_dtype))
    else:
        np.testing.assert_array_equal(out.float().numpy(), [0.0, 1.75, 3.5, 100.0])  # bfloat16 rounding
    assert getattr(out, method)() is out  # already that dtype: the same tensor


def test_type_and_type_as():
    t = ember.tensor([1.5, 2.5])
    assert t.type() == "ember.FloatTensor"
    names = {ember.float64: "DoubleTensor", ember.float16: "HalfTensor", ember.bfloat16: "BFloat16Tensor",
             ember.int64: "LongTensor", ember.int32: "IntTensor", ember.int16: "ShortTensor",
             ember.int8: "CharTensor", ember.uint8: "ByteTensor", ember.bool: "BoolTensor",
             ember.complex64: "ComplexFloatTensor", ember.complex128: "ComplexDoubleTensor"}
    for dt, name in names.items():
        assert t.to(dt).type() == "ember." + name
        assert t.type("ember." + name).dtype == dt
    assert t.type(ember.int64).tolist() == [1, 2]
    assert t.type(ember.float32) is t
    assert t.type("torch.DoubleTensor").dtype == ember.float64  # PyTorch's spelling is accepted
    assert t.type_as(ember.tensor([1], dtype=ember.int16)).dtype == ember.int16
    with pytest.raises(ValueError, match="invalid type"):
        t.type("ember.FooTensor")
    with pytest.raises(TypeError):
        t.type(3)
    with pytest.raises(TypeError, match="Tensor"):
        t.type_as(np.zeros(2))


def test_new_factories_inherit_dtype_and_device():
    x = ember.tensor([1, 2, 3], dtype=ember.int16)
    for t in (x.new_zeros(2, 3), x.new_zeros((2, 3)), x.new_zeros(size=(2, 3))):
        assert t.dtype == ember.int16 and t.shape == (2, 3)
        np.testing.assert_array_equal(t.numpy(), np.zeros((2, 3), np.int16))
    np.testing.assert_array_equal(x.new_ones(4).numpy(), np.ones(4, np.int16))
    assert x.new_empty(2, 2).dtype == ember.int16 and x.new_empty((5,)).shape == (5,)
    f = ember.zeros(1).new_full((2,), 3)
    assert f.dtype == ember.float32 and f.tolist() == [3.0, 3.0]  # self's dtype, not the value's
    nt = ember.zeros(1, dtype=ember.float64).new_tensor([1, 2])
    assert nt.dtype == ember.float64 and nt.tolist() == [1.0, 2.0]
    assert x.new_zeros(2, dtype=ember.float64).dtype == ember.float64
    m = ember.zeros(2, device="meta", dtype=ember.int8).new_ones(3)
    assert m.is_meta and m.dtype == ember.int8 and m.shape == (3,)
    with pytest.raises(TypeError, match="unexpected keyword"):
        x.new_zeros(2, bogus=1)
    with pytest.raises(TypeError, match="multiple values"):
        x.new_zeros(2, size=(3,))
    with pytest.raises(RuntimeError, match="floating point and complex dtype can require gradients"):
        x.new_zeros(2, requires_grad=True)  # x is int16
    assert x.new_zeros(2, dtype=ember.float32, requires_grad=True).requires_grad


def test_to_does_not_mistake_bool_for_a_device():
    t = ember.tensor([1.0])
    assert t.to(ember.float64, True).dtype == ember.float64
    c = t.to(ember.float32, True)  # copy=True positionally
    assert c is not t and c.tolist() == [1.0]
