"""KL divergences between different families (PyTorch's set): closed forms of E_p[log p - log q],
and infinity where p's support is not inside q's."""
import math

import ember

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from ._kl_registry import _inf_where, _infinite_like, _x_log_x, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import euler_constant

_LOG_2PI = math.log(2 * math.pi)

# p's family -> (a parameter with p's batch shape, the q families whose support misses part of p's):
# those KLs are +inf everywhere (PyTorch's set of such pairs).
_OUTSIDE_SUPPORT = {
    Beta: ("concentration1", (Pareto,)),
    ContinuousBernoulli: ("probs", (Pareto,)),
    Exponential: ("rate", (Beta, ContinuousBernoulli, Pareto, Uniform)),
    Gamma: ("concentration", (Beta, ContinuousBernoulli, Pareto, Uniform)),
    Gumbel: ("loc", (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)),
    Laplace: ("loc", (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)),
    Normal: ("loc", (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)),
    Pareto: ("scale", (Beta, ContinuousBernoulli, Uniform)),
    Poisson: ("rate", (Bernoulli, Binomial)),
}


def _infinite_kl(param):
    def kl(p, q):
        return _infinite_like(getattr(p, param))

    return kl


for _type_p, (_param, _types_q) in _OUTSIDE_SUPPORT.items():
    _kl_infinity = _infinite_kl(_param)  # one function per p family, so dispatch sees no ambiguity
    for _type_q in _types_q:
        register_kl(_type_p, _type_q)(_kl_infinity)


# KL(p || q) = -H(p) + H(p, q): where q's cross-entropy needs only p's moments (or its mean and
# support), one function serves every p family PyTorch pairs with q.

def _normal_cross_entropy(q, mean, second_moment):
    """-E_p[log q(x)] for q Normal, from p's first two moments."""
    var = q.scale.pow(2)
    return 0.5 * (_LOG_2PI + var.log()) + (second_moment - 2 * q.loc * mean + q.loc.pow(2)) / (2 * var)


def _kl_by_normal_cross_entropy(p, q):
    return -p.entropy() + _normal_cross_entropy(q, p.mean, p.variance + p.mean.pow(2))


for _type_p in (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Laplace, Uniform):
    register_kl(_type_p, Normal)(_kl_by_normal_cross_entropy)


def _kl_by_exponential_cross_entropy(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


for _type_p in (Beta, ContinuousBernoulli, Gamma):
    register_kl(_type_p, Exponential)(_kl_by_exponential_cross_entropy)


def _continuous_bernoulli_cross_entropy(q, mean):
    """-E_p[log q(x)] for q ContinuousBernoulli, from p's mean."""
    return -mean * q.logits - ember.log1p(-q.probs) - q._cont_bern_log_norm()


def _uniform_cross_entropy(q):
    return (q.high - q.low).log()


def _uniform_mean_log(low, high):
    """E[log x] for x uniform on (low, high), 0 <= low."""
    width = high - low
    return (_x_log_x(high) - _x_log_x(low) - width) / width



@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _continuous_bernoulli_cross_entropy(q, p.mean)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    # E_p[log x] = digamma(a) - digamma(a + b).
    e_log_x = p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    return (-p.entropy() + q.concentration.lgamma() - q.concentration * q.rate.log()
            - (q.concentration - 1) * e_log_x + q.rate * p.mean)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + _uniform_cross_entropy(q)
    return _inf_where((q.low > p.support.lower_bound) | (q.high < p.support.upper_bound), result)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    # PyTorch marks q covering exactly [0, 1] as infinite too (>= / <=); kept for parity.
    result = -p.entropy() + _uniform_cross_entropy(q)
    return _inf_where((q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound), result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return (-q.concentration * ember.log(ratio) + ratio + q.concentration.lgamma() + q.concentration * euler_constant
            - (1 + euler_constant))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = ember.exp(loc_scale_ratio) * scale_rate_prod / (scale_rate_prod + 1)
    return t1 - loc_scale_ratio + t2 + scale_rate_prod.reciprocal()


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (p.concentration - 1) * p.concentration.digamma() - p.concentration.lgamma() - p.concentration
    t2 = beta_scale_prod.log() + p.concentration / beta_scale_prod
    t3 = ember.exp(loc_scale_ratio) * (1 + beta_scale_prod.reciprocal()).pow(-p.concentration) - loc_scale_ratio
    return t1 + t2 + t3


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = ember.exp(-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + _LOG_2PI))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E_p|x - mu_q| is the mean of a folded normal.
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    z = loc_diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * ember.exp(-0.5 * z.pow(2))
    t3 = loc_diff * ember.erf(math.sqrt(0.5) * z)
    return -ember.log(scale_ratio) + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    scale_rate_prod = p.scale * q.rate
    t1 = (p.alpha / scale_rate_prod).log()
    t3 = p.alpha * scale_rate_prod / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, t1 - p.alpha.reciprocal() + t3 - 1)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common_term = p.scale.log() + p.alpha.reciprocal()  # E_p[log x]
    t1 = p.alpha.log() - common_term
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common_term
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, t1 + t2 + t3 + t4 - 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var_normal = 2 * q.scale.pow(2)
    common_term = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common_term.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common_term - q.loc).pow(2)
    return _inf_where(p.alpha <= 2, t1 - p.alpha.reciprocal() + (t3 + t4) / var_normal - 1)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    e_log_x = _uniform_mean_log(p.low, p.high)
    e_log_1mx = _uniform_mean_log(1 - p.high, 1 - p.low)
    log_beta = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = log_beta - (p.high - p.low).log() - (q.concentration1 - 1) * e_log_x - (q.concentration0 - 1) * e_log_1mx
    return _inf_where((p.high > q.support.upper_bound) | (p.low < q.support.lower_bound), result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() + _continuous_bernoulli_cross_entropy(q, p.mean)
    return _inf_where((p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _inf_where(p.low < q.support.lower_bound, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    t1 = (p.high - p.low).log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * _uniform_mean_log(p.low, p.high)
    t4 = q.rate * (p.high + p.low) / 2
    return _inf_where(p.low < q.support.lower_bound, -t1 + t2 + t3 + t4)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common_term * (ember.exp(-high_loc_diff) - ember.exp(-low_loc_diff))
    return t1 - t2


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    t1 = (q.alpha * q.scale.pow(q.alpha) * (p.high - p.low)).log()
    t2 = _uniform_mean_log(p.low, p.high)
    return _inf_where(p.low < q.support.lower_bound, t2 * (q.alpha + 1) - t1)
