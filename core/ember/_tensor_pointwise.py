"""Tensor methods of pointwise ops whose method form does not put self first in the function's
signature (self.where(condition, other) is ember.where(condition, self, other)), and zero_."""
from . import _C


class PointwiseMethods:
    def where(self, condition, other):
        return _C.where(condition, self, other)

    def zero_(self):
        """Sets every element to 0 in place (fill_(0)) and returns self."""
        return self.fill_(0)
