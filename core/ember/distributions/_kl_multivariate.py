"""KL divergences between the (low-rank) multivariate normals."""
from ._linalg_helpers import batch_mahalanobis, tril_solve
from ._kl_registry import _batch_trace_XXT, register_kl
from .lowrank_multivariate_normal import LowRankMultivariateNormal, _lowrank_logdet, _lowrank_mahalanobis
from .multivariate_normal import MultivariateNormal
from .utils import broadcast_shape, diag_embed


def _check_events(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with different event shapes cannot be computed")


def _half_logdet(L):
    return L.diagonal(0, -2, -1).log().sum(-1)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmvn_lowrankmvn(p, q):
    _check_events(p, q, "Low Rank Multivariate Normals")
    qW, qD, pW, pD = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, p._unbroadcasted_cov_factor, \
        p._unbroadcasted_cov_diag
    term1 = _lowrank_logdet(qW, qD, q._capacitance_tril) - _lowrank_logdet(pW, pD, p._capacitance_tril)
    term3 = _lowrank_mahalanobis(qW, qD, q.loc - p.loc, q._capacitance_tril)
    # trace(Sigma_q^-1 Sigma_p), expanded with Woodbury.
    a = tril_solve(q._capacitance_tril, qW.transpose(-2, -1) / qD.unsqueeze(-2))
    term21 = (pD / qD).sum(-1)
    term22 = _batch_trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(a * pD.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(a.matmul(pW))
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrankmvn(p, q):
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    qW, qD = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    pL = p._unbroadcasted_scale_tril
    term1 = _lowrank_logdet(qW, qD, q._capacitance_tril) - 2 * _half_logdet(pL)
    term3 = _lowrank_mahalanobis(qW, qD, q.loc - p.loc, q._capacitance_tril)
    a = tril_solve(q._capacitance_tril, qW.transpose(-2, -1) / qD.unsqueeze(-2))
    term21 = _batch_trace_XXT(pL * qD.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(a.matmul(pL))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmvn_mvn(p, q):
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    qL = q._unbroadcasted_scale_tril
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = 2 * _half_logdet(qL) - _lowrank_logdet(pW, pD, p._capacitance_tril)
    term3 = batch_mahalanobis(qL, q.loc - p.loc)
    term21 = _batch_trace_XXT(tril_solve(qL, pW))
    term22 = _batch_trace_XXT(tril_solve(qL, diag_embed(pD.sqrt())))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    _check_events(p, q, "Multivariate Normals")
    qL, pL = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    half_term1 = _half_logdet(qL) - _half_logdet(pL)
    n = p.event_shape[0]
    batch = broadcast_shape(qL.shape[:-2], pL.shape[:-2])
    term2 = _batch_trace_XXT(tril_solve(qL.expand(tuple(batch) + (n, n)), pL.expand(tuple(batch) + (n, n))))
    term3 = batch_mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)
