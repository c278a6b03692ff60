"""out= for functions written in Python: PyTorch's cast rule and message, then out resized and filled."""
from . import _C

_TITLES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
           "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
           "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def write_out(out, result):
    """result copied into out (resized to its shape); out is returned."""
    if not _C.can_cast(result.dtype, out.dtype):
        names = [_TITLES.get(str(d).split(".")[-1], str(d)) for d in (result.dtype, out.dtype)]
        raise RuntimeError(f"result type {names[0]} can't be cast to the desired output type {names[1]}")
    return out.resize_(list(result.shape)).copy_(result)
