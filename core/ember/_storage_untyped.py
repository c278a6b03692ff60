"""ember.UntypedStorage: PyTorch 2's byte storage. A storage is held as a uint8 tensor that shares the
C++ storage (any view will do: _C._storage_bytes gives a fresh view of all its bytes, so resizes are
seen); one Python object stands for one C++ storage while it lives, so t.untyped_storage() is
t.untyped_storage() as in PyTorch. Memory moves into POSIX shared memory in place (share_memory_),
so every tensor over the storage sees it, and maps files (from_file)."""
from __future__ import annotations

import operator
import sys
import weakref

from . import _C
from ._tensor_device import NO_ACCELERATOR

__all__ = ["UntypedStorage"]

_wrappers: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # storage key -> UntypedStorage
# The sharing strategy of share_memory_ (set by ember.multiprocessing.set_sharing_strategy).
sharing = {"strategy": "file_descriptor"}
# TypedStorage, set by _storage_typed when it loads (it builds on this module, so no import back).
typed_storage_class: list = [None]
_BYTE_ORDERS = ("big", "little", "native")


def _index(idx, size, cls_name):
    """idx (an int, NumPy integer or integer tensor) as a position in [0, size), or IndexError."""
    if isinstance(idx, bool) or not hasattr(idx, "__index__"):
        raise TypeError(f"can't index a {cls_name} with {type(idx).__name__}")
    i = operator.index(idx)
    if not -size <= i < size:
        raise IndexError(f"index {i} out of range for storage of size {size}")
    return i + size if i < 0 else i


def _storage_repr(storage, type_desc, size, values):
    if storage.device.type == "meta":
        return f"...\n[{type_desc} of size {size}]"
    return " " + "\n ".join(str(v) for v in values) + f"\n[{type_desc} of size {size}]"


class _DtypeConversions:
    """storage.float(), .long(), ...: a copy as a TypedStorage of that dtype (through each class's _to)."""
    __slots__ = ()

    def byte(self):
        return self._to(_C.uint8)

    def char(self):
        return self._to(_C.int8)

    def short(self):
        return self._to(_C.int16)

    def int(self):
        return self._to(_C.int32)

    def long(self):
        return self._to(_C.int64)

    def half(self):
        return self._to(_C.float16)

    def bfloat16(self):
        return self._to(_C.bfloat16)

    def float(self):
        return self._to(_C.float32)

    def double(self):
        return self._to(_C.float64)

    def bool(self):
        return self._to(_C.bool)

    def complex_float(self):
        return self._to(_C.complex64)

    def complex_double(self):
        return self._to(_C.complex128)


