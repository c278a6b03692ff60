"""ember.save / ember.load: objects holding tensors, in a zip archive of one pickle plus one raw record
per storage; loading rebuilds only allow-listed types. The zip container is _serialization_archive.py;
the layout is in save()'s docstring, and how loading differs from PyTorch in load()'s."""
import contextlib
import io
import os
import pickle
import reprlib
import sys
import zipfile

from . import _C
from ._serialization_archive import ArchiveError, ArchiveReader, ArchiveWriter, FORMAT_VERSION
from ._size import Size

__all__ = ["save", "load", "UnpicklingError", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint", "DEFAULT_PROTOCOL", "FORMAT_VERSION"]

DEFAULT_PROTOCOL = 4  # bytes, sets and frozensets as opcodes; frames; objects over 4 GiB
_CHUNK = 1 << 22  # bytes copied between a storage and the file at a time (stays in cache for the CRC)

_DTYPES = {name: getattr(_C, name) for name in (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
    "complex64", "complex128")}
_DTYPE_NAMES = {dt: name for name, dt in _DTYPES.items()}


class UnpicklingError(pickle.UnpicklingError):
    """A file asked for something ember.load does not rebuild (with weights_only=True), or its object
    record is malformed."""


class _Final(Exception):
    """Carries an error with a complete message out of the unpickler, past load()'s rewording."""

    def __init__(self, exc):
        super().__init__(exc)
        self.exc = exc


def _is_map_fn(m):
    return callable(m) and not isinstance(m, (str, _C.device, dict))


# --- saving -------------------------------------------------------------------------------------

class _StorageRef:
    """A storage met while pickling: pickled as a persistent id, its bytes written as one record."""
    __slots__ = ("key", "tensor", "nbytes", "location")

    def __init__(self, key, tensor):
        self.key = key
        self.tensor = tensor  # keeps the storage alive until its bytes are written
        self.nbytes = _C._storage_nbytes(tensor)
        self.location = tensor.device.type


class _Pickler(pickle.Pickler):
    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # storage identity -> _StorageRef, in order of first use

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            return ("storage", obj.key, obj.location, obj.nbytes)
        return None

    def reducer_override(self, obj):
        # The reduce value is memoized against obj, so a tensor met twice loads as one object.
        if isinstance(obj, _C.TensorBase):
            from .nn.parameter import Parameter
            if isinstance(obj, Parameter):  # loads back as a Parameter (its data saved as a tensor)
                return _rebuild_parameter, (obj.detach(), bool(obj.requires_grad))
            return self._reduce_tensor(obj)
        t = type(obj)
        if t is _C.dtype:
            return _rebuild_dtype, (_DTYPE_NAMES[obj],)
        if t is _C.device:
            return _rebuild_device, (str(obj),)
        if t is Size:
            return Size, (tuple(obj),)
        return NotImplemented

    def _reduce_tensor(self, t):
        if t.device.type not in ("cpu", "meta"):
            raise RuntimeError(f"ember.save: can't save a tensor on {t.device}: this build has only cpu and meta")
        ident = _C._storage_key(t)
        ref = self.storages.get(ident)
        if ref is None:
            ref = self.storages[ident] = _StorageRef(str(len(self.storages)), t)
        requires_grad = bool(getattr(t, "requires_grad", False))
        return _rebuild_tensor, (ref, _DTYPE_NAMES[t.dtype], t.storage_offset(), tuple(t.shape), tuple(t.stride()),
                                 requires_grad)


def _copy_storage_out(ref, write):
    """Writes ref's storage bytes through write(), a chunk at a time (no per-element Python)."""
    n = ref.nbytes
    if n == 0:
        return
    buf = memoryview(bytearray(min(n, _CHUNK)))
    for off in range(0, n, _CHUNK):
        chunk = buf[:min(_CHUNK, n - off)]
        _C._storage_copy_to(ref.tensor, off, chunk)
        write(chunk)


@contextlib.contextmanager
def _opened(f, mode, what):
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as fh:
            yield fh
        return
    need = ("write",) if mode == "wb" else ("read", "seek", "tell")
    missing = [m for m in need if not callable(getattr(f, m, None))]
    if missing:
        raise TypeError(f"{what}: f must be a path (str or os.PathLike) or a binary file object with "
                        f"{'/'.join(need)}(), got {type(f).__name__} (no {missing[0]}())")
    if mode == "rb" and callable(getattr(f, "seekable", None)) and not f.seekable():
        raise ValueError(f"{what}: the file object must be seekable (a zip archive is read from its end); "
                         f"read it into an io.BytesIO first")
    yield f


def save(obj, f, pickle_protocol=DEFAULT_PROTOCOL):
    """Saves obj (tensors and containers of them; any picklable object) to f, a path or a writable
    binary file object, as a zip archive:

      archive/data.pkl               the object, pickled; each tensor refers to its storage by key
      archive/ember_format_version   "1"
      archive/byteorder              "little" (the storages' byte order)
      archive/.storage_alignment     "64"
      archive/data/<key>             the raw bytes of each storage (CPU), once however many views use it

    Records are uncompressed and start at multiples of 64 bytes in the file. Views of one storage are
    saved as one storage plus their offsets, sizes and strides, and load back sharing it. Meta tensors
    are saved without data. Tensor subclasses are saved as ember.Tensor.
    """
    if type(pickle_protocol) is not int or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"ember.save: pickle_protocol must be an int from 2 to {pickle.HIGHEST_PROTOCOL}, "
                         f"got {pickle_protocol!r}")
    data = io.BytesIO()
    pickler = _Pickler(data, pickle_protocol)
    pickler.dump(obj)  # before the file is touched: an unpicklable object leaves it alone
    refs = list(pickler.storages.values())
    with _opened(f, "wb", "ember.save") as fh:
        w = ArchiveWriter(fh)
        w.write_record("data.pkl", data.getbuffer())
        w.write_record("ember_format_version", f"{FORMAT_VERSION}\n".encode())
        w.write_record("byteorder", sys.byteorder.encode())
        w.write_record(".storage_alignment", str(w.ALIGN).encode())
        for ref in refs:
            if ref.location == "cpu":
                w.write_stream(f"data/{ref.key}", ref.nbytes, lambda write, ref=ref: _copy_storage_out(ref, write))
        w.close()
        if callable(getattr(fh, "flush", None)):
            fh.flush()


