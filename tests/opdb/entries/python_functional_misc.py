"""OpInfos of the other top-level functional forms (ember.selu, ember.pdist, ember.kl_div with its integer reduction,
... in core/ember/_functional_toplevel.py) against NumPy/SciPy references written here."""
import numpy as np
import scipy.spatial.distance as ssd
import scipy.special

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo

_REDUCE = {0: lambda v: v, 1: np.mean, 2: np.sum}  # PyTorch's reduction enum: none, mean, sum
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _r(rng, *shape):
    return rng.uniform(-1, 1, shape)


def _signs(rng, *shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def _norm(v, p, axis=-1):
    return np.sum(np.abs(v) ** p, axis) ** (1 / p)


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    out = _norm(x1 - x2 + eps, p)
    return out[..., None] if keepdim else out


def _cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return (x1 * x2).sum(dim) / np.maximum(np.sqrt((x1 * x1).sum(dim) * (x2 * x2).sum(dim)), eps)


def _pixel_shuffle(x, r):
    n, c, h, w = x.shape
    return x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // (r * r), h * r, w * r)


def _pixel_unshuffle(x, r):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(n, c * r * r, h // r, w // r)


def _channel_shuffle(x, groups):
    n, c = x.shape[:2]
    return x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


def _cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.ndim == 2:
        return ssd.cdist(x1, x2, "minkowski", p=p)
    return np.stack([_cdist(a, b, p) for a, b in zip(x1, x2)])


def _constant_pad_nd(x, pad, value=0):
    pairs = [(0, 0)] * (x.ndim - len(pad) // 2) + [(pad[i], pad[i + 1]) for i in range(len(pad) - 2, -1, -2)]
    return np.pad(x, pairs, constant_values=value)


def _bce_with_logits(x, y, weight=None, pos_weight=None, reduction=1):
    pw = 1.0 if pos_weight is None else pos_weight
    loss = -(pw * y * np.log(scipy.special.expit(x)) + (1 - y) * np.log(scipy.special.expit(-x)))
    return _REDUCE[reduction](loss if weight is None else loss * weight)


def _cosine_embedding_loss(x1, x2, y, margin=0.0, reduction=1):
    cos = _cosine_similarity(x1, x2, dim=-1, eps=1e-12)
    return _REDUCE[reduction](np.where(y > 0, 1 - cos, np.maximum(0, cos - margin)))


def _kl_div(x, y, reduction=1, log_target=False):
    loss = np.exp(y) * (y - x) if log_target else y * (np.log(y) - x)
    return _REDUCE[reduction](loss)


def _poisson_nll_loss(x, y, log_input, full, eps, reduction):
    loss = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
    if full:
        stirling = y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y)
        loss = loss + np.where(y > 1, stirling, 0.0)
    return _REDUCE[reduction](loss)


def _triplet(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=1):
    d_ap, d_an = _pairwise_distance(anchor, positive, p, eps), _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_an = np.minimum(d_an, _pairwise_distance(positive, negative, p, eps))
    return _REDUCE[reduction](np.maximum(d_ap - d_an + margin, 0))


def _embedding_renorm(w, idx, max_norm, norm_type):
    out = w.copy()
    for row in np.unique(idx):
        n = _norm(w[row], norm_type)
        if n > max_norm:
            out[row] = w[row] * (max_norm / (n + 1e-7))
    return out


def _rrelu_eval(x, lower=1 / 8, upper=1 / 3, training=False):
    return np.where(x >= 0, x, x * (lower + upper) / 2)


def _loss_samples(make):
    def samples(dtype, rng):
        return [Sample(make(rng), {"reduction": r}) for r in (0, 1, 2)]
    return samples


register(
    python_opinfo("selu", lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x)),
                  lambda dtype, rng: [Sample((_r(rng, 3, 4) * 3,))]),
    python_opinfo("selu_", lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x)),
                  lambda dtype, rng: [Sample((_r(rng, 3, 4) * 3,))], grad=False),
    # rrelu outside training is leaky_relu with the mean slope; in training its slopes are random
    python_opinfo("rrelu", _rrelu_eval,
                  lambda dtype, rng: [Sample((_r(rng, 3, 4),)), Sample((_r(rng, 5), 0.1, 0.5))]),
    python_opinfo("rrelu_", _rrelu_eval,
                  lambda dtype, rng: [Sample((_r(rng, 3, 4),)), Sample((_r(rng, 5), 0.1, 0.5))], grad=False),
    python_opinfo("rsub", lambda x, y, alpha=1: y - alpha * x,
                  lambda dtype, rng: [Sample((_r(rng, 3, 4), _r(rng, 4))), Sample((_r(rng, 3), 2.5), {"alpha": 2})]),
    python_opinfo("constant_pad_nd", _constant_pad_nd, lambda dtype, rng: [
        Sample((_r(rng, 2, 3), (1, 2))), Sample((_r(rng, 2, 3, 2), (0, 1, 2, 0), 1.5))]),
    python_opinfo("channel_shuffle", _channel_shuffle, lambda dtype, rng: [
        Sample((_r(rng, 2, 6, 2, 2), 3)), Sample((_r(rng, 1, 4, 3), 2))], grad=False),
    python_opinfo("pixel_shuffle", _pixel_shuffle, lambda dtype, rng: [Sample((_r(rng, 2, 8, 2, 3), 2))]),
    python_opinfo("pixel_unshuffle", _pixel_unshuffle, lambda dtype, rng: [Sample((_r(rng, 2, 2, 4, 6), 2))]),
    python_opinfo("prelu", lambda x, w: np.where(x >= 0, x, x * w.reshape((-1,) + (1,) * (x.ndim - 2))),
                  lambda dtype, rng: [Sample((_r(rng, 2, 3, 4), rng.uniform(0.1, 0.5, 3))),
                                      Sample((_r(rng, 2, 3), rng.uniform(0.1, 0.5, 1)))]),
    python_opinfo("bilinear", lambda x1, x2, w, b=None: np.einsum("ni,oij,nj->no", x1, w, x2) + (0 if b is None else b),
                  lambda dtype, rng: [Sample((_r(rng, 4, 3), _r(rng, 4, 2), _r(rng, 5, 3, 2), _r(rng, 5))),
                                      Sample((_r(rng, 2, 3), _r(rng, 2, 3), _r(rng, 2, 3, 3)))]),
    python_opinfo("cosine_similarity", _cosine_similarity, lambda dtype, rng: [
        Sample((_r(rng, 3, 4), _r(rng, 3, 4))), Sample((_r(rng, 2, 3), _r(rng, 2, 3), 0))]),
    python_opinfo("pairwise_distance", _pairwise_distance, lambda dtype, rng: [
        Sample((_r(rng, 3, 4), _r(rng, 3, 4))), Sample((_r(rng, 3, 4), _r(rng, 3, 4), 1.0, 1e-6, True))]),
    python_opinfo("pdist", lambda x, p=2: ssd.pdist(x, "minkowski", p=p), lambda dtype, rng: [
        Sample((_r(rng, 5, 3),)), Sample((_r(rng, 4, 2), 1.0)), Sample((_r(rng, 4, 3), 3.0))]),
    python_opinfo("cdist", _cdist, lambda dtype, rng: [
        Sample((_r(rng, 4, 3), _r(rng, 5, 3))), Sample((_r(rng, 2, 3, 2), _r(rng, 2, 4, 2), 1.0))]),
    python_opinfo("embedding_renorm_", _embedding_renorm, lambda dtype, rng: [
        Sample((_r(rng, 5, 3) * 2, ember.tensor([0, 2, 2]), 1.0, 2.0)),
        Sample((_r(rng, 4, 3) * 2, ember.tensor([[1, 3]]), 0.5, 1.0))], grad=False),
    python_opinfo("binary_cross_entropy_with_logits", _bce_with_logits, lambda dtype, rng: [
        Sample((_r(rng, 3, 4) * 3, rng.uniform(0, 1, (3, 4))), {"reduction": r}) for r in (0, 1, 2)] + [
        Sample((_r(rng, 3, 4) * 3, rng.uniform(0, 1, (3, 4)), rng.uniform(0.5, 2, 4), rng.uniform(0.5, 2, 4)))]),
    python_opinfo("cosine_embedding_loss", _cosine_embedding_loss,
                  _loss_samples(lambda rng: (_r(rng, 4, 3), _r(rng, 4, 3), _signs(rng, 4), 0.2))),
    python_opinfo("hinge_embedding_loss", lambda x, y, margin=1.0, reduction=1: _REDUCE[reduction](
        np.where(y > 0, x, np.maximum(0, margin - x))),
                  _loss_samples(lambda rng: (_r(rng, 3, 4) * 2, _signs(rng, 3, 4)))),
    python_opinfo("kl_div", _kl_div, lambda dtype, rng: [
        Sample((np.log(rng.uniform(0.1, 1, (3, 4))), rng.uniform(0.1, 1, (3, 4))), {"reduction": r}) for r in (0, 1, 2)]
                  + [Sample((_r(rng, 3, 4), _r(rng, 3, 4)), {"log_target": True})]),
    python_opinfo("margin_ranking_loss", lambda x1, x2, y, margin=0.0, reduction=1: _REDUCE[reduction](
        np.maximum(0, -y * (x1 - x2) + margin)),
                  _loss_samples(lambda rng: (_r(rng, 5), _r(rng, 5), _signs(rng, 5), 0.1))),
    python_opinfo("poisson_nll_loss", _poisson_nll_loss, lambda dtype, rng: [
        Sample((_r(rng, 3, 4), rng.uniform(0, 3, (3, 4)), True, False, 1e-8, 1)),
        Sample((rng.uniform(0.1, 2, (3, 4)), rng.uniform(0.5, 3, (3, 4)), False, True, 1e-8, 0)),
        Sample((_r(rng, 5), rng.uniform(1.5, 3, 5), True, True, 1e-8, 2))]),
    python_opinfo("triplet_margin_loss", _triplet, lambda dtype, rng: [
        Sample((_r(rng, 4, 3), _r(rng, 4, 3), _r(rng, 4, 3)), kw) for kw in (
            {}, {"margin": 0.5, "p": 1, "swap": True}, {"reduction": 0}, {"reduction": 2})]),
)
