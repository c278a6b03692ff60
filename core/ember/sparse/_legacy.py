"""PyTorch's legacy sparse constructors, ember.sparse.FloatTensor(indices, values, size) and
FloatTensor(*sizes) (an empty one), for each dtype; isinstance holds for COO tensors of that dtype.
Older graph-network code (pygcn's sparse_mx_to_torch_sparse_tensor) builds its adjacency with them."""
from .. import _C
from ._convert import sparse_coo_tensor
from ._tensor import SparseTensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


class _LegacySparseType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, SparseTensor) and obj.is_sparse and obj.dtype == cls._dtype


def _legacy(name, dtype):
    def new(cls, *args, size=None, device=None):
        if len(args) >= 2 and isinstance(args[0], _C.TensorBase):  # (indices, values[, size])
            return sparse_coo_tensor(args[0], args[1], args[2] if len(args) > 2 else size, device=device)
        if args and all(isinstance(a, int) for a in args):  # (*sizes): no stored entries
            shape = tuple(args)
            return sparse_coo_tensor(_C.zeros((len(shape), 0), dtype=_C.int64), _C.zeros(0, dtype=dtype), shape)
        raise TypeError(f"ember.sparse.{name}: expected (indices, values, size) or sizes")
    doc = f"PyTorch's legacy constructor of sparse COO tensors of {dtype}."
    return _LegacySparseType(name, (), {"__new__": new, "_dtype": dtype, "__doc__": doc, "__module__": "ember.sparse"})


FloatTensor = _legacy("FloatTensor", _C.float32)
DoubleTensor = _legacy("DoubleTensor", _C.float64)
HalfTensor = _legacy("HalfTensor", _C.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", _C.bfloat16)
LongTensor = _legacy("LongTensor", _C.int64)
IntTensor = _legacy("IntTensor", _C.int32)
ShortTensor = _legacy("ShortTensor", _C.int16)
CharTensor = _legacy("CharTensor", _C.int8)
ByteTensor = _legacy("ByteTensor", _C.uint8)
BoolTensor = _legacy("BoolTensor", _C.bool)
