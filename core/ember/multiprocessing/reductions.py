"""How ember.multiprocessing pickles tensors and storages for other processes (registered with
multiprocessing's ForkingPickler, which its queues, pipes and spawned processes' arguments use):
a CPU storage moves into shared memory in place and travels as a duplicated descriptor (the
'file_descriptor' strategy) or a /dev/shm name ('file_system'); the receiver maps the same pages,
so writes on either side are seen by both. A tensor travels as its storage plus its layout.

With 'file_system' the name is unlinked when the sending process's storage dies: keep the tensor
alive in the sender until the receiver has it (the descriptor strategy has no such rule: the
descriptor in flight keeps the memory)."""
from __future__ import annotations

import os
import threading
import weakref
from multiprocessing import reduction

import ember
from ember import _C
from ember._storage_typed import TypedStorage
from ember._storage_untyped import UntypedStorage, sharing

__all__ = ["init_reductions", "reduce_tensor", "reduce_storage", "rebuild_tensor"]


class _SharedCache:
    """Handle (descriptor identity or shared-memory name) -> the storage mapped for it in this process,
    held weakly: receiving one storage twice gives one storage (views of it stay views)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._refs: dict = {}

    def get(self, key):
        with self._lock:
            ref = self._refs.get(key)
        return None if ref is None else ref()

    def put(self, key, storage):
        with self._lock:
            if len(self._refs) > 256:
                self._refs = {k: r for k, r in self._refs.items() if r() is not None}
            self._refs[key] = weakref.ref(storage)


shared_cache = _SharedCache()


def _fd_id(fd):
    st = os.fstat(fd)
    return (st.st_ino, st.st_dev)


# --- storages ---------------------------------------------------------------------------------
def _rebuild_storage_fd(df, nbytes):
    fd = df.detach()
    key = _fd_id(fd)
    found = shared_cache.get(key)
    if found is not None:
        os.close(fd)
        return found
    storage = UntypedStorage._wrap(_C._storage_map_fd(fd, nbytes))  # owns fd from here on
    shared_cache.put(key, storage)
    return storage


def _rebuild_storage_filename(name, nbytes):
    found = shared_cache.get(name)
    if found is not None:
        return found
    storage = UntypedStorage._wrap(_C._storage_map_name(name, nbytes))
    shared_cache.put(name, storage)
    return storage


def _rebuild_storage_empty():
    return UntypedStorage()


def reduce_storage(storage):
    if storage.device.type == "meta":
        raise RuntimeError("Cannot pickle meta storage; try pickling a meta tensor instead")
    if storage.nbytes() == 0:
        return (_rebuild_storage_empty, ())
    storage.share_memory_()
    fd, name = _C._storage_shared_handle(storage._handle)
    if name is not None and (fd < 0 or sharing["strategy"] == "file_system"):
        shared_cache.put(name, storage)
        return (_rebuild_storage_filename, (name, storage.nbytes()))
    if fd < 0:  # a memory-mapped file: no descriptor or name to pass on
        raise RuntimeError("Cannot share a storage mapped from a file with another process; clone() it first")
    shared_cache.put(_fd_id(fd), storage)
    return (_rebuild_storage_fd, (reduction.DupFd(fd), storage.nbytes()))


def _rebuild_typed_storage(untyped, dtype_name):
    return TypedStorage(wrap_storage=untyped, dtype=getattr(_C, dtype_name), _internal=True)


def reduce_typed_storage(storage):
    return (_rebuild_typed_storage, (storage._untyped_storage, repr(storage.dtype).split(".", 1)[1]))


# --- tensors ----------------------------------------------------------------------------------
def rebuild_tensor(cls, storage, metadata):
    dtype_name, storage_offset, size, stride, requires_grad = metadata
    t = ember.empty(0, dtype=getattr(_C, dtype_name)).set_(storage, storage_offset, size, stride)
    if cls is ember.nn.Parameter:
        return ember.nn.Parameter(t, requires_grad=requires_grad)
    t.requires_grad = requires_grad
    return t


def _rebuild_meta_tensor(cls, size, stride, storage_offset, dtype_name, requires_grad):
    t = ember.empty_strided(size, stride, dtype=getattr(_C, dtype_name), device="meta")
    t = t.as_strided(size, stride, storage_offset) if storage_offset else t
    if cls is ember.nn.Parameter:
        return ember.nn.Parameter(t, requires_grad=requires_grad)
    t.requires_grad = requires_grad
    return t


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
                           "not support crossing process boundaries.  If you just want to transfer the data, call "
                           "detach() on the tensor before serializing (e.g., putting it on the queue).")
    dtype_name = repr(tensor.dtype).split(".", 1)[1]
    if tensor.device.type == "meta":
        return (_rebuild_meta_tensor, (type(tensor), tuple(tensor.shape), tensor.stride(), tensor.storage_offset(),
                                       dtype_name, tensor.requires_grad))
    metadata = (dtype_name, tensor.storage_offset(), tuple(tensor.shape), tensor.stride(), tensor.requires_grad)
    return (rebuild_tensor, (type(tensor), tensor.untyped_storage(), metadata))


def init_reductions():
    """Registers the reducers with multiprocessing's ForkingPickler (its dispatch is by exact type)."""
    reduction.register(UntypedStorage, reduce_storage)
    reduction.register(TypedStorage, reduce_typed_storage)
    reduction.register(ember.Tensor, reduce_tensor)
    reduction.register(ember.nn.Parameter, reduce_tensor)