class UntypedStorage(_DtypeConversions):
    """A block of bytes on a device that tensors view (PyTorch's torch.UntypedStorage)."""

    __slots__ = ("_handle", "__weakref__")
    is_sparse = False
    is_sparse_csr = False
    is_cuda = False
    is_hpu = False

    def __init__(self, *args, device=None):
        if len(args) == 0:
            data = _C.empty(0, dtype=_C.uint8, device=device)
        elif len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
            if args[0] < 0:
                raise RuntimeError(f"UntypedStorage: the size must not be negative, got {args[0]}")
            data = _C.empty(args[0], dtype=_C.uint8, device=device)
        elif len(args) == 1 and isinstance(args[0], (list, tuple, range)):
            values = [_byte(v) for v in args[0]]
            data = _C.tensor(values, dtype=_C.uint8, device=device) if values else _C.empty(0, dtype=_C.uint8)
        else:
            got = ", ".join(type(a).__name__ for a in args)
            raise TypeError(f"UntypedStorage(): expected no arguments, a size (int) or a sequence of ints, got ({got})")
        self._handle = data
        _wrappers[_C._storage_key(data)] = self

    @classmethod
    def _wrap(cls, tensor):
        """The UntypedStorage of tensor's C++ storage (the same object while it lives)."""
        key = _C._storage_key(tensor)
        found = _wrappers.get(key)
        if found is not None:
            return found
        self = object.__new__(cls)
        self._handle = _C._storage_bytes(tensor)
        _wrappers[key] = self
        return self

    def _bytes(self):
        """A uint8 tensor over all of this storage's bytes, as they are now."""
        return _C._storage_bytes(self._handle)

    # --- size and place -----------------------------------------------------------------------
    def nbytes(self):
        return _C._storage_nbytes(self._handle)

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def device(self):
        return self._handle.device

    def get_device(self):
        return -1 if self.device.type == "cpu" else self.device.index

    def data_ptr(self):
        return _C._storage_data_ptr(self._handle)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "ember.storage.UntypedStorage"
        raise TypeError("UntypedStorage.type(dtype): an untyped storage has no dtype to convert; use "
                        "ember.TypedStorage(wrap_storage=storage, dtype=...) or the byte(), float() ... methods")

    def untyped(self):
        return self

    # --- reading and writing ------------------------------------------------------------------
    def _check_has_data(self):
        if self.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")

    def tolist(self):
        self._check_has_data()
        return self._bytes().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, idx):
        self._check_has_data()
        n = self.nbytes()
        if isinstance(idx, slice):
            start, stop, step = idx.indices(n)
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            return UntypedStorage._wrap(_C._storage_slice(self._handle, start, max(start, stop)))
        return self._bytes()[_index(idx, n, "ember.UntypedStorage")].item()

    def __setitem__(self, idx, value):
        self._check_has_data()
        if not isinstance(idx, slice):
            idx = _index(idx, self.nbytes(), "ember.UntypedStorage")
        self._bytes()[idx] = _byte(value)

    def fill_(self, value):
        self._check_has_data()
        self._bytes().fill_(_byte(value))
        return self

    def copy_(self, src, non_blocking=None):
        src_bytes = src.untyped()._bytes() if hasattr(src, "untyped") else None
        if src_bytes is None:
            raise TypeError(f"copy_(): expected a storage as the source, got {type(src).__name__}")
        if src_bytes.numel() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src was "
                               f"{src_bytes.numel()} bytes")
        self._bytes().copy_(src_bytes)
        return self

    def resize_(self, size):
        _C._storage_resize_(self._handle, operator.index(size))
        return self

    # --- copies and conversions ---------------------------------------------------------------
    def clone(self):
        out = UntypedStorage(self.nbytes(), device=self.device)
        return out.copy_(self)

    def cpu(self):
        return self if self.device.type == "cpu" else UntypedStorage._wrap(self._bytes().cpu())

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        memo = {} if memo is None else memo
        if id(self) not in memo:
            memo[id(self)] = self.clone()
        return memo[id(self)]

    def __reduce__(self):
        if self.device.type == "meta":
            return _rebuild_untyped, (self.nbytes(), "meta")
        data = bytearray(self.nbytes())
        _C._storage_copy_to(self._handle, 0, data)
        return _rebuild_untyped, (bytes(data), str(self.device))

    def __sizeof__(self):
        return object.__sizeof__(self) + self.nbytes()

    def __repr__(self):
        values = () if self.device.type == "meta" else self.tolist()
        return _storage_repr(self, f"ember.storage.UntypedStorage(device={self.device})", self.nbytes(), values)

    __str__ = __repr__

    def _to(self, dtype):
        values = self._bytes().to(dtype)
        return typed_storage_class[0](wrap_storage=UntypedStorage._wrap(values), dtype=dtype, _internal=True)

    # --- shared memory, pinning, files --------------------------------------------------------
    def is_shared(self):
        return _C._storage_is_shared(self._handle)

    def share_memory_(self):
        """Moves the bytes into POSIX shared memory in place (every tensor over this storage sees it);
        the sharing strategy of ember.multiprocessing picks a descriptor or a /dev/shm name."""
        if self.device.type != "cpu":
            raise RuntimeError(f"share_memory_: only available on CPU, not on {self.device.type}")
        _C._storage_share_(self._handle, sharing["strategy"] == "file_system")
        return self

    def is_pinned(self, device="cuda"):
        return False

    def pin_memory(self, device="cuda"):
        """Page-locked memory is for copies to an accelerator; without one PyTorch refuses, as here."""
        raise RuntimeError(NO_ACCELERATOR)

    @classmethod
    def _new_shared(cls, size, *, device=None):
        if device is not None and _C.device(device).type != "cpu":
            raise RuntimeError(f"_new_shared: only available on CPU, not on {device}")
        return cls(size).share_memory_()

    @staticmethod
    def from_file(filename, shared=False, nbytes=0):
        """A storage of nbytes over the file: shared=True writes go to the file (grown to nbytes when
        shorter); otherwise changes stay private and the file must hold nbytes."""
        return UntypedStorage._wrap(_C._storage_map_file(str(filename), bool(shared), operator.index(nbytes)))

    @staticmethod
    def from_buffer(buffer, byte_order="native", count=-1, offset=0, dtype=None):
        """A new storage holding a copy of buffer's values of dtype (read in byte_order), as native bytes."""
        if dtype is None:
            raise RuntimeError("argument 'dtype' cannot be None")
        return UntypedStorage._wrap(_values_from_buffer(buffer, byte_order, count, offset, dtype))


def _byte(value):
    """A value stored in a byte, wrapped modulo 256 as PyTorch's byte storages store it."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        if isinstance(value, float) and value.is_integer():
            return int(value) & 0xFF
        raise TypeError(f"can't assign a {type(value).__name__} to a byte storage")
    return operator.index(value) & 0xFF


def _values_from_buffer(buffer, byte_order, count, offset, dtype):
    """A 1-D tensor of dtype holding a copy of buffer's elements from byte offset (count of them, or all)."""
    if byte_order not in _BYTE_ORDERS:
        raise ValueError(f"invalid byte_order {byte_order!r} (expected 'big', 'little', or 'native')")
    raw = memoryview(buffer).cast("B")
    item = dtype.itemsize
    if offset < 0 or offset > len(raw):
        raise ValueError(f"offset must be non-negative and no greater than buffer length ({len(raw)}), but got "
                         f"{offset}")
    available = len(raw) - offset
    if count < 0:
        if available % item:
            raise ValueError(f"buffer size ({available}) must be a multiple of element size ({item})")
        count = available // item
    if count * item > available:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset}) must not be "
                         f"greater than actual buffer length ({len(raw)})")
    data = _bytes_tensor(raw[offset:offset + count * item])
    if item > 1 and byte_order != "native" and byte_order != sys.byteorder:
        data = data.reshape(count, item).flip(-1).reshape(-1).contiguous()
    return data.view(dtype).clone()


def _rebuild_untyped(data, device):
    """Unpickling an UntypedStorage: its bytes (or, for meta, its size) and device."""
    if isinstance(data, int):
        return UntypedStorage(data, device=device)
    return UntypedStorage._wrap(_bytes_tensor(data))


def _bytes_tensor(buffer):
    """A new uint8 tensor holding a copy of buffer's bytes."""
    out = _C.empty(len(buffer), dtype=_C.uint8)
    _C._storage_copy_from(out, 0, buffer)
    return out

