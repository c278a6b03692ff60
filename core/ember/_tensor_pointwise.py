"""Tensor methods of pointwise ops whose method form does not put self first in the function's
signature: self.where(condition, other) is ember.where(condition, self, other)."""
from . import _C


class PointwiseMethods:
    def where(self, condition, other):
        return _C.where(condition, self, other)
