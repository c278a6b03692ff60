"""Tensor.real / Tensor.imag: properties giving views of a complex tensor's parts (a real tensor's
.real is the tensor itself); assigning to them writes through the view, as in PyTorch. Also
PyTorch's conjugate/negative-bit queries: ember's conj is eager (a new tensor, never a lazy view), so no
tensor carries either bit and resolving one returns the tensor itself."""
from . import _C


def _assign_part(part, value):
    """t.real = v / t.imag = v as PyTorch: part.copy_(v), so v must broadcast to the part's shape
    exactly (no dims added or dropped); a number fills it; anything else is a TypeError."""
    if isinstance(value, _C.TensorBase):
        part.copy_(value)
    elif isinstance(value, (bool, int, float, complex)) or hasattr(value, "__index__") or hasattr(value, "__float__"):
        part.fill_(value)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a {part.type()}")


class ComplexMethods:
    @property
    def real(self):
        return _C.real(self)

    @real.setter
    def real(self, value):
        _assign_part(_C.real(self), value)

    @property
    def imag(self):
        return _C.imag(self)

    @imag.setter
    def imag(self, value):
        _assign_part(_C.imag(self), value)

    def is_conj(self):
        return False

    def is_neg(self):
        return False

    def resolve_conj(self):
        return self

    def resolve_neg(self):
        return self