# --- the functions a file may call (the only ones, with weights_only=True) -----------------------

class _LoadedStorage:
    """A storage rebuilt from a file: a flat uint8 tensor over it. Only persistent_load makes these,
    so a crafted pickle cannot hand _rebuild_tensor anything else."""
    __slots__ = ("data", "nbytes", "location")

    def __init__(self, data, nbytes, location):
        self.data, self.nbytes, self.location = data, nbytes, location


def _int_tuple(v, what):
    if type(v) is not tuple or any(type(i) is not int for i in v):
        raise UnpicklingError(f"tensor {what} must be a tuple of ints, got {v!r}")
    return v


def _rebuild_tensor(storage, dtype, storage_offset, size, stride, requires_grad):
    if type(storage) is not _LoadedStorage:
        raise UnpicklingError(f"a tensor's storage must be a storage record of the file, got {type(storage).__name__}")
    if dtype not in _DTYPES:
        raise UnpicklingError(f"unknown tensor dtype {dtype!r}")
    if type(storage_offset) is not int:
        raise UnpicklingError(f"tensor storage offset must be an int, got {storage_offset!r}")
    _int_tuple(size, "size")
    _int_tuple(stride, "stride")
    if len(size) != len(stride):
        raise UnpicklingError(f"tensor size {size} and stride {stride} differ in length")
    if type(requires_grad) is not bool:
        raise UnpicklingError(f"tensor requires_grad must be a bool, got {requires_grad!r}")
    # Bounds (offset, sizes, strides against the storage's bytes) are checked here, in C++.
    t = _C._storage_view(storage.data, _DTYPES[dtype], size, stride, storage_offset)
    if requires_grad:
        if not callable(getattr(t, "requires_grad_", None)):
            raise _Final(RuntimeError("ember.load: the file has a tensor with requires_grad=True, but this build "
                                      "of ember has no autograd"))
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad):
    if not isinstance(data, _C.TensorBase) or type(requires_grad) is not bool:
        raise UnpicklingError("a Parameter record must hold a tensor and a bool")
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_dtype(name):
    if name not in _DTYPES:
        raise UnpicklingError(f"unknown dtype {name!r}")
    return _DTYPES[name]


def _rebuild_device(spec):
    if type(spec) is not str:
        raise UnpicklingError(f"a device must be saved as a str, got {type(spec).__name__}")
    return _C.device(spec)


