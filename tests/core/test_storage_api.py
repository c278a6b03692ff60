"""Storages as PyTorch 2.13 has them (UntypedStorage, TypedStorage, the legacy FloatStorage ... classes),
Tensor.set_/share_memory_/is_shared and ember.from_file. Expected values and messages are PyTorch's,
written out here (observed with PyTorch 2.13 on CPU); byte values come from NumPy or struct."""
import pickle
import struct
import warnings

import numpy as np
import pytest

import ember


@pytest.fixture(autouse=True)
def _quiet_typed_storage_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def test_untyped_storage_sizes_and_bytes():
    t = ember.arange(6.)
    u = t.untyped_storage()
    assert type(u) is ember.UntypedStorage
    assert (u.size(), u.nbytes(), len(u), u.element_size()) == (24, 24, 24, 1)
    assert u.tolist() == list(np.arange(6, dtype=np.float32).tobytes())
    assert u is t.untyped_storage() and u is t[2:].untyped_storage()  # one object per storage
    assert u.data_ptr() == t.data_ptr()
    assert u.device == ember.device("cpu") and u.get_device() == -1
    assert u.type() == "ember.storage.UntypedStorage"
    assert repr(ember.UntypedStorage([1, 2])) == " 1\n 2\n[ember.storage.UntypedStorage(device=cpu) of size 2]"


def test_typed_storage_reads_the_tensor_dtype():
    t = ember.arange(6.)
    s = t.storage()
    assert type(s) is ember.TypedStorage and s.dtype == ember.float32
    assert (s.size(), len(s), s.nbytes(), s.element_size()) == (6, 6, 24, 4)
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert s[1] == 1.0 and s[-1] == 5.0
    assert t.storage_type() is ember.FloatStorage and s.type() == "ember.FloatStorage"
    assert repr(ember.FloatStorage([1, 2])) == (
        " 1.0\n 2.0\n[ember.storage.TypedStorage(dtype=ember.float32, device=cpu) of size 2]")
    assert t[2:].storage().size() == 6  # the whole storage, not the view


def test_typed_storage_deprecation_warning_text():
    import ember._storage_typed as st
    st._warned[0] = False
    with pytest.warns(UserWarning, match="TypedStorage is deprecated. It will be removed in the future and "
                                         "UntypedStorage will be the only storage class"):
        ember.zeros(2).storage()


def test_legacy_storage_classes():
    f = ember.FloatStorage(3)
    assert type(f) is ember.TypedStorage and f.dtype == ember.float32 and f.size() == 3
    assert isinstance(f, ember.FloatStorage) and not isinstance(f, ember.DoubleStorage)
    assert isinstance(ember.zeros(2, dtype=ember.int64).storage(), ember.LongStorage)
    assert ember.IntStorage([1, 2]).tolist() == [1, 2]
    assert ember.FloatStorage([1, 2]).double().dtype == ember.float64
    assert ember.FloatStorage([1.5, 2]).int().tolist() == [1, 2]
    assert ember.TypedStorage(2, dtype=ember.int64).nbytes() == 16
    assert ember.TypedStorage([1, 2], dtype=ember.int64).tolist() == [1, 2]
    assert ember.UntypedStorage([1, 2]).float().tolist() == [1.0, 2.0]  # byte values converted


def test_is_storage():
    t = ember.zeros(2)
    assert ember.is_storage(t.storage()) and ember.is_storage(t.untyped_storage())
    assert not ember.is_storage(t) and not ember.is_storage([1])


def test_indexing_and_errors():
    t = ember.arange(6.)
    s, u = t.storage(), t.untyped_storage()
    with pytest.raises(IndexError, match="^index 10 out of range for storage of size 6$"):
        s[10]
    with pytest.raises(IndexError, match="^index 100 out of range for storage of size 24$"):
        u[100]
    with pytest.raises(RuntimeError, match="^slices are only supported in UntypedStorage.__getitem__$"):
        s[1:3]
    with pytest.raises(TypeError, match="can't index a ember.UntypedStorage with float"):
        u[1.5]
    assert u[-1] == 64  # the high byte of float32 5.0


def test_untyped_slices_alias_the_storage():
    u = ember.UntypedStorage([1, 2, 3, 4])
    part = u[1:3]
    assert part.tolist() == [2, 3] and part.data_ptr() == u.data_ptr() + 1
    part[0] = 9
    assert u.tolist() == [1, 9, 3, 4]


