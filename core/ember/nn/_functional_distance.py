"""ember.nn.functional's distances and utilities (re-exported there): cosine_similarity,
pairwise_distance, cdist, normalize and one_hot."""
from __future__ import annotations

import math

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import as_float, check_int, reserve, tensor_args

__all__ = ["cosine_similarity", "pairwise_distance", "one_hot", "normalize", "cdist"]


@tensor_args("x1", "x2", numbers=("eps",))
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / (max(|x1|, eps) max(|x2|, eps)) along dim, the inputs broadcast together."""
    if x1.is_complex() or x2.is_complex():
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{(x1 if x1.is_complex() else x2).dtype}")
    if not (x1.is_floating_point() and x2.is_floating_point()):  # integers are compared as floats, as PyTorch
        to = x1.dtype if x1.is_floating_point() else x2.dtype if x2.is_floating_point() else _C.get_default_dtype()
        x1, x2 = x1.to(to), x2.to(to)
    prod = x1 * x2
    # broadcast first: a size-1 dim that is broadcast along `dim` counts in the norms
    x1, x2 = x1.expand_as(prod), x2.expand_as(prod)
    # each over its norm floored at eps as PyTorch does (in place, unrecorded: the gradient goes
    # through the norm, whose gradient is 0 at a zero vector)
    n1, n2 = x1.norm(dim=dim, keepdim=True), x2.norm(dim=dim, keepdim=True)
    n1 = n1 + (n1.clamp_min(eps) - n1).detach()
    n2 = n2 + (n2.clamp_min(eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@tensor_args("x1", "x2", numbers=("p", "eps"))
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    p, eps = as_float("pairwise_distance", "p", p), as_float("pairwise_distance", "eps", eps)
    d = x1 - x2 + eps
    return _C.norm(d, p, [-1], keepdim) if d.dim() else d.abs()


@tensor_args("tensor")
def one_hot(tensor, num_classes=-1):
    """(..., num_classes) int64 with a 1 at each value's class; num_classes=-1 takes max + 1."""
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = check_int("one_hot", "num_classes", num_classes)
    if num_classes >= 0:  # the output asked for before the values are read: too big fails at once
        reserve("one_hot", list(tensor.shape) + [num_classes], _C.int64)
    if num_classes == -1 and tensor.numel() == 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    lo, hi = (tensor.min().item(), tensor.max().item()) if tensor.numel() else (0, -1)
    if num_classes == -1:
        num_classes = hi + 1
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = _C.zeros(list(tensor.shape) + [num_classes], dtype=_C.int64)
    return out.scatter(-1, tensor.unsqueeze(-1), 1)


@tensor_args("input", optional=("out",), numbers=("p", "eps"))
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(|input|_p, eps) along dim."""
    n = _C.norm(input, p, [dim], True).clamp_min(eps)
    res = input / n.expand_as(input)
    if out is not None:
        return out.copy_(res)
    return res


@tensor_args("x1", "x2", numbers=("p",))
@autocast_policy("fp32")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance of every row of x1 to every row of x2 (batched over leading dims)."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if math.isinf(p):
        # PyTorch's gradient: the whole of it to every coordinate at the maximum (no split among ties)
        dist = diff.amax(-1)
        at_max = (diff == dist.detach().unsqueeze(-1)).to(diff.dtype)
        return dist.detach() + ((diff - diff.detach()) * at_max).sum(-1)
    if p == 2:  # sqrt of zero has an infinite derivative: keep it finite at coincident points
        sq = (diff * diff).sum(-1)
        return _C.where(sq > 0, sq.clamp_min(1e-300).sqrt(), sq * 0)
    # the p-norm's gradient is 0 at coincident points and zero coordinates, as PyTorch's cdist
    return _C.norm(diff, p, [-1], False)