def _codecs_encode(text, encoding):
    """bytes pickled with protocol 2 (which has no bytes opcode) come as _codecs.encode(str, 'latin1')."""
    if type(text) is not str or encoding != "latin1":
        raise UnpicklingError("_codecs.encode is only allowed as protocol 2's bytes encoding (str, 'latin1')")
    return text.encode("latin1")


def _empty_bytes(*args):
    """Protocol 2 writes b'' as a call of bytes() with no argument (bytes(n) would allocate n bytes)."""
    if args:
        raise UnpicklingError("builtins.bytes is only allowed without arguments (protocol 2's b'')")
    return b""


# Every global a weights-only load may look up: module, name -> object. Anything else is rejected.
_ALLOWED = {
    (__name__, "_rebuild_tensor"): _rebuild_tensor,
    (__name__, "_rebuild_parameter"): _rebuild_parameter,
    (__name__, "_rebuild_dtype"): _rebuild_dtype,
    (__name__, "_rebuild_device"): _rebuild_device,
    (Size.__module__, "Size"): Size,
    ("collections", "OrderedDict"): __import__("collections").OrderedDict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "range"): range,
    ("builtins", "bytes"): _empty_bytes,
    ("_codecs", "encode"): _codecs_encode,
}
# Protocol 2 streams name builtins by their Python 2 module (pickle's fix_imports).
_ALLOWED.update({("__builtin__", name): obj for (module, name), obj in list(_ALLOWED.items()) if module == "builtins"})

_user_safe_globals = {}  # "module.qualname" -> object, from add_safe_globals

# As in PyTorch, nothing from these modules is ever rebuilt, even if allowlisted.
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def _alias_names(module, name):
    """The names a file may use for one global: NumPy 2 moved numpy.core to numpy._core (files from
    NumPy 1 name the old module, and numpy.core still imports as an alias of the new one)."""
    names = [f"{module}.{name}"]
    for old, new in (("numpy.core", "numpy._core"), ("numpy._core", "numpy.core")):
        if module == old or module.startswith(old + "."):
            names.append(f"{new}{module[len(old):]}.{name}")
    return names


def _global_name(entry):
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError(f"a safe global given as a tuple must be (object, 'module.name'), got {entry!r}")
        return entry[1], entry[0]
    module, qualname = getattr(entry, "__module__", None), getattr(entry, "__qualname__", None)
    if not module or not qualname:
        raise TypeError(f"{entry!r} has no __module__/__qualname__: pass it as (object, 'module.name')")
    return f"{module}.{qualname}", entry


def add_safe_globals(safe_globals):
    """Allows these classes/functions (or (object, 'module.name') pairs) to be rebuilt by
    ember.load(weights_only=True) from now on. Only list things whose construction you trust."""
    for entry in safe_globals:
        name, obj = _global_name(entry)
        _user_safe_globals[name] = obj


def get_safe_globals():
    """The globals added by add_safe_globals (as objects, or (object, name) pairs for renamed ones)."""
    return [obj if f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}" == name else (obj, name)
            for name, obj in _user_safe_globals.items()]


def clear_safe_globals():
    _user_safe_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """Within the block, ember.load(weights_only=True) may also rebuild these."""
    saved = dict(_user_safe_globals)
    try:
        add_safe_globals(safe_globals)
        yield
    finally:
        _user_safe_globals.clear()
        _user_safe_globals.update(saved)


# --- loading ------------------------------------------------------------------------------------

