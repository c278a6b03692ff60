"""ember.TypedStorage (an UntypedStorage read as one dtype; deprecated in PyTorch 2, which warns once)
and the legacy classes ember.FloatStorage ... BoolStorage: calling one makes a TypedStorage of its
dtype, and isinstance(s, ember.FloatStorage) asks whether s is a float32 cpu TypedStorage."""
from __future__ import annotations

import operator
import warnings

from . import _C
from ._storage_untyped import (UntypedStorage, _DtypeConversions, _index, _storage_repr, _values_from_buffer,
                               typed_storage_class)

__all__ = ["TypedStorage", "LEGACY_STORAGE_DTYPES", "legacy_storage_class"]

_warned = [False]

# The legacy class names and their dtypes, in PyTorch's order.
LEGACY_STORAGE_DTYPES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16", "BFloat16Storage": "bfloat16",
    "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8",
    "ByteStorage": "uint8", "BoolStorage": "bool", "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
}


def warn_typed_storage_removal(stacklevel=2):
    """PyTorch's deprecation warning, given once per process."""
    if not _warned[0]:
        _warned[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=stacklevel + 1)


def _dtype_name(dtype):
    return repr(dtype).split(".", 1)[1]


class TypedStorage(_DtypeConversions):
    """An UntypedStorage whose bytes are read as elements of dtype (PyTorch's torch.TypedStorage)."""

    is_sparse = False
    is_cuda = False

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            warn_typed_storage_removal(stacklevel=2)
        dtype = _C.get_default_dtype() if dtype is None else dtype
        if not isinstance(dtype, _C.dtype):
            raise TypeError(f"TypedStorage(): dtype must be an ember.dtype, not {type(dtype).__name__}")
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError("TypedStorage(): no positional arguments or device may be given with wrap_storage")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"TypedStorage(): wrap_storage must be an UntypedStorage, not "
                                f"{type(wrap_storage).__name__}")
            untyped = wrap_storage
        elif len(args) == 0:
            untyped = UntypedStorage(0, device=device)
        elif len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
            if args[0] < 0:
                raise RuntimeError(f"TypedStorage(): the size must not be negative, got {args[0]}")
            untyped = UntypedStorage(args[0] * dtype.itemsize, device=device)
        elif len(args) == 1 and isinstance(args[0], (list, tuple, range)):
            values = _C.tensor(list(args[0]), dtype=dtype, device=device) if args[0] else \
                _C.empty(0, dtype=dtype, device=device)
            untyped = UntypedStorage._wrap(values)
        else:
            got = ", ".join(type(a).__name__ for a in args)
            raise TypeError(f"TypedStorage(): expected no arguments, a size (int) or a sequence, got ({got})")
        self._untyped_storage = untyped
        self.dtype = dtype

    def _tensor(self):
        """A 1-D tensor of dtype over all this storage's elements."""
        return _C._storage_view(self._untyped_storage._handle, self.dtype, [self._size()], [1], 0)

    def _size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    # --- size and place -----------------------------------------------------------------------
    def size(self):
        warn_typed_storage_removal()
        return self._size()

    def __len__(self):
        return self._size()

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    @property
    def device(self):
        return self._untyped_storage.device

    def get_device(self):
        return self._untyped_storage.get_device()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def untyped(self):
        return self._untyped_storage

    def pickle_storage_type(self):
        return legacy_storage_class(self.dtype).__name__

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "ember." + legacy_storage_class(self.dtype).__name__
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            if name not in LEGACY_STORAGE_DTYPES:
                raise ValueError(f"invalid storage type {dtype!r}")
            dtype = getattr(_C, LEGACY_STORAGE_DTYPES[name])
        elif isinstance(dtype, type) and issubclass(dtype, _LegacyStorage):
            dtype = dtype.dtype
        return self._to(dtype)

    # --- reading and writing ------------------------------------------------------------------
    def tolist(self):
        self._untyped_storage._check_has_data()
        return self._tensor().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if isinstance(idx, bool) or not hasattr(idx, "__index__"):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        self._untyped_storage._check_has_data()
        return self._tensor()[_index(idx, self._size(), type(self).__name__)].item()

    def __setitem__(self, idx, value):
        if not isinstance(idx, slice):
            if isinstance(idx, bool) or not hasattr(idx, "__index__"):
                raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
            idx = _index(idx, self._size(), type(self).__name__)
        self._untyped_storage._check_has_data()
        self._tensor()[idx] = value

    def fill_(self, value):
        self._untyped_storage._check_has_data()
        self._tensor().fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        self._untyped_storage.copy_(source)
        return self

    def resize_(self, size):
        self._untyped_storage.resize_(operator.index(size) * self.dtype.itemsize)

    # --- copies and conversions ---------------------------------------------------------------
    def _to(self, dtype):
        values = self._tensor().to(dtype)
        if values.dtype == self.dtype:
            values = values.clone()
        return TypedStorage(wrap_storage=UntypedStorage._wrap(values), dtype=dtype, _internal=True)

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype, _internal=True)

    def cpu(self):
        return self

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        memo = {} if memo is None else memo
        if id(self) not in memo:
            memo[id(self)] = self.clone()
        return memo[id(self)]

    def __reduce__(self):
        return _rebuild_typed, (self._untyped_storage, _dtype_name(self.dtype))

    def __repr__(self):
        desc = f"ember.storage.TypedStorage(dtype={self.dtype}, device={self.device})"
        values = () if self.device.type == "meta" else self.tolist()
        return _storage_repr(self, desc, self._size(), values)

    __str__ = __repr__

    # --- shared memory, pinning, files --------------------------------------------------------
    def is_shared(self):
        return self._untyped_storage.is_shared()

    def share_memory_(self):
        self._untyped_storage.share_memory_()
        return self

    def _share_memory_(self):
        return self.share_memory_()

    def is_pinned(self, device="cuda"):
        return False

    def pin_memory(self, device="cuda"):
        return self._untyped_storage.pin_memory(device)

    @classmethod
    def _new_shared(cls, size, *, device=None, dtype=None):
        dtype = getattr(cls, "_legacy_dtype", None) or dtype or _C.get_default_dtype()
        untyped = UntypedStorage._new_shared(operator.index(size) * dtype.itemsize, device=device)
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)

    @classmethod
    def from_buffer(cls, buffer, byte_order="native", count=-1, offset=0, dtype=None):
        """A storage holding a copy of buffer's values (read in byte_order)."""
        dtype = getattr(cls, "_legacy_dtype", None) or dtype or _C.get_default_dtype()
        values = _values_from_buffer(buffer, byte_order, count, offset, dtype)
        return TypedStorage(wrap_storage=UntypedStorage._wrap(values), dtype=dtype, _internal=True)

    @classmethod
    def from_file(cls, filename, shared=False, size=0):
        """A storage of size elements over the file (see UntypedStorage.from_file)."""
        dtype = getattr(cls, "_legacy_dtype", None) or _C.get_default_dtype()
        untyped = UntypedStorage.from_file(filename, shared, operator.index(size) * dtype.itemsize)
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)


