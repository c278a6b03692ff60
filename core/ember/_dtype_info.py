"""ember.finfo / ember.iinfo: the numeric limits of floating and integer dtypes (PyTorch's API),
plus the small dtype predicates is_floating_point, is_complex and is_nonzero."""
import builtins

from . import _C

# bits, eps, max, smallest normal, resolution (10**-digits)
_FLOAT_LIMITS = {
    "float16": (16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001),
    "bfloat16": (16, 0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01),
    "float32": (32, 1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06),
    "float64": (64, 2.220446049250313e-16, 1.7976931348623157e+308, 2.2250738585072014e-308, 1e-15),
}
_COMPLEX_PART = {"complex64": "float32", "complex128": "float64"}
_INT_LIMITS = {"uint8": (8, 0, 255), "int8": (8, -128, 127), "int16": (16, -32768, 32767),
               "int32": (32, -2**31, 2**31 - 1), "int64": (64, -2**63, 2**63 - 1)}


def _name(dtype):
    return repr(dtype).split(".", 1)[1]


# PyTorch's C++ names of scalar types, as its messages print them ("expected scalar type Float").
_SCALAR_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble", "complex32": "ComplexHalf",
}


def scalar_type_name(dtype):
    """PyTorch's C++ name of a dtype (ember.float32 -> 'Float')."""
    name = _name(dtype)
    return _SCALAR_TYPE_NAMES.get(name, name)


class finfo:
    """Limits of a floating dtype (a complex dtype gives those of its parts); the default float
    dtype when none is given. Attributes: bits, eps, max, min, tiny, smallest_normal, resolution, dtype."""

    def __init__(self, type=None):
        if type is None:
            type = _C.get_default_dtype()
        if not isinstance(type, _C.dtype):
            raise TypeError(f"finfo(): argument 'type' must be an ember.dtype, not {builtins.type(type).__name__}")
        name = _COMPLEX_PART.get(_name(type), _name(type))
        if name not in _FLOAT_LIMITS:
            raise TypeError(f"ember.finfo() requires a floating point input type, got {_name(type)}. "
                            f"Use ember.iinfo for integer types")
        self.bits, self.eps, self.max, self.smallest_normal, self.resolution = _FLOAT_LIMITS[name]
        self.min = -self.max
        self.tiny = self.smallest_normal
        self.dtype = name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype. Attributes: bits, min, max, dtype."""

    def __init__(self, type):
        if not isinstance(type, _C.dtype):
            raise TypeError(f"iinfo(): argument 'type' must be an ember.dtype, not {builtins.type(type).__name__}")
        if _name(type) not in _INT_LIMITS:
            raise TypeError(f"ember.iinfo() requires an integer input type, got {_name(type)}. "
                            f"Use ember.finfo for floating point types")
        self.bits, self.min, self.max = _INT_LIMITS[_name(type)]
        self.dtype = _name(type)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def is_nonzero(input):
    """bool(input) for a one-element tensor; an error for any other number of elements."""
    n = input.numel()
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if n == 0 else
                           "Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item())
