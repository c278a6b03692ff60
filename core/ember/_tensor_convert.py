"""Tensor methods for dtype/device conversion and NumPy/DLPack interop."""
import builtins

from . import _C

_NUMPY_TYPESTR = {
    "bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4", "int64": "<i8",
    "float16": "<f2", "float32": "<f4", "float64": "<f8", "complex64": "<c8", "complex128": "<c16",
}


def _dtype_name(dt):
    return repr(dt).split(".", 1)[1]


def _parse_to_args(self, args, kwargs):
    """Tensor.to's overloads: to(dtype), to(device, dtype=None), to(tensor), plus keywords."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, (str, _C.device, builtins.int)):
            device = a
        elif isinstance(a, _C.TensorBase):
            dtype, device = a.dtype, a.device
        elif isinstance(a, builtins.bool):
            copy = a
        else:
            raise TypeError(f"to() received an invalid argument of type {type(a).__name__}")
    return dtype, device, copy



class ConversionMethods:
    # --- dtype and device conversion ---
    def to(self, *args, **kwargs):
        dtype, device, copy = _parse_to_args(self, args, dict(kwargs))
        dev = _C.device(device) if isinstance(device, str) else device
        same_dtype = dtype is None or dtype == self.dtype
        same_device = dev is None or dev == self.device or (dev.type == "cpu" and self.device.type == "cpu")
        if same_dtype and same_device and not copy:
            return self
        return _C._to_copy(self, dtype=dtype, device=dev)

    def cpu(self):
        return self.to("cpu")

    # --- NumPy interop (zero-copy) ---
    @property
    def __array_interface__(self):
        name = _dtype_name(self.dtype)
        if name not in _NUMPY_TYPESTR:
            raise TypeError(f"Got unsupported ScalarType {name}: NumPy has no {name} dtype")
        if self.is_meta:
            raise RuntimeError("a meta tensor has no data to view as a NumPy array")
        itemsize = self.element_size()
        return {"shape": tuple(self.shape), "typestr": _NUMPY_TYPESTR[name],
                "data": (self.data_ptr() if self.numel() else 0, False),
                "strides": tuple(s * itemsize for s in self.stride()), "version": 3}

    def numpy(self, *, force=False):
        import numpy as np
        if force:
            t = self.cpu()
            if t.dtype == _C.bfloat16:
                t = t.to(_C.float32)
            return np.asarray(t)
        return np.asarray(self)

    def __array__(self, dtype=None, copy=None):
        import numpy as np
        arr = self.numpy()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return np.array(arr, copy=True) if copy else arr

    def tolist(self):
        t = self.to(_C.float32) if self.dtype in (_C.bfloat16,) else self
        if self.is_meta:
            raise RuntimeError("tolist() of a meta tensor: it has no data")
        out = t.numpy().tolist()
        return out


