"""Script versions of ember.nn.functional's losses (see _builtins_nn.py for why): the same formulas over the
same ops as the eager functions in ember/nn/_functional_loss.py and _functional_margin_loss.py, with the
deprecated size_average / reduce arguments mapped to reduction as there."""
from __future__ import annotations

import math
from typing import Optional

import ember
import ember.nn.functional as F
from ember import Tensor

from ._ops import aten


def _legacy(size_average: Optional[bool], reduce: Optional[bool], reduction: str) -> str:
    if size_average is None and reduce is None:
        return reduction
    avg = True if size_average is None else size_average
    red = True if reduce is None else reduce
    if not red:
        return "none"
    return "mean" if avg else "sum"


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _code(reduction: str) -> int:
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _is_float(t: Tensor) -> bool:
    d = t.dtype
    return d == ember.float32 or d == ember.float64 or d == ember.float16 or d == ember.bfloat16


def _weighted(loss: Tensor, input: Tensor, weight: Optional[Tensor], reduction: str) -> Tensor:
    if weight is None:
        return _reduce(loss, reduction)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def mse_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
             reduction: str = "mean", weight: Optional[Tensor] = None):
    return _weighted((input - target) ** 2, input, weight, _legacy(size_average, reduce, reduction))


def l1_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
            reduction: str = "mean", weight: Optional[Tensor] = None):
    return _weighted((input - target).abs(), input, weight, _legacy(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                   reduction: str = "mean", beta: float = 1.0):
    reduction = _legacy(size_average, reduce, reduction)
    if not beta >= 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = (input - target).abs()
    if beta == 0.0:
        return _reduce(d, reduction)
    return _reduce(ember.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight: Optional[Tensor] = None):
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = (input - target).abs()
    loss = ember.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        loss = loss * weight
    return _reduce(loss, reduction)


def nll_loss(input, target, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
             ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = "mean"):
    code = _code(_legacy(size_average, reduce, reduction))
    out, _ = aten._nll_loss(input, target.to(ember.int64), weight, code, ignore_index)
    return out


def cross_entropy(input, target, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                  ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = "mean",
                  label_smoothing: float = 0.0):
    """log_softmax over the class dim, then nll_loss (class indices) or the sum against class probabilities,
    with label smoothing as the eager function computes it."""
    reduction = _legacy(size_average, reduce, reduction)
    if label_smoothing < 0.0 or label_smoothing > 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.dim() < 1:
        raise ValueError("cross_entropy: expected input with at least 1 dimension (the classes), got a 0-D tensor")
    cdim = 1 if input.dim() >= 2 else 0
    logp = input.log_softmax(cdim)
    c = input.size(cdim)
    wshape = [c]
    for _ in range(input.dim() - cdim - 1):
        wshape.append(1)
    if _is_float(target):
        if target.shape != input.shape:
            raise ValueError(f"cross_entropy: probability targets must have the input's shape {input.shape}, "
                             f"got {target.shape}")
        t = target
        if label_smoothing > 0.0:
            t = target * (1.0 - label_smoothing) + label_smoothing / c
        prod = logp * t
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -prod.sum(cdim)
        if reduction == "mean":
            return loss.sum() / (input.numel() // c if c > 0 else 0)
        return _reduce(loss, reduction)
    idx = target.to(ember.int64)
    nll = nll_loss(logp, idx, weight, None, ignore_index, None, reduction)
    if label_smoothing == 0.0:
        return nll
    valid = idx != ignore_index
    if weight is not None:
        smooth = -(logp * weight.reshape(wshape)).sum(cdim)
    else:
        smooth = -logp.sum(cdim)
    smooth = ember.where(valid, smooth, ember.zeros_like(smooth))
    if reduction == "mean":
        if weight is not None:
            t = ember.where(valid, idx, ember.zeros_like(idx))
            smooth = smooth.sum() / (weight.index_select(0, t.reshape([-1])).reshape(t.shape) *
                                     valid.to(weight.dtype)).sum()
        else:
            smooth = smooth.sum() / valid.sum()
    else:
        smooth = _reduce(smooth, reduction)
    return (1.0 - label_smoothing) * nll + smooth * (label_smoothing / c)


def binary_cross_entropy(input, target, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None, reduction: str = "mean"):
    code = _code(_legacy(size_average, reduce, reduction))
    if input.shape != target.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    return aten._binary_cross_entropy(input, target, weight, code)


def binary_cross_entropy_with_logits(input, target, weight: Optional[Tensor] = None,
                                     size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                                     reduction: str = "mean", pos_weight: Optional[Tensor] = None):
    reduction = _legacy(size_average, reduce, reduction)
    if input.shape != target.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    log_sig_neg = F.logsigmoid(-input)
    log_sig = F.logsigmoid(input)
    if pos_weight is not None:
        loss = -(pos_weight * target * log_sig + (1 - target) * log_sig_neg)
    else:
        loss = -(target * log_sig + (1 - target) * log_sig_neg)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
           reduction: str = "mean", log_target: bool = False):
    reduction = _legacy(size_average, reduce, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = ember.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.size(0) if input.dim() > 0 else 1)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                     reduction: str = "mean"):
    return _reduce(F.softplus(-target * input), _legacy(size_average, reduce, reduction))


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, size_average: Optional[bool] = None,
                     eps: float = 1e-8, reduce: Optional[bool] = None, reduction: str = "mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t1 = target.clamp_min(1)
        stirling = target * t1.log() - target + 0.5 * (2 * math.pi * t1).log()
        loss = loss + ember.where(target > 1, stirling, ember.zeros_like(stirling))
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, size_average: Optional[bool] = None,
                        reduce: Optional[bool] = None, reduction: str = "mean"):
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), _legacy(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None, reduction: str = "mean"):
    zeros = ember.zeros_like(input)
    pos = ember.where(target == 1, input, zeros)
    neg = ember.where(target == -1, (margin - input).clamp_min(0), zeros)
    return _reduce(pos + neg, _legacy(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                                reduce: Optional[bool] = None, reduction: str = "mean"):
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(-1), _legacy(size_average, reduce, reduction))