class _Loader:
    """Rebuilds storages from the archive's records as the pickle asks for them."""

    def __init__(self, reader, map_location):
        self.reader = reader
        self.map_location = map_location
        self.storages = {}  # key -> _LoadedStorage

    def target(self, location):
        m = self.map_location
        if m is None or _is_map_fn(m):
            return location
        if isinstance(m, dict):
            m = m.get(location, location)
        dev = m if isinstance(m, _C.device) else _C.device(m)
        if dev.type not in ("cpu", "meta"):
            raise RuntimeError(f"ember.load: can't map storages to {dev}: this build of ember has only cpu and meta")
        return dev.type

    def storage(self, pid):
        try:
            return self._storage(pid)
        except (UnpicklingError, ArchiveError, TypeError, RuntimeError) as e:
            raise _Final(e) from None

    def _storage(self, pid):
        if not (type(pid) is tuple and len(pid) == 4 and pid[0] == "storage" and type(pid[1]) is str
                and pid[2] in ("cpu", "meta") and type(pid[3]) is int and pid[3] >= 0):
            raise UnpicklingError(f"malformed storage reference {reprlib.repr(pid)}")
        _, key, location, nbytes = pid
        got = self.storages.get(key)
        if got is not None:
            if (got.nbytes, got.location) != (nbytes, location):
                raise UnpicklingError(f"storage {key!r} is referred to with two different sizes or devices")
            return got
        device = self.target(location)
        if location == "meta":
            if device != "meta":
                raise RuntimeError(f"ember.load: storage {key} was saved on meta and has no data: it can't be "
                                   f"loaded to {device} (load it with map_location='meta')")
            data = _C.empty(nbytes, dtype=_C.uint8, device="meta")
        else:
            record = f"data/{key}"
            self.reader.check_record(record, nbytes)
            if device == "meta":
                data = _C.empty(nbytes, dtype=_C.uint8, device="meta")
            else:
                data = _C.empty(nbytes, dtype=_C.uint8)
                self.reader.read_into(record, nbytes, _CHUNK,
                                      lambda off, chunk: _C._storage_copy_from(data, off, chunk))
            if _is_map_fn(self.map_location):
                data = self.call_map_location(data, location, nbytes)
        loaded = self.storages[key] = _LoadedStorage(data, nbytes, location)
        return loaded

    def call_map_location(self, data, location, nbytes):
        """PyTorch's map_location(storage, location) -> storage, with a flat uint8 tensor standing for the
        storage: returning it (or None) keeps it on the CPU; returning data.to('meta') makes it meta."""
        out = self.map_location(data, location)
        if out is None:
            return data
        if not isinstance(out, _C.TensorBase) or out.dtype != _C.uint8 or tuple(out.shape) != (nbytes,):
            raise TypeError(f"ember.load: map_location(storage, {location!r}) must return None or a uint8 tensor of "
                            f"shape ({nbytes},) (the storage's bytes), got {_describe(out)}")
        if out.device.type not in ("cpu", "meta"):
            raise RuntimeError(f"ember.load: map_location returned a storage on {out.device}")
        if out.device.type == "cpu" and (out.storage_offset() != 0 or _C._storage_nbytes(out) != nbytes
                                         or out.stride() != (1,)):
            out = out.clone()
        return out


def _describe(x):
    if isinstance(x, _C.TensorBase):
        return f"a {x.dtype} tensor of shape {tuple(x.shape)} on {x.device}"
    return type(x).__name__