typed_storage_class[0] = TypedStorage


def _rebuild_typed(untyped, dtype_name):
    return TypedStorage(wrap_storage=untyped, dtype=getattr(_C, dtype_name), _internal=True)


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, instance):
        return type(instance) is TypedStorage and instance.device.type == "cpu" and instance.dtype == cls._legacy_dtype


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """ember.FloatStorage(...) and its kin: TypedStorage's forms with the class's dtype."""

    _legacy_dtype = None

    def __new__(cls, *args, **kwargs):
        if "dtype" in kwargs:
            raise TypeError(f"{cls.__name__}(): got an unexpected keyword argument 'dtype'")
        warn_typed_storage_removal()
        return TypedStorage(*args, dtype=cls._legacy_dtype, _internal=True, **kwargs)


def _make_legacy(name, dtype_name):
    dtype = getattr(_C, dtype_name)
    cls = _LegacyStorageMeta(name, (_LegacyStorage,), {"_legacy_dtype": dtype, "dtype": dtype, "__module__": "ember"})
    return cls


_LEGACY_CLASSES = {name: _make_legacy(name, dt) for name, dt in LEGACY_STORAGE_DTYPES.items()}
_BY_DTYPE = {getattr(_C, dt): _LEGACY_CLASSES[name] for name, dt in LEGACY_STORAGE_DTYPES.items()}
globals().update(_LEGACY_CLASSES)
__all__ += list(_LEGACY_CLASSES)


def legacy_storage_class(dtype):
    """ember.FloatStorage for float32 and so on (Tensor.storage_type)."""
    try:
        return _BY_DTYPE[dtype]
    except KeyError:
        raise RuntimeError(f"no legacy storage class for dtype {dtype}") from None