def multilabel_margin_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                           reduction: str = "mean"):
    """sum over target classes j (up to the first negative entry) and non-target classes i of
    max(0, 1 - (x[j] - x[i])) / C, as an (N, C, C) hinge table (the eager function sorts instead)."""
    reduction = _legacy(size_average, reduce, reduction)
    if target.dtype != ember.int64:
        raise RuntimeError(f"multilabel_margin_loss: expected scalar type Long but found {target.dtype} for target")
    if input.dim() > 2 or (input.dim() > 0 and input.size(-1) == 0):
        raise RuntimeError(f"multilabel_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {input.shape}")
    if target.shape != input.shape:
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {target.shape} for input of "
                           f"size: {input.shape}")
    x = input.reshape([1, -1]) if input.dim() < 2 else input
    y = target.reshape([1, -1]) if target.dim() < 2 else target
    c = x.size(1)
    if y.numel() > 0 and bool((y < -1).logical_or(y >= c).any()):
        raise RuntimeError("multilabel_margin_loss: argument #2 'target' is out of range: its labels must be in "
                           f"[0, {c}) for {c} classes")
    labelled = (y >= 0).to(ember.int64).cumprod(1) > 0
    label = ember.where(labelled, y, ember.zeros_like(y))
    is_target = ember.zeros_like(y).scatter_add(1, label, labelled.to(ember.int64)) > 0
    xj = x.gather(1, label)  # (N, C): the target classes' scores, one per labelled slot
    hinge = (1.0 - (xj.unsqueeze(2) - x.unsqueeze(1))).clamp_min(0)  # (N, slot j, class i)
    use = labelled.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1))
    loss = (hinge * use.to(hinge.dtype)).sum([1, 2]) / c
    return _reduce(loss.reshape([]) if input.dim() < 2 else loss, reduction)


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None,
                      size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if input.dim() > 2 or (input.dim() > 0 and input.size(-1) == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{input.shape}")
    x = input.reshape([1, -1]) if input.dim() < 2 else input
    n, c = x.size(0), x.size(1)
    y = target.reshape([-1])
    if target.dim() > 1 or y.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {target.shape}. Input has "
                           f"shape {input.shape}.")
    if y.numel() > 0 and (int(y.min()) < 0 or int(y.max()) >= c):
        raise IndexError(f"multi_margin_loss: target out of range for {c} classes")
    xy = x.gather(1, y.unsqueeze(1))
    h = (margin - xy + x).relu()
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight.index_select(0, y).unsqueeze(1)
    h = h.scatter(1, y.unsqueeze(1), 0.0)
    loss = h.sum(1) / c
    return _reduce(loss.squeeze(0) if input.dim() < 2 else loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average: Optional[bool] = None,
                          reduce: Optional[bool] = None, reduction: str = "mean"):
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = target.dim() + 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{target.dim()}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{input1.shape} and {input2.shape}.")
    eps = 1e-12
    dim = input1.dim() - 1
    cos = (input1 * input2).sum(dim) / ((input1 * input1).sum(dim) + eps).sqrt() / \
        ((input2 * input2).sum(dim) + eps).sqrt()
    zeros = ember.zeros_like(cos)
    loss = ember.where(target == 1, 1 - cos, zeros) + ember.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def _distance(x1: Tensor, x2: Tensor, p: float, eps: float) -> Tensor:
    d = x1 - x2 + eps
    if d.dim() == 0:
        return d.abs()
    return ember.norm(d, p, [-1], False)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                        reduction: str = "mean"):
    if anchor.dim() != positive.dim() or anchor.dim() != negative.dim():
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    dp = _distance(anchor, positive, p, eps)
    dn = _distance(anchor, negative, p, eps)
    if swap:
        dn = ember.minimum(dn, _distance(positive, negative, p, eps))
    return _reduce((dp - dn + margin).clamp_min(0), _legacy(size_average, reduce, reduction))


NAMES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
         "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss", "poisson_nll_loss", "margin_ranking_loss",
         "hinge_embedding_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss",
         "cosine_embedding_loss", "triplet_margin_loss"]
