"""ember.nn.functional's margin and embedding losses (re-exported there): margin ranking, hinge
embedding, multilabel (soft) margin, multi margin, cosine embedding and triplet margin."""
from __future__ import annotations

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import check_same_dtype, tensor_args
from ._functional_distance import pairwise_distance
from ._reduction import _legacy_reduction, _reduce

__all__ = [
    "margin_ranking_loss", "hinge_embedding_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss",
    "multi_margin_loss", "cosine_embedding_loss", "triplet_margin_loss"
]


@tensor_args("input1", "input2", "target", numbers=("margin",))
@autocast_policy("fp32")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -y (x1 - x2) + margin)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {list(input1.shape)}, input2: {list(input2.shape)}, target: {list(target.shape)} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@tensor_args("input", "target", numbers=("margin",))
@autocast_policy("fp32")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where y = 1, max(0, margin - x) where y = -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not input.is_floating_point() and reduction == "mean":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {input.dtype}")
    zeros = _C.zeros_like(input)
    pos = _C.where(target == 1, input, zeros)
    neg = _C.where(target == -1, (margin - input).clamp_min(0), zeros)
    return _reduce(pos + neg, reduction)


@tensor_args("input", "target", optional=("weight",))
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-mean over classes of y log sigmoid(x) + (1 - y) log sigmoid(-x)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * _C._nn.logsigmoid(input) + (1 - target) * _C._nn.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(-1), reduction)


@tensor_args("input", "target")
@autocast_policy("fp32")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j (target's entries up to the first negative one) and non-target
    classes i of max(0, 1 - (x[j] - x[i])) / C; O(C log C) per row (a sort), never O(C^2)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if target.dtype != _C.int64:
        raise RuntimeError(f"multilabel_margin_loss: expected scalar type Long but found {target.dtype} for target")
    if input.dim() > 2 or (input.dim() and input.shape[-1] == 0):
        raise RuntimeError(f"multilabel_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    y = target.reshape(1, -1) if target.dim() < 2 else target
    n, c = x.shape
    # a row's labels are its entries before the first negative one
    labelled = (y >= 0).to(_C.int64).cumprod(1).to(_C.bool)
    if n * c and ((y < -1) | (y >= c)).any().item():  # every entry, even past the first -1, as PyTorch
        raise RuntimeError("multilabel_margin_loss: argument #2 'target' is out of range: its labels must be in "
                           f"[0, {c}) for {c} classes")
    label = _C.where(labelled, y, _C.zeros_like(y))
    is_target = _C.zeros([n, c], dtype=_C.int64).scatter_add(1, label, labelled.to(_C.int64)) > 0
    # sum over non-targets i of max(0, x[i] - t) with t = x[j] - 1: non-target values sorted
    # ascending, targets replaced by a value below every t; then suffix sums past searchsorted(t)
    acc = _C.float64 if x.dtype in (_C.float32, _C.float16, _C.bfloat16) else x.dtype  # long sums cancel
    xa = x.to(acc)
    floor = xa.detach().amin(1, keepdim=True) - 2
    others = _C.where(is_target, floor.expand(n, c), xa).sort(1)[0]
    suffix = _C.cat([others.flip([1]).cumsum(1).flip([1]), _C.zeros([n, 1], dtype=acc)], 1)  # (n, c + 1)
    t = xa.gather(1, label) - 1
    k = _C.searchsorted(others.detach().contiguous(), t.detach().contiguous(), right=True)
    hinge = suffix.gather(1, k) - (c - k).to(acc) * t
    per_row = (hinge * labelled.to(acc)).sum(1) / c
    loss = per_row.to(x.dtype)
    if reduction == "mean" and n == 0:
        return loss.sum()  # PyTorch's mean over no samples is 0
    return _reduce(loss.reshape([]) if input.dim() < 2 else loss, reduction)


@tensor_args("input", "target", optional=("weight",), numbers=("p", "margin"))
@autocast_policy("fp32")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i])^p / C (times weight[y])."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if input.dim() > 2 or (input.dim() and input.shape[-1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"multi_margin_loss\" not implemented for {input.dtype}")
    if target.dtype != _C.int64:
        raise RuntimeError(f"multi_margin_loss: expected scalar type Long but found {target.dtype} for target")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n, c = x.shape
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. Input has "
                           f"shape {list(input.shape)}.")
    if weight is not None:
        if weight.dim() > 1:
            raise ValueError("weight must be one-dimensional")
        if weight.numel() != c:
            raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
        check_same_dtype("multi_margin_loss", input, weight=weight)
    y = target.reshape(-1)
    if y.numel() != n:
        raise RuntimeError(f"multi_margin_loss: expected {n} targets, got {y.numel()}")
    if y.numel() and (y.min().item() < 0 or y.max().item() >= c):
        raise IndexError(f"multi_margin_loss: target out of range for {c} classes")
    xy = x.gather(1, y.unsqueeze(1))
    h = _C.relu(margin - xy + x)  # gradient 0 at the kink, as PyTorch's (z > 0)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight[y].unsqueeze(1)
    h = h.scatter(1, y.unsqueeze(1), 0.0)
    loss = h.sum(1) / c
    return _reduce(loss.squeeze(0) if input.dim() < 2 else loss, reduction)


@tensor_args("input1", "input2", "target", numbers=("margin",))
@autocast_policy("fp32")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = target.dim() + 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{target.dim()}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    dim = input1.dim() - 1
    cos = (input1 * input2).sum(dim) / ((input1 * input1).sum(dim) + eps).sqrt() / \
        ((input2 * input2).sum(dim) + eps).sqrt()
    zeros = _C.zeros_like(cos)
    loss = _C.where(target == 1, 1 - cos, zeros) + _C.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(loss, reduction)


@tensor_args("anchor", "positive", "negative", numbers=("margin", "p", "eps"), bools=("swap",))
@autocast_policy("fp32")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0), d the p-norm of the difference plus eps."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    dp = pairwise_distance(anchor, positive, p, eps)
    dn = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dn = _C.minimum(dn, pairwise_distance(positive, negative, p, eps))
    return _reduce((dp - dn + margin).clamp_min(0), reduction)
