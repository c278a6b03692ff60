"""Tensor.real / Tensor.imag: properties giving views of a complex tensor's parts (a real tensor's
.real is the tensor itself); assigning to them writes through the view, as in PyTorch."""
from . import _C


class ComplexMethods:
    @property
    def real(self):
        return _C.real(self)

    @real.setter
    def real(self, value):
        _C.real(self)[...] = value

    @property
    def imag(self):
        return _C.imag(self)

    @imag.setter
    def imag(self, value):
        _C.imag(self)[...] = value
