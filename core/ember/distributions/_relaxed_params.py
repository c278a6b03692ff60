"""The parameters RelaxedBernoulli and RelaxedOneHotCategorical show: their base distribution's (the
relaxed draw in logit or log space, which the transform maps onto the support)."""


class RelaxedParams:
    """Mixin (before TransformedDistribution): temperature, logits and probs of base_dist."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
