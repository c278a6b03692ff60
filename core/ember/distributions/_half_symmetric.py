"""The base of HalfNormal and HalfCauchy: |X| for X from a zero-centred symmetric family, as PyTorch
builds them (a TransformedDistribution of the base under AbsTransform). Folding doubles the density
on [0, inf) and maps the cdf to 2 F(x) - 1."""
import math

import ember

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class HalfSymmetric(TransformedDistribution):
    """Subclasses name the symmetric family (`_symmetric`, built as family(0, scale)) and give mean,
    variance and expand."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _symmetric = None

    def __init__(self, scale, validate_args=None):
        base_dist = self._symmetric(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = ember.as_tensor(value, dtype=self.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, log_prob, float("-inf"))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
