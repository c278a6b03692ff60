"""Tensor methods for dtype/device conversion (to, type, float(), ...), new_* factories, and
NumPy/DLPack interop (zero-copy both ways)."""
import builtins

from . import _C
from ._memory_format import _check_optional, preserve_format, to_alias_or_copy

_NUMPY_TYPESTR = {
    "bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4", "int64": "<i8",
    "float16": "<f2", "float32": "<f4", "float64": "<f8", "complex64": "<c8", "complex128": "<c16",
}

# Tensor.type() names, as PyTorch's legacy tensor types ('torch.FloatTensor' -> 'ember.FloatTensor').
_TYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
    "uint8": "ByteTensor", "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
    "complex128": "ComplexDoubleTensor",
}
_TYPE_BY_NAME = {v: k for k, v in _TYPE_NAMES.items()}

_KDL_CPU = 1  # DLPack's device type code for CPU memory


def _dtype_name(dt):
    return repr(dt).split(".", 1)[1]


def _parse_to_args(self, args, kwargs):
    """Tensor.to's overloads: to(dtype), to(device, dtype=None), to(tensor), plus keywords."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = _check_optional("to", kwargs.pop("memory_format", preserve_format))
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, (str, _C.device, builtins.int)) and not isinstance(a, builtins.bool):
            device = a
        elif isinstance(a, _C.TensorBase):
            dtype, device = a.dtype, a.device
        elif isinstance(a, builtins.bool):
            copy = a
        else:
            raise TypeError(f"to() received an invalid argument of type {type(a).__name__}")
    return dtype, device, copy, fmt


def _type_from_name(name):
    """(dtype, device) of a type name: 'ember.FloatTensor', 'ember.cuda.FloatTensor' (torch. too)."""
    prefix, _, short = name.rpartition(".")
    package, _, device = prefix.partition(".")
    if package not in ("ember", "torch") or device not in ("", "cuda", "meta") or short not in _TYPE_BY_NAME:
        raise ValueError(f"invalid type: '{name}' (expected e.g. 'ember.FloatTensor' or an ember.dtype)")
    return getattr(_C, _TYPE_BY_NAME[short]), device or None


def _type_from_class(cls):
    """(dtype, device) of ember.Tensor (the default dtype), ember.FloatTensor and its kin; other
    classes are looked up by their dotted name, which PyTorch refuses as an invalid type."""
    if issubclass(cls, _C.TensorBase):
        return _C.get_default_dtype(), None
    if isinstance(getattr(cls, "dtype", None), _C.dtype) and cls.__module__ == "ember":
        return cls.dtype, None
    return _type_from_name(cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}")


class _ArrayView:
    """What NumPy wraps for Tensor.numpy(): the interface dict, keeping the tensor (so its memory) alive."""
    __slots__ = ("tensor", "__array_interface__")

    def __init__(self, tensor, interface):
        self.tensor = tensor
        self.__array_interface__ = interface


def _size_args(size, kw_size, what):
    if kw_size is not None:
        if size:
            raise TypeError(f"{what}() got multiple values for argument 'size'")
        return (kw_size,)
    return size


class ConversionMethods:
    # --- dtype and device conversion ---
    def to(self, *args, **kwargs):
        dtype, device, copy, fmt = _parse_to_args(self, args, dict(kwargs))
        dev = _C.device(device) if isinstance(device, (str, builtins.int)) else device
        if fmt is not preserve_format:
            return to_alias_or_copy(self, dtype, dev, copy, fmt)
        same_dtype = dtype is None or dtype == self.dtype
        same_device = dev is None or dev == self.device or (dev.type == "cpu" and self.device.type == "cpu")
        if same_dtype and same_device and not copy:
            return self
        return _C._to_copy(self, dtype=dtype, device=dev)

    def cpu(self):
        return self.to("cpu")

    def get_device(self):
        """The CUDA device index, or -1 for a CPU tensor (PyTorch's convention)."""
        return -1 if self.device.type == "cpu" or self.device.index is None else self.device.index

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """No argument: the type name ('ember.FloatTensor'); else this tensor converted to `dtype`
        (an ember.dtype or a type name), itself when it already has that dtype."""
        if dtype is None:
            device = "" if self.device.type == "cpu" else self.device.type + "."
            return f"ember.{device}{_TYPE_NAMES[_dtype_name(self.dtype)]}"
        device = None
        if isinstance(dtype, str):
            dtype, device = _type_from_name(dtype)
        elif isinstance(dtype, type):
            dtype, device = _type_from_class(dtype)
        if not isinstance(dtype, _C.dtype):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype) if device is None else self.to(device, dtype)

    def type_as(self, other):
        if not isinstance(other, _C.TensorBase):
            raise TypeError(f"type_as(): argument 'other' must be Tensor, not {type(other).__name__}")
        return self.to(other.dtype)

    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    def long(self):
        return self.to(_C.int64)

    def int(self):
        return self.to(_C.int32)

    def short(self):
        return self.to(_C.int16)

    def char(self):
        return self.to(_C.int8)

    def byte(self):
        return self.to(_C.uint8)

    def bool(self):
        return self.to(_C.bool)

    def cfloat(self):
        return self.to(_C.complex64)

    def cdouble(self):
        return self.to(_C.complex128)

    # --- new tensors like this one (its dtype and device unless given) ---
    def _new_kwargs(self, dtype, device, requires_grad):
        return {"dtype": self.dtype if dtype is None else dtype,
                "device": self.device if device is None else device, "requires_grad": requires_grad}

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        size = _size_args(size, kw.pop("size", None), "new_empty")
        _no_extra(kw, "new_empty")
        return _C.empty(*size, **self._new_kwargs(dtype, device, requires_grad))

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        size = _size_args(size, kw.pop("size", None), "new_zeros")
        _no_extra(kw, "new_zeros")
        return _C.zeros(*size, **self._new_kwargs(dtype, device, requires_grad))

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        size = _size_args(size, kw.pop("size", None), "new_ones")
        _no_extra(kw, "new_ones")
        return _C.ones(*size, **self._new_kwargs(dtype, device, requires_grad))

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        return _C.full(size, fill_value, **self._new_kwargs(dtype, device, requires_grad))

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        return _C.tensor(data, **self._new_kwargs(dtype, device, requires_grad))

    # --- NumPy interop (zero-copy) ---
    @property
    def __array_interface__(self):
        name = _dtype_name(self.dtype)
        if self.is_meta:
            raise TypeError("can't convert a meta tensor to NumPy: it has no data")
        if name not in _NUMPY_TYPESTR:
            raise TypeError(f"Got unsupported ScalarType {name}: NumPy has no {name} dtype "
                            f"(convert first, e.g. t.float().numpy())")
        if self.device.type != "cpu":
            raise TypeError(f"can't convert {self.device.type} tensor to numpy: copy it to the CPU first with .cpu()")
        itemsize = self.element_size()
        return {"shape": tuple(self.shape), "typestr": _NUMPY_TYPESTR[name],
                "data": (self.data_ptr() if self.numel() else 0, False),
                "strides": tuple(s * itemsize for s in self.stride()), "version": 3}

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (writes show through both ways).
        force=True copies to the CPU first and widens bfloat16 (which NumPy lacks) to float32."""
        import numpy as np
        t = self
        if force:
            t = self.cpu()
            if t.dtype == _C.bfloat16:
                t = t.to(_C.float32)
        return np.asarray(_ArrayView(t, t.__array_interface__))

    def __array__(self, dtype=None, copy=None):
        import numpy as np
        arr = self.numpy()
        if dtype is not None and arr.dtype != np.dtype(dtype):
            if copy is False:
                raise ValueError(f"Unable to avoid a copy converting a {_dtype_name(self.dtype)} tensor "
                                 f"to a NumPy array of dtype {np.dtype(dtype)}")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def tolist(self):
        """The elements as (nested lists of) Python bool/int/float/complex; a 0-dim tensor gives the number."""
        return _C._tolist(self)

    # --- DLPack ---
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing this tensor (or a copy of it with copy=True). CPU only: `stream`
        must be None; `dl_device`, when given, must be this tensor's (kDLCPU, 0). copy=False never
        copies (nothing here needs one)."""
        if self.is_meta:
            raise BufferError("a meta tensor has no data to export through DLPack")
        if stream is not None and stream != -1:
            raise BufferError(f"stream must be None for a CPU tensor, got {stream!r}")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"can't export a {self.device.type} tensor to DLPack device {tuple(dl_device)}: "
                              f"only {self.__dlpack_device__()} (CPU) is possible")
        t = self.to(self.dtype, copy=True) if copy else self
        # A consumer that reads DLPack 1.x gets a versioned capsule (which NumPy imports writable);
        # older consumers get the unversioned one.
        versioned = max_version is not None and max_version[0] >= 1
        return _C._to_dlpack(t, versioned, builtins.bool(copy))

    def __dlpack_device__(self):
        if self.device.type != "cpu":
            raise BufferError(f"a {self.device.type} tensor has no DLPack device (it holds no data here)")
        return (_KDL_CPU, 0)


def _no_extra(kw, what):
    if kw:
        raise TypeError(f"{what}() got an unexpected keyword argument '{next(iter(kw))}'")
