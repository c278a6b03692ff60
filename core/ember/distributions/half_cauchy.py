"""HalfCauchy(scale): |X| for X ~ Cauchy(0, scale)."""
import math

import ember

from ._half_symmetric import HalfSymmetric
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(HalfSymmetric):
    """The absolute value of a zero-centered Cauchy variable."""
    _symmetric = Cauchy

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return ember.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
