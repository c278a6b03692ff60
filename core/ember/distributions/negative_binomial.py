"""NegativeBinomial(total_count, probs | logits): failures before total_count successes."""
import ember
import ember.nn.functional as F

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from ._binary_params import ShapedProbsOrLogits
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(ShapedProbsOrLogits, Distribution):
    """The number of successful Bernoulli(probs) trials before total_count failures (PyTorch's
    convention: probs is the probability of a success, which is counted)."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits, total_count=total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probs_or_logits(NegativeBinomial, batch_shape, _instance, "total_count")

    @property
    def mean(self):
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # A Gamma-Poisson mixture: rate ~ Gamma(total_count, exp(-logits)), then Poisson(rate).
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return ember.poisson(rate.contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (-ember.lgamma(self.total_count + value) + ember.lgamma(1.0 + value)
                             + ember.lgamma(self.total_count))
        # total_count + value == 0 (both 0): the point mass at 0 has log-probability 0.
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