def test_fill_setitem_and_byte_wrapping():
    t = ember.arange(6.)
    t.storage().fill_(2)
    assert t.tolist() == [2.0] * 6
    t.storage()[0] = 5.0
    assert t[0].item() == 5.0
    u = ember.UntypedStorage(3).fill_(300)  # PyTorch keeps the low byte
    assert u.tolist() == [44, 44, 44]
    u[0] = -1
    assert u[0] == 255
    assert ember.UntypedStorage([1, 2, 300]).tolist() == [1, 2, 44]


def test_copy_requires_equal_byte_sizes():
    with pytest.raises(RuntimeError, match="^size does not match, self was 3 bytes but src was 4 bytes$"):
        ember.UntypedStorage(3).copy_(ember.UntypedStorage(4))
    with pytest.raises(RuntimeError, match="^size does not match, self was 12 bytes but src was 24 bytes$"):
        ember.FloatStorage(3).copy_(ember.DoubleStorage(3))
    dst = ember.FloatStorage(2).copy_(ember.FloatStorage([3, 4]))
    assert dst.tolist() == [3.0, 4.0]


def test_from_buffer_byte_orders():
    data = b"abcdefgh"
    assert ember.UntypedStorage.from_buffer(b"abcd", dtype=ember.uint8).tolist() == [97, 98, 99, 100]
    little = ember.TypedStorage.from_buffer(data, "little", dtype=ember.int16).tolist()
    big = ember.TypedStorage.from_buffer(data, "big", dtype=ember.int16).tolist()
    assert little == list(struct.unpack("<4h", data)) and big == list(struct.unpack(">4h", data))
    assert ember.FloatStorage.from_buffer(data, "little").tolist() == pytest.approx(struct.unpack("<2f", data))
    with pytest.raises(ValueError, match=r"^buffer size \(7\) must be a multiple of element size \(4\)$"):
        ember.FloatStorage.from_buffer(b"abcdefg", "little")
    with pytest.raises(ValueError, match="^invalid byte_order 'middle' \\(expected 'big', 'little', or 'native'\\)$"):
        ember.FloatStorage.from_buffer(data, "middle")
    with pytest.raises(RuntimeError, match="argument 'dtype' cannot be None"):
        ember.UntypedStorage.from_buffer(data, byte_order="native")


def test_resize_and_pickle_and_copy():
    s = ember.UntypedStorage([1, 2, 3])
    s.resize_(5)
    assert s.nbytes() == 5 and s.tolist()[:3] == [1, 2, 3]
    assert pickle.loads(pickle.dumps(ember.FloatStorage([1, 2]))).tolist() == [1.0, 2.0]
    back = pickle.loads(pickle.dumps(s))
    assert back.tolist()[:3] == [1, 2, 3] and back.data_ptr() != s.data_ptr()
    import copy
    c = copy.deepcopy(ember.UntypedStorage([7, 8]))
    assert c.tolist() == [7, 8]


def test_pinning_on_a_cpu_only_build():
    t = ember.zeros(2)
    assert not t.is_pinned() and not t.untyped_storage().is_pinned()
    for pin in (t.pin_memory, t.untyped_storage().pin_memory, t.storage().pin_memory):
        with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none is available.$"):
            pin()


def test_share_memory_moves_in_place():
    t = ember.arange(4.)
    view = t[1:]
    assert not t.is_shared()
    assert view.share_memory_() is view
    assert t.is_shared() and view.is_shared() and t.untyped_storage().is_shared()
    view[0] = 10.0  # the base and the view still share one (now shared-memory) storage
    assert t.tolist() == [0.0, 10.0, 2.0, 3.0]
    assert ember.UntypedStorage(0).share_memory_().is_shared()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.untyped_storage().resize_(64)


def test_share_memory_keeps_numpy_views_valid():
    t = ember.arange(4.)
    arr = t.numpy()  # holds the old address: it must stay readable after the move
    t.share_memory_()
    assert t.is_shared() and arr.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_share_memory_on_meta():
    m = ember.empty(2, device="meta")
    assert not m.is_shared()
    with pytest.raises(RuntimeError, match="only available on CPU"):
        m.share_memory_()


