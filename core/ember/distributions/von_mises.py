"""VonMises(loc, concentration): the circular normal on [-pi, pi)."""
import math

import ember

from . import constraints
from ._centered import CenteredAtLoc
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["VonMises"]


def _log_i0(x):
    # log I0(x) = log(i0e(x)) + x, without overflow for large x.
    return ember.special.i0e(x).log() + x


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's (1979) wrapped-Cauchy envelope, every element redrawn until accepted."""
    done = ember.zeros(tuple(x.shape), dtype=ember.bool)
    while not bool(done.all()):
        u = ember.rand((3,) + tuple(x.shape), dtype=loc.dtype)
        u1, u2, u3 = u.unbind()
        z = ember.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        take = accept & ~done
        if bool(take.any()):
            x = ember.where(take, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc).remainder(2 * math.pi) - math.pi


class VonMises(CenteredAtLoc, Distribution):
    """Density exp(k cos(x - loc)) / (2 pi I0(k)); mean and variance are the circular ones."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        super().__init__(self._broadcast_params(loc=loc, concentration=concentration), ember.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * ember.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_i0(self.concentration)

    @lazy_property
    def _proposal_r(self):
        kappa = self.concentration.double()
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        r = (1 + rho ** 2) / (2 * rho)
        # Second-order Taylor expansion around 0 for tiny kappa (the formula above cancels there).
        return ember.where(kappa < 1e-5, 1 / kappa + kappa, r)

    def sample(self, sample_shape=ember.Size()):
        """Rejection sampling in float64 whatever the dtype (single precision stalls for tiny concentrations)."""
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            loc = self.loc.double().expand(shape)
            conc = self.concentration.double().expand(shape)
            r = self._proposal_r.expand(shape)
            x = ember.zeros(tuple(shape), dtype=ember.float64)
            return _rejection_sample(loc, conc, r, x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(VonMises, batch_shape, _instance, ("loc", "concentration"))

    @property
    def variance(self):
        k = self.concentration
        return 1 - ember.special.i1e(k) / ember.special.i0e(k)
