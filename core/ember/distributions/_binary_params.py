"""The probs | logits parametrisation of the families over one binary outcome (Bernoulli, Binomial,
NegativeBinomial, Geometric, ContinuousBernoulli, LogitRelaxedBernoulli): exactly one form is given,
the other is computed from it on first use."""
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class ProbsOrLogits:
    """Mixin (before the Distribution base): the lazy logits/probs pair and its set-up and expand."""

    def _set_probs_or_logits(self, probs, logits, **others):
        """Stores the given form broadcast with `others` (e.g. total_count, cast to its dtype) and
        returns the batch shape."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        *rest, param = broadcast_all(*others.values(), given)
        for key, value in zip(others, rest):
            setattr(self, key, value.type_as(param))
        setattr(self, name, param)
        self._param = param
        return param.shape

    def _expand_probs_or_logits(self, cls, batch_shape, _instance, *others):
        new = self._expand_params(cls, batch_shape, _instance, others + ("probs", "logits"))
        new._param = new.logits if "logits" in new.__dict__ else new.probs
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class ShapedProbsOrLogits(ProbsOrLogits):
    """ProbsOrLogits with PyTorch's param_shape (every family here but Geometric has it)."""

    @property
    def param_shape(self):
        return self._param.shape
