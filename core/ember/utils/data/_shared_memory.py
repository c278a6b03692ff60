"""Moving batches from worker processes to the main process through POSIX shared memory.

A worker pickles a batch with a pickler that swaps every ember tensor for a small record
(dtype, shape, offset) and copies the tensor's bytes into one shared-memory block per batch; only
the block's name and the small pickle cross the queue. The main process maps the block, unlinks
its name at once (the mapping outlives the name), and wraps each tensor zero-copy over the mapping:
the NumPy array's base is the mmap object, so the memory lives exactly as long as some tensor
views it. Names carry a per-loader prefix so leftovers (a worker killed mid-batch, a queue
dropped at shutdown) can be swept."""
from __future__ import annotations

import io
import itertools
import mmap
import os
import pickle

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


def pack(batch, prefix: str):
    """(block name or None, size, pickle bytes) for `batch`; the block holds its tensors' bytes."""
    buf = io.BytesIO()
    p = _Pickler(buf)
    p.dump(batch)
    if not p.arrays or p.size == 0:
        return None, 0, buf.getvalue()
    name = f"{prefix}{os.getpid()}_{next(_counter)}"
    fd = _posixshmem.shm_open("/" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    try:
        os.ftruncate(fd, p.size)
        mm = mmap.mmap(fd, p.size)
    except BaseException:
        os.close(fd)
        _unlink(name)
        raise
    os.close(fd)
    try:
        for offset, arr in p.arrays:
            if arr.nbytes:
                dst = np.ndarray(arr.shape, arr.dtype, buffer=mm, offset=offset)
                dst[...] = arr
                del dst
    except BaseException:
        mm.close()
        _unlink(name)
        raise
    mm.close()
    return name, p.size, buf.getvalue()


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


def unpack(name, size, payload):
    """The batch `pack` produced; the block's name is gone once this returns (even on error)."""
    mm = None
    if name is not None:
        try:
            fd = _posixshmem.shm_open("/" + name, os.O_RDWR, 0o600)
            try:
                mm = mmap.mmap(fd, size)
            finally:
                os.close(fd)
        finally:
            _unlink(name)
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
