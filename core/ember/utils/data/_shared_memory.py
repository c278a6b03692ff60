"""Moving batches from worker processes to the main process through POSIX shared memory.

A worker pickles a batch with a pickler that swaps every ember tensor for a small record
(dtype, shape, offset) and copies the tensor's bytes into one shared-memory block per batch; only
the block's name and the small pickle cross the queue. The main process maps the block and wraps
each tensor zero-copy over the mapping: the NumPy array's base is the mmap object, so the memory
lives exactly as long as some tensor views it. When the last view dies, the main process hands
the name back to its worker, which reuses the block: a fresh tmpfs block costs ~250 us of page
allocation for a 200 kB batch, a recycled one only the copy. Names carry a per-loader prefix;
workers unlink their blocks when they exit and the main process sweeps the prefix at shutdown."""
from __future__ import annotations

import io
import itertools
import mmap
import os
import pickle
import weakref

import numpy as np

import ember

try:  # the POSIX primitives under multiprocessing.shared_memory; no resource tracker involved
    import _posixshmem
except ImportError:  # pragma: no cover - not POSIX
    _posixshmem = None

_SHM_DIR = "/dev/shm"
_ALIGN = 64
_counter = itertools.count()

# ember dtype name <-> NumPy dtype, for the dtypes NumPy can hold; others are pickled by value.
# Filled on first use (ember may still be initializing when this module is imported).
_NUMPY_DTYPES: dict = {}


def _numpy_dtype(dtype):
    if not _NUMPY_DTYPES:
        for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                     "float64", "complex64", "complex128", "uint16", "uint32", "uint64"):
            if hasattr(ember, name):
                _NUMPY_DTYPES[str(getattr(ember, name))] = np.dtype(name)
    return _NUMPY_DTYPES.get(str(dtype))


def available() -> bool:
    return _posixshmem is not None and os.path.isdir(_SHM_DIR)


def new_prefix(loader_id: int) -> str:
    return f"ember_dl_{os.getpid()}_{loader_id}_"


class _Pickler(pickle.Pickler):
    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.arrays = []
        self.size = 0

    def persistent_id(self, obj):
        if type(obj) is not ember.Tensor or obj.requires_grad:
            return None
        np_dtype = _numpy_dtype(obj.dtype)
        if np_dtype is None:
            return None
        arr = obj.detach().contiguous().numpy()
        offset = -(-self.size // _ALIGN) * _ALIGN
        self.size = offset + arr.nbytes
        self.arrays.append((offset, arr))
        return ("t", offset, np_dtype.str, tuple(arr.shape))


class BlockPool:
    """A worker's shared-memory blocks: created on demand, reused once the main process frees them."""

    def __init__(self, prefix: str, worker_id: int) -> None:
        self.prefix = f"{prefix}{worker_id}_{os.getpid()}_"
        self.blocks = {}   # name -> (mmap, size), every block this worker created and still owns
        self.free = []     # names the main process no longer maps

    def release(self, names) -> None:
        self.free.extend(n for n in names if n in self.blocks)

    def _take(self, size: int):
        while self.free:
            name = self.free.pop()
            mm, cap = self.blocks[name]
            if cap >= size:
                return name, mm
            del self.blocks[name]  # too small for today's batches: let it go
            mm.close()
            _unlink(name)
        cap = max(size, 4096)
        name = f"{self.prefix}{next(_counter)}"
        fd = _posixshmem.shm_open("/" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        try:
            os.ftruncate(fd, cap)
            mm = mmap.mmap(fd, cap)
        except BaseException:
            _unlink(name)
            raise
        finally:
            os.close(fd)
        self.blocks[name] = (mm, cap)
        return name, mm

    def pack(self, batch):
        """(block name or None, size, pickle bytes) for `batch`; the block holds its tensors' bytes."""
        buf = io.BytesIO()
        p = _Pickler(buf)
        p.dump(batch)
        if not p.arrays or p.size == 0:
            return None, 0, buf.getvalue()
        name, mm = self._take(p.size)
        try:
            for offset, arr in p.arrays:
                if arr.nbytes:
                    dst = np.ndarray(arr.shape, arr.dtype, buffer=mm, offset=offset)
                    dst[...] = arr
                    del dst
        except BaseException:
            self.free.append(name)
            raise
        return name, p.size, buf.getvalue()

    def close(self) -> None:
        for name, (mm, _) in self.blocks.items():
            mm.close()
            _unlink(name)
        self.blocks.clear()
        self.free.clear()


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, mm):
        super().__init__(file)
        self.mm = mm

    def persistent_load(self, pid):
        _, offset, dtype, shape = pid
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        if count == 0 or self.mm is None:
            arr = np.empty(shape, dtype)
        else:
            arr = np.frombuffer(self.mm, dtype, count, offset).reshape(shape)
        return ember.from_numpy(arr)


def unpack(name, size, payload, on_free=None):
    """The batch a BlockPool packed, its tensors viewing the block; on_free(name) runs once no
    tensor views it any more."""
    mm = None
    if name is not None:
        fd = _posixshmem.shm_open("/" + name, os.O_RDWR, 0o600)
        try:
            mm = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        if on_free is not None:
            weakref.finalize(mm, on_free, name)
    return _Unpickler(io.BytesIO(payload), mm).load()


def discard(name) -> None:
    if name is not None:
        _unlink(name)


def _unlink(name: str) -> None:
    try:
        _posixshmem.shm_unlink("/" + name)
    except FileNotFoundError:
        pass


def sweep(prefix: str) -> None:
    """Unlinks every block whose name starts with `prefix` (ones no message ever announced)."""
    try:
        names = os.listdir(_SHM_DIR)
    except OSError:
        return
    for n in names:
        if n.startswith(prefix):
            _unlink(n)
