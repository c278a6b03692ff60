"""Tensor methods over a tensor's storage: untyped_storage/storage (PyTorch 2's storage classes),
storage_type, set_ (view another storage or tensor's memory), share_memory_ and is_shared."""
from __future__ import annotations

import operator

from . import _C
from ._storage_typed import TypedStorage, legacy_storage_class, warn_typed_storage_removal
from ._storage_untyped import UntypedStorage
from ._dtype_info import scalar_type_name

_SET_FORMS = (" * ()\n * (ember.Storage source)\n"
              " * (ember.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n"
              " * (Tensor source)\n"
              " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n")


_scalar_name = scalar_type_name  # PyTorch's scalar type names in set_'s storage-type message


def _invalid_set(args):
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"set_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _SET_FORMS)


class StorageMethods:
    def untyped_storage(self):
        """The UntypedStorage under this tensor (shared with every view of it)."""
        return UntypedStorage._wrap(self)

    def _typed_storage(self):
        return TypedStorage(wrap_storage=UntypedStorage._wrap(self), dtype=self.dtype, _internal=True)

    def storage(self):
        """The TypedStorage under this tensor (deprecated in PyTorch 2, which warns once)."""
        warn_typed_storage_removal(stacklevel=2)
        return self._typed_storage()

    def storage_type(self):
        return legacy_storage_class(self.dtype)

    def is_shared(self):
        """Whether the storage is in shared memory (or a memory-mapped file), as PyTorch counts it."""
        return _C._storage_is_shared(self)

    def share_memory_(self):
        """Moves the storage into shared memory in place (no-op when it is already there); every view of it
        sees the moved memory, and ember.multiprocessing sends it to other processes without a copy."""
        UntypedStorage._wrap(self).share_memory_()
        return self

    def set_(self, *args, **kwargs):
        """Makes self view source's memory: set_() an empty storage, set_(storage) all of it, set_(tensor) the
        tensor's view, or set_(source, storage_offset, size, stride=None) that layout (the storage grows when
        the layout reaches past its end and it may)."""
        names = ("source", "storage_offset", "size", "stride")
        for k in kwargs:
            if k not in names:
                raise TypeError(f"set_() got an unexpected keyword argument '{k}'")
        full = list(args) + [None] * (4 - len(args)) if len(args) <= 4 else None
        if full is None:
            raise _invalid_set(args)
        for i, k in enumerate(names):
            if k in kwargs:
                if args[i:i + 1]:
                    raise TypeError(f"set_() got multiple values for argument '{k}'")
                full[i] = kwargs[k]
        source, offset, size, stride = full
        if self.requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if source is None:
            if offset is not None or size is not None or stride is not None:
                raise _invalid_set(args)
            _C._set_storage_(self, _C.empty(0, dtype=_C.uint8, device=self.device), 0, [0], None)
            return self
        if isinstance(source, TypedStorage):
            if source.dtype != self.dtype:
                raise RuntimeError(f"Expected a Storage of type {_scalar_name(self.dtype).lower()} or an "
                                   f"UntypedStorage, but got type {_scalar_name(source.dtype)} for argument 1 "
                                   f"'storage'")
            source = source._untyped_storage
        if isinstance(source, UntypedStorage):
            holder, whole = source._handle, source.nbytes() // self.element_size()
            default = (0, [whole], None)
        elif isinstance(source, _C.TensorBase):
            if source.dtype != self.dtype:
                raise RuntimeError(f"Could not set tensor of type {self.dtype} to a tensor of type {source.dtype}")
            holder = source
            default = (source.storage_offset(), list(source.shape), list(source.stride()))
        else:
            raise _invalid_set(args)
        if holder.device != self.device:
            raise RuntimeError(f"Attempted to set the storage of a tensor on device \"{self.device}\" to a storage "
                               f"on different device \"{holder.device}\".  This is no longer allowed; the devices "
                               f"must match.")
        if offset is None and size is None and stride is None:
            offset, size, stride = default
        elif offset is None or size is None:
            raise _invalid_set(args)
        offset = operator.index(offset)
        _C._set_storage_(self, holder, offset, list(size), None if stride is None else list(stride))
        return self
