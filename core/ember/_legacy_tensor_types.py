"""PyTorch's legacy tensor types and constructors: ember.FloatTensor ... BoolTensor and the forms of
ember.Tensor(...) (sizes, data, another tensor, nothing). The typed classes are not Tensor
subclasses (as in PyTorch): they make plain ember.Tensors, and isinstance(t, ember.FloatTensor) asks
whether t is a float32 cpu tensor."""
import builtins
import numbers
import warnings

from . import _C
from ._size import Size
from ._storage_typed import TypedStorage
from ._storage_untyped import UntypedStorage
from ._tensor_storage import _scalar_name

# type name -> the dtype attribute of _C; the order is PyTorch's.
_LEGACY_DTYPES = {
    "DoubleTensor": "float64", "FloatTensor": "float32", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
    "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
    "ByteTensor": "uint8", "BoolTensor": "bool",
}

# How PyTorch's TensorOptions name each dtype (its C++ type), for the dtype-mismatch message.
_CPP_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}

_FORMS = (" * (*, ember.device device = None)\n * (Tensor other)\n"
          " * (tuple of ints size, *, ember.device device = None)\n * (object data, *, ember.device device = None)\n")


def _dtype_name(dt):
    return repr(dt).split(".", 1)[1]


def _arg_type_name(a):
    if isinstance(a, _C.TensorBase):
        return "Tensor"
    if isinstance(a, (Size, _C.dtype, _C.device)):
        return "ember." + type(a).__name__
    return type(a).__name__


def _invalid_combination(args, kwargs):
    got = ", ".join([_arg_type_name(a) for a in args] + [f"{k}={_arg_type_name(v)}" for k, v in kwargs.items()])
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _FORMS)


def _options(dtype, device):
    return (f"TensorOptions(dtype={_CPP_NAMES[_dtype_name(dtype)]}, device={device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _is_int(a):
    return isinstance(a, numbers.Integral) and not isinstance(a, builtins.bool)  # NumPy's integers too


def _is_sequence(a):
    return isinstance(a, (list, tuple, range)) or any(c.__name__ == "ndarray" for c in type(a).__mro__)


def legacy_new(dtype, args, kwargs):
    """A tensor by PyTorch's legacy constructor rules. dtype None: the default dtype, and a tensor
    argument of any dtype is aliased (ember.Tensor); else the dtype a typed class stands for."""
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    if "size" in kwargs and not args:
        args = (kwargs.pop("size"),) if isinstance(kwargs["size"], Size) else tuple(kwargs.pop("size"))
    elif "data" in kwargs and not args:
        args = (kwargs.pop("data"),)
    elif "other" in kwargs and not args:
        args = (kwargs.pop("other"),)
    if kwargs:
        raise _invalid_combination(args, kwargs)
    if device is not None:
        dev = _C.device(device) if not isinstance(device, _C.device) else device
        if dev.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {dev.type} was passed")
    target = _C.get_default_dtype() if dtype is None else dtype
    if not args:
        return _C.empty(0, dtype=target)
    if len(args) == 1 and isinstance(args[0], (TypedStorage, UntypedStorage)):
        storage = args[0]  # the tensor views all of it (PyTorch's Tensor(storage))
        if isinstance(storage, TypedStorage) and storage.dtype != target:
            raise RuntimeError(f"Expected a Storage of type {_scalar_name(target)} or an UntypedStorage, but got type "
                               f"{_scalar_name(storage.dtype)} for argument 1 'storage'")
        return _C.empty(0, dtype=target).set_(storage.untyped())
    if len(args) == 1 and isinstance(args[0], _C.TensorBase):
        other = args[0]
        if device is not None:
            raise RuntimeError("Legacy tensor constructor of the form ember.Tensor(tensor, device=device) is not "
                               "supported.  Use ember.tensor(...) or ember.as_tensor(...) instead.")
        if dtype is not None and (other.dtype != dtype or other.device.type != "cpu"):
            raise TypeError(f"expected {_options(dtype, 'cpu')} (got {_options(other.dtype, other.device.type)})")
        return other.view_as(other)  # shares other's memory, and its history (PyTorch's alias)
    if len(args) == 1 and isinstance(args[0], Size):
        return _C.empty(tuple(args[0]), dtype=target)
    if all(_is_int(a) for a in args):
        return _C.empty(tuple(builtins.int(a) for a in args), dtype=target)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, str):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if not _is_sequence(data):
            name = type(data).__name__
            if type(data).__module__ == "numpy":
                name = "numpy." + name
            raise TypeError(f"new(): data must be a sequence (got {name})")
        return _C.tensor(list(data) if isinstance(data, range) else data, dtype=target)
    if _is_int(args[0]):
        bad = next(i for i, a in enumerate(args) if not _is_int(a))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {bad + 1} with error "
                        f"\"type must be tuple of ints,but got {_arg_type_name(args[bad])}\"")
    raise _invalid_combination(args, {})


class _LegacyTensorType(type):
    """The metaclass of ember.FloatTensor and its kin: calling one constructs, isinstance checks dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.TensorBase) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls.dtype, args, kwargs)

    def __repr__(cls):
        return f"<class 'ember.{cls.__name__}'>"


def _make_type(name, dtype_attr):
    return _LegacyTensorType(name, (), {
        "__module__": "ember", "__qualname__": name, "dtype": getattr(_C, dtype_attr), "is_cuda": False,
        "is_sparse": False, "__doc__": f"PyTorch's legacy type for {dtype_attr} tensors on the cpu."})


LEGACY_TYPES = {name: _make_type(name, attr) for name, attr in _LEGACY_DTYPES.items()}
globals().update(LEGACY_TYPES)
__all__ = [*LEGACY_TYPES, "set_default_tensor_type"]


def set_default_tensor_type(t, /):
    """Deprecated in PyTorch 2.1: sets the default floating dtype from a floating legacy type or its name."""
    warnings.warn("ember.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "ember.set_default_dtype() and ember.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if isinstance(t, str):
        short = t.rpartition(".")[2]
        if t.rpartition(".")[0] not in ("ember", "torch") or short not in LEGACY_TYPES:
            raise TypeError(f"invalid type: '{t}'")
        t = LEGACY_TYPES[short]
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C.set_default_dtype(t.dtype)
