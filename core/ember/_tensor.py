"""ember.Tensor: the Python class over the C++ TensorBase, adding what reads best in Python."""
from . import _C
from ._size import Size
from ._tensor_autograd import AutogradMethods
from ._tensor_convert import ConversionMethods
from ._tensor_device import DeviceMethods
from ._memory_format import MemoryFormatMethods
from ._legacy_tensor_types import legacy_new
from ._tensor_complex import ComplexMethods
from ._ops_sort import SortMethods
from ._tensor_indexing import IndexingMethods
from ._linalg_legacy import LinalgMethods
from ._ops_math_extra import MathMethods
from ._ops_shape_extra import ShapeMethods
from ._ops_misc import MiscMethods
from ._spectral import SpectralMethods
from ._tensor_pointwise import PointwiseMethods
from ._tensor_protocols import ProtocolMethods
from ._tensor_storage import StorageMethods
from ._tensor_str import tensor_repr
from ._tensor_views import ViewMethods
from .overrides import _set_tensor_class, _tensor_torch_function


class Tensor(
    MemoryFormatMethods,
    AutogradMethods,
    ConversionMethods,
    DeviceMethods,
    ViewMethods,
    ComplexMethods,
    PointwiseMethods,
    ProtocolMethods,
    IndexingMethods,
    SortMethods,
    LinalgMethods,
    ShapeMethods,
    MathMethods,
    MiscMethods,
    StorageMethods,
    SpectralMethods,
    _C.TensorBase,
):
    __array_priority__ = 1000  # NumPy defers to our operators
    # PyTorch's default: ops on a subclass run as on a Tensor and return the subclass
    __torch_function__ = classmethod(_tensor_torch_function)

    def __new__(cls, *args, **kwargs):
        """PyTorch's legacy constructor: Tensor(), Tensor(*sizes), Tensor(data), Tensor(other)."""
        t = legacy_new(None, args, kwargs)
        return t if cls is Tensor else _C._make_subclass(cls, t, t.requires_grad)

    def __repr__(self, *, tensor_contents=None):
        # A subclass is printed under its own name unless it asks to read as a tensor (Parameter).
        return tensor_repr(self, plain=type(self) is Tensor or getattr(type(self), "_repr_as_tensor", False))

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

_C._set_tensor_class(Tensor)
_set_tensor_class(Tensor)
_C._set_size_class(Size)


class ZeroDivisionRuntimeError(ZeroDivisionError, RuntimeError):
    """Integer division by zero: catchable as ZeroDivisionError or (as in PyTorch) RuntimeError."""


_C._set_zero_division_error(ZeroDivisionRuntimeError)


class OutOfMemoryError(RuntimeError, MemoryError):
    """An allocation larger than the memory left (or than any address space): a RuntimeError, as
    PyTorch's CPU allocator raises, and a MemoryError. The message names the op and the bytes."""


_C._set_out_of_memory_error(OutOfMemoryError)