def test_set_views_a_storage():
    u = ember.FloatStorage([0, 1, 2, 3, 4, 5]).untyped()
    x = ember.empty(0)
    assert x.set_(u, 2, (2, 2), (1, 2)) is x
    assert x.tolist() == [[2.0, 4.0], [3.0, 5.0]] and x.storage_offset() == 2
    assert x.set_(u, 0, (2, 2)).stride() == (2, 1)
    assert x.set_(u).shape == (6,)
    base = ember.arange(5.)
    assert x.set_(base[1:]).tolist() == [1.0, 2.0, 3.0, 4.0] and x.data_ptr() == base.data_ptr() + 4
    x[0] = 9.0
    assert base[1].item() == 9.0
    assert x.set_().shape == (0,)
    assert ember.empty(0, dtype=ember.int64).set_(ember.UntypedStorage(24)).shape == (3,)


def test_set_grows_a_resizable_storage():
    u = ember.UntypedStorage(8)
    x = ember.empty(0).set_(u, 0, (30,), (1,))
    assert x.shape == (30,) and u.nbytes() == 120


def test_set_bad_input():
    u = ember.UntypedStorage(24)
    x = ember.empty(0)
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -3: \[-3\]$"):
        x.set_(u, 0, (-3,), (1,))
    with pytest.raises(RuntimeError, match="^Tensor: invalid storage offset -1$"):
        x.set_(u, -1, (3,), (1,))
    with pytest.raises(RuntimeError, match=r"^unequal size length \(2\) and stride length \(1\)$"):
        x.set_(u, 0, (2, 2), (1,))
    with pytest.raises(RuntimeError, match="^Expected a Storage of type float or an UntypedStorage, but got type "
                                           "Double for argument 1 'storage'$"):
        x.set_(ember.DoubleStorage(4), 0, (2,), (1,))
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                           "operation.$"):
        ember.zeros(3, requires_grad=True).set_(u)
    with pytest.raises(TypeError, match="set_\\(\\) received an invalid combination of arguments - got \\(int\\)"):
        x.set_(5)
    shared = ember.UntypedStorage(8).share_memory_()  # too small and not resizable: PyTorch crashes here
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        x.set_(shared, 0, (40,))


def test_from_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(16)))
    assert ember.UntypedStorage.from_file(str(path), False, 8).tolist() == list(range(8))
    ints = ember.from_file(str(path), size=4, dtype=ember.int32)
    assert ints.tolist() == np.frombuffer(bytes(range(16)), dtype="<i4").tolist() and ints.is_shared()
    assert ember.FloatStorage.from_file(str(path), False, 2).tolist() == pytest.approx(
        struct.unpack("<2f", bytes(range(8))))
    private = ember.from_file(str(path), shared=False, size=4, dtype=ember.int32)
    private[0] = 9
    assert path.read_bytes()[:4] == bytes([0, 1, 2, 3])  # a private mapping leaves the file alone
    shared = ember.from_file(str(path), shared=True, size=4, dtype=ember.int32)
    shared[0] = 7
    assert path.read_bytes()[:4] == struct.pack("<i", 7)
    grown = ember.UntypedStorage.from_file(str(path), True, 32)
    assert grown.nbytes() == 32 and path.stat().st_size == 32
    with pytest.raises(RuntimeError, match=f"^file <{path}> size <32> is smaller than the required mapping size "
                                           "<160>$"):
        ember.from_file(str(path), shared=False, size=40, dtype=ember.int32)
    assert ember.from_file(str(path)).shape == (0,)


def test_from_file_missing_or_bad(tmp_path):
    missing = tmp_path / "nope.bin"
    with pytest.raises(RuntimeError, match=f"^unable to open file <{missing}> in read-only mode: No such file or "
                                           "directory \\(2\\)$"):
        ember.UntypedStorage.from_file(str(missing), False, 10)
    with pytest.raises(RuntimeError, match="unable to open file .* in read-only mode"):
        ember.from_file(str(missing), size=3)
    with pytest.raises(RuntimeError, match="unable to mmap 8 bytes from file .*: No such device"):
        ember.UntypedStorage.from_file(str(tmp_path), False, 8)
    with pytest.raises(RuntimeError, match="size must be non-negative"):
        ember.from_file(str(missing), size=-1)


def test_legacy_constructors_view_a_storage():
    s = ember.FloatStorage([1, 2])
    t = ember.FloatTensor(s)
    assert t.tolist() == [1.0, 2.0] and t.data_ptr() == s.data_ptr()
    assert ember.Tensor(s).tolist() == [1.0, 2.0]
    assert ember.LongTensor(ember.UntypedStorage(16)).shape == (2,)
    with pytest.raises(RuntimeError, match="^Expected a Storage of type Double or an UntypedStorage, but got type "
                                           "Float for argument 1 'storage'$"):
        ember.DoubleTensor(s)
