"""ember.nn.functional's dropout family (re-exported there): dropout, feature dropout (1d/2d/3d) and
alpha dropout, with PyTorch's shape rules and in-place forms."""
from __future__ import annotations

import warnings

from .. import _C
from ._arg_checks import tensor_args
from ._functional_activation import SELU_ALPHA, SELU_SCALE

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p != p:  # NaN passes the comparisons above; PyTorch's kernel then refuses it
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_scalable(input, training):
    """Dropout in training scales by 1/(1-p): an integer or bool input cannot hold the result."""
    if training and not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype}")


def _without_mask(input, p, training, inplace):
    """The checked arguments' result when no mask is drawn (evaluation, p 0 or 1), else None."""
    _check_p(p)
    _check_scalable(input, training)
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    return None


def _apply_mask(input, mask, scale, inplace):
    if inplace:
        return input.mul_(mask).mul_(scale)
    return input * mask * scale


@tensor_args("input", numbers=("p",))
def dropout(input, p=0.5, training=True, inplace=False):
    """Zeros each element with probability p in training, scaling the rest by 1/(1-p)."""
    trivial = _without_mask(input, p, training, inplace)
    if trivial is not None:
        return trivial
    mask = _C.empty_like(input).bernoulli_(1 - p)
    return _apply_mask(input, mask, 1.0 / (1 - p), inplace)


def _feature_dropout(input, p, training, inplace, batched_dim, name):
    _check_p(p)
    _check_scalable(input, training)
    if input.dim() not in (batched_dim, batched_dim + 1):
        raise RuntimeError(f"{name}: expected {batched_dim}-D (unbatched) or {batched_dim + 1}-D (batched) input, "
                           f"got {input.dim()}-D input of shape {tuple(input.shape)}")
    if not training or p == 0:
        return input
    batched = input.dim() == batched_dim + 1
    keep = list(input.shape[:2] if batched else input.shape[:1]) + [1] * (batched_dim - 1)
    mask = _C.empty(keep, dtype=input.dtype).bernoulli_(1 - p)
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    return _apply_mask(input, mask, 1.0 / (1 - p), inplace)


@tensor_args("input", numbers=("p",))
def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 2, "dropout1d")


def _unexpected_rank_warning(name, dim, spatial):
    warnings.warn(f"{name}: Received a {dim}-D input to {name}, which is deprecated and will result in an error in a "
                  "future release. To retain the behavior and silence this warning, please use dropout instead. Note "
                  f"that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
                  f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
                  stacklevel=3)


def _any_rank_feature_dropout(input, p, training, inplace):
    """PyTorch's feature_dropout on any input of 2+ dims: one draw per (dim 0, dim 1) entry."""
    _check_p(p)
    _check_scalable(input, training)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0:
        return input
    mask = _C.empty(list(input.shape[:2]) + [1] * (input.dim() - 2), dtype=input.dtype).bernoulli_(1 - p)
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    return _apply_mask(input, mask, 1.0 / (1 - p), inplace)


@tensor_args("input", numbers=("p",))
def dropout2d(input, p=0.5, training=True, inplace=False):
    if input.dim() == 4:
        return _feature_dropout(input, p, training, inplace, 3, "dropout2d")
    # Other ranks run as PyTorch still runs them, with its warnings: a 3-D input is read as (N, C, L)
    # (channel-wise 1-D dropout), others drop (dim 0, dim 1) entries; fewer than 2 dims are refused.
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    else:
        _unexpected_rank_warning("dropout2d", input.dim(), 2)
    return _any_rank_feature_dropout(input, p, training, inplace)


@tensor_args("input", numbers=("p",))
def dropout3d(input, p=0.5, training=True, inplace=False):
    if input.dim() in (4, 5):
        return _feature_dropout(input, p, training, inplace, 4, "dropout3d")
    _unexpected_rank_warning("dropout3d", input.dim(), 3)  # then PyTorch's path: an unbatched input gains dim 0
    out = _any_rank_feature_dropout(input.unsqueeze(0), p, training, False)
    out = out.squeeze(0)
    return input.copy_(out) if inplace and out is not input else out


def _alpha_dropout(input, p, training, inplace, mask_shape):
    trivial = _without_mask(input, p, training, inplace)
    if trivial is not None:
        return trivial
    # Dropped values become alpha' = -SELU_SCALE*SELU_ALPHA; a and b keep mean 0 and variance 1.
    alpha_p = -SELU_ALPHA * SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = _C.empty(mask_shape, dtype=input.dtype).bernoulli_(1 - p)
    out = (input * keep + alpha_p * (1 - keep)) * a + b
    return input.copy_(out) if inplace else out


@tensor_args("input", numbers=("p",))
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, list(input.shape))


@tensor_args("input", numbers=("p",))
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    return _alpha_dropout(input, p, training, inplace, shape)
