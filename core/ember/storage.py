"""PyTorch's torch.storage: UntypedStorage (bytes), TypedStorage (bytes read as a dtype), the legacy
FloatStorage ... classes, is_storage, and ember.from_file (a tensor over a memory-mapped file)."""
from __future__ import annotations

import operator

from . import _C
from ._storage_typed import TypedStorage, _LEGACY_CLASSES, legacy_storage_class  # noqa: F401
from ._storage_untyped import UntypedStorage

__all__ = ["UntypedStorage", "TypedStorage", "is_storage", "from_file", *_LEGACY_CLASSES]
globals().update(_LEGACY_CLASSES)

for _cls in (UntypedStorage, TypedStorage):
    _cls.__module__ = __name__


def is_storage(obj):
    """Whether obj is a storage (an UntypedStorage or a TypedStorage)."""
    return type(obj) in (TypedStorage, UntypedStorage)


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False):
    """A 1-D tensor of size elements of dtype over the file, memory-mapped: with shared=True writes go
    to the file (grown to the size needed when shorter); otherwise changes stay private and the file
    must hold the bytes."""
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if device is not None and _C.device(device).type != "cpu":
        raise RuntimeError(f"from_file: only cpu tensors can map a file, not {device}")
    if pin_memory:
        from ._tensor_device import NO_ACCELERATOR
        raise RuntimeError(NO_ACCELERATOR)
    size = operator.index(size)
    if size < 0:
        raise RuntimeError(f"from_file: size must be non-negative, got {size}")
    data = _C._storage_map_file(str(filename), bool(shared), size * dtype.itemsize)
    return _C._storage_view(data, dtype, [size], [1], 0)