class _WeightsOnlyUnpickler(pickle.Unpickler):
    def __init__(self, file, loader, source):
        super().__init__(file)
        self._loader = loader
        self._source = source

    def find_class(self, module, name):
        full = f"{module}.{name}"
        if module.split(".")[0] in _BLOCKED_MODULES:
            raise UnpicklingError(f"ember.load: {self._source}: Weights only load failed (weights_only=True). "
                                  f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
        obj = _ALLOWED.get((module, name))
        if obj is None:
            obj = next((_user_safe_globals[n] for n in _alias_names(module, name) if n in _user_safe_globals), None)
        if obj is None:
            raise UnpicklingError(
                f"ember.load: {self._source}: Weights only load failed (weights_only=True). Unsupported global: "
                f"GLOBAL {full} was not an allowed global by default. Please use "
                f"`ember.serialization.add_safe_globals([{full}])` or the `ember.serialization.safe_globals([{full}])` "
                f"context manager to allowlist this global if you trust this class/function. Loading with "
                f"weights_only=False also works, but can run arbitrary code: do it only for a file from a trusted "
                f"source.")
        return obj

    def persistent_load(self, pid):
        return self._loader.storage(pid)


class _FullUnpickler(pickle.Unpickler):
    """weights_only=False: any global (runs whatever the file says; trusted files only)."""

    def __init__(self, file, loader):
        super().__init__(file)
        self._loader = loader

    def find_class(self, module, name):
        obj = _ALLOWED.get((module, name))
        return obj if obj is not None else super().find_class(module, name)

    def persistent_load(self, pid):
        return self._loader.storage(pid)


def load(f, map_location=None, *, weights_only=True):
    """Loads an object saved by ember.save from f, a path or a seekable binary file object.

    weights_only=True (the default; None means True): only tensors, dtypes, devices, ember.Size,
    dict/OrderedDict, list, tuple, set, frozenset, str, bytes, bytearray, int, float, complex, bool,
    None, slice and range are rebuilt, plus what add_safe_globals allowed (never anything from sys, os,
    posix or nt). As in PyTorch 2.13, NumPy objects are not allowed by default: arrays load after
    add_safe_globals([numpy._core.multiarray._reconstruct, numpy.ndarray, numpy.dtype]) (PyTorch also
    asks for the dtype's class, e.g. numpy.dtypes.Float64DType, as it checks what BUILD applies state
    to; ember's unpickler does not); get_unsafe_globals_in_checkpoint(f) lists what a file names that is
    not allowed. Any other global in the file
    (os.system, builtins.eval, a class of yours) raises ember.serialization.UnpicklingError before it is
    called, so an untrusted file cannot run code. weights_only=False unpickles anything, as PyTorch does:
    that runs code the file names, so use it only for files you trust.

    map_location: None keeps each storage where it was saved; 'cpu', 'meta' or an ember.device moves
    all of them; a dict maps saved location names ('cpu', 'meta') to devices; a callable
    f(storage, location) gets each CPU storage as a flat uint8 tensor of its bytes and returns None, that
    tensor, or a copy (e.g. storage.to('meta')). 'meta' skips reading the data. Storages saved on
    meta have no data and load only to meta.

    A file that is not an ember archive (a plain pickle, a PyTorch checkpoint), is truncated or
    corrupt (bad zip, bad CRC, missing or short record), or was written by a newer ember raises
    RuntimeError naming the file and the problem.
    """
    if weights_only is None:
        weights_only = True
    if type(weights_only) is not bool:
        raise TypeError(f"ember.load: weights_only must be a bool, got {type(weights_only).__name__}")
    if not (map_location is None or isinstance(map_location, (str, _C.device, dict)) or callable(map_location)):
        raise TypeError(f"ember.load: map_location must be None, a str, an ember.device, a dict or a callable, "
                        f"got {type(map_location).__name__}")
    if isinstance(map_location, dict):
        for k, v in map_location.items():
            if not isinstance(k, str) or not isinstance(v, (str, _C.device)):
                raise TypeError(f"ember.load: a map_location dict maps location names to devices (str or "
                                f"ember.device), got {k!r}: {v!r}")
    elif isinstance(map_location, (str, _C.device)):
        _Loader(None, map_location).target("cpu")  # an unknown or unavailable device fails before reading
    source = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else f"the {type(f).__name__} file object"
    with _opened(f, "rb", "ember.load") as fh:
        reader = ArchiveReader(fh, source)
        loader = _Loader(reader, map_location)
        data = io.BytesIO(reader.read_record("data.pkl"))
        unpickler = _WeightsOnlyUnpickler(data, loader, source) if weights_only else _FullUnpickler(data, loader)
        err = None
        try:
            result = unpickler.load()
        except _Final as e:
            err = e.exc
        except (UnpicklingError, ArchiveError) as e:
            err = e
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, RuntimeError, IndexError, KeyError,
                AttributeError, OverflowError, zipfile.BadZipFile) as e:
            raise RuntimeError(f"ember.load: {source}: the object record {reader.prefix}/data.pkl is corrupt or "
                               f"inconsistent with the storages: {type(e).__name__}: {e}") from e
        if err is not None:
            if not str(err).startswith("ember.load"):
                err = type(err)(f"ember.load: {source}: {err}")
            raise err
        if data.tell() != len(data.getbuffer()):
            raise RuntimeError(f"ember.load: {source}: {reader.prefix}/data.pkl has trailing bytes after the pickle")
    return result


def get_unsafe_globals_in_checkpoint(f):
    """The globals (as 'module.name') in an ember.save file that ember.load(weights_only=True) would
    refuse now: neither built in nor allowed by add_safe_globals. The file's pickle is scanned, not run."""
    from ._serialization_scan import globals_in_pickle
    source = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else f"the {type(f).__name__} file object"
    with _opened(f, "rb", "ember.serialization.get_unsafe_globals_in_checkpoint") as fh:
        data = ArchiveReader(fh, source).read_record("data.pkl")
    allowed = {f"{m}.{n}" for m, n in _ALLOWED}
    unsafe = []
    for full in sorted(globals_in_pickle(data)):
        module, _, name = full.rpartition(".")
        if full not in allowed and not any(n in _user_safe_globals for n in _alias_names(module, name)):
            unsafe.append(full)
    return unsafe
