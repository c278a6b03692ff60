"""LKJCholesky(dim, concentration): Cholesky factors of LKJ-distributed correlation matrices."""
import math

import ember

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, diag_embed

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The lower Cholesky factor L of a correlation matrix with density proportional to
    det(L L^T)^(concentration - 1), sampled by the onion method (Lewandowski, Kurowicka and Joe, 2009)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.shape
        event_shape = ember.Size((dim, dim))
        # Row i's squared norm of its off-diagonal part is Beta(i/2, c + (dim - 2 - i)/2) (onion method).
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = ember.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = ember.cat([ember.zeros((1,), dtype=offset.dtype), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = ember.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        return self._finish_expand(LKJCholesky, new, batch_shape)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = ember.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype).tril(-1)
            norms = u_normal.norm(dim=-1, keepdim=True)
            # Row 0 has no off-diagonal part (its norm is 0): it stays 0.
            u_hypersphere = ember.where(norms > 0, u_normal / ember.where(norms > 0, norms, ember.ones_like(norms)),
                                        ember.zeros_like(u_normal))
            w = ember.sqrt(y) * u_hypersphere
            tiny = ember.finfo(w.dtype).tiny
            diag_elems = ember.clamp(1 - ember.sum(w ** 2, dim=-1), min=tiny).sqrt()
            return w + diag_embed(diag_elems)

    def log_prob(self, value):
        # log p(L) = sum_i (dim - i + 2 (c - 1)) log L_ii - log normalizer, i = 2..dim (Stan's form).
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(0, -1, -2)[..., 1:]
        order = ember.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = ember.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = ember.lgamma(alpha) * dm1
        numerator = ember.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
