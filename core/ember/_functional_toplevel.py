"""PyTorch's top-level forms of nn.functional's ops (torch.conv2d, torch.dropout, torch.batch_norm...):
the same callables where PyTorch's top-level signature is nn.functional's, else thin wrappers with the
top-level signature (train flags positional and required, losses' reduction an int enum, embedding's
weight first, batch_norm's weight before the running statistics)."""
from __future__ import annotations

from .amp._policy import autocast_policy
from . import _C
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .nn import functional as F
from .nn._functional_dropout import _check_p, _check_scalable

# The same callables as nn.functional: PyTorch's top-level signature is theirs.
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d
avg_pool1d, adaptive_avg_pool1d = F.avg_pool1d, F.adaptive_avg_pool1d
bilinear, cosine_similarity, pairwise_distance, prelu = F.bilinear, F.cosine_similarity, F.pairwise_distance, F.prelu
pixel_shuffle, pixel_unshuffle, rms_norm = F.pixel_shuffle, F.pixel_unshuffle, F.rms_norm

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "avg_pool1d",
           "adaptive_avg_pool1d", "bilinear", "cosine_similarity", "pairwise_distance", "prelu", "pixel_shuffle",
           "pixel_unshuffle", "rms_norm", "adaptive_max_pool1d", "max_pool1d", "max_pool2d", "max_pool3d",
           "max_pool1d_with_indices", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
           "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "batch_norm", "instance_norm",
           "layer_norm", "group_norm", "embedding", "embedding_renorm_", "rrelu", "rrelu_", "selu", "selu_",
           "constant_pad_nd", "conv_tbc", "channel_shuffle", "pdist", "cdist", "rsub"]


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as PyTorch's top-level form always returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def _pool(fn, name, with_indices=False):
    def pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        # PyTorch's top-level default stride is an empty list: the kernel size, as None is for F
        return fn(input, kernel_size, stride if stride not in ((), [], None) else None, padding, dilation, ceil_mode,
                  return_indices=with_indices)
    pool.__name__ = pool.__qualname__ = name
    return pool


max_pool1d = _pool(F.max_pool1d, "max_pool1d")
max_pool2d = _pool(F.max_pool2d, "max_pool2d")
max_pool3d = _pool(F.max_pool3d, "max_pool3d")
max_pool1d_with_indices = _pool(F.max_pool1d, "max_pool1d_with_indices", with_indices=True)


def dropout(input, p, train):
    return F.dropout(input, p, train)


def dropout_(input, p, train):
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def _feature_dropout(input, p, train, inplace):
    """Whole features (dims 2 and on, one mask entry per (sample, channel)) zeroed with probability p."""
    _check_p(p)
    _check_scalable(input, train)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not train or p == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    mask = _C.empty(list(input.shape[:2]) + [1] * (input.dim() - 2), dtype=input.dtype).bernoulli_(1 - p)
    scale = 1.0 / (1 - p)
    return input.mul_(mask).mul_(scale) if inplace else input * mask * scale


def feature_dropout(input, p, train):
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    return _feature_dropout(input, p, train, True)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """weight[indices]; the native form's padding_idx is -1 (or any negative) for none."""
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescales, in place, the rows of input named by indices whose norm_type-norm exceeds max_norm to
    norm max_norm (divided by norm + 1e-7, as PyTorch does)."""
    if input.dim() != 2:
        raise RuntimeError(f"embedding_renorm_(): expected 2-D weight, got {input.dim()}-D")
    if indices.is_floating_point() or indices.is_complex() or indices.dtype == _C.bool:
        raise RuntimeError(f"Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.dtype} instead (while checking arguments for "
                           "embedding_renorm_)")
    with no_grad():
        rows = indices.reshape(-1).to(_C.int64).unique()
        norms = input[rows].norm(norm_type, 1, True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), _C.ones_like(norms))
        input[rows] = input[rows] * scale
    return input


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, generator, False)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, generator, True)


def _rrelu(input, lower, upper, training, generator, inplace):
    if generator is None or not training:
        return F.rrelu(input, lower, upper, training, inplace)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    slope = _C.empty_like(input).uniform_(lower, upper, generator=generator)
    out = _C.where(input >= 0, input, input * slope)
    return input.copy_(out) if inplace else out


def selu(input):
    return F.selu(input)


def selu_(input):
    return F.selu(input, inplace=True)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, "constant", value)


def _conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-D convolution over time-major input (time, batch, in) with weight (kernel, in, out). Written in the
    script language: ember.jit compiles this same body (jit/_builtins_policy_ops.py)."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.size(2) != weight.size(1):
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.size(0) != weight.size(2):
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = F.conv1d(input.permute([1, 2, 0]), weight.permute([2, 1, 0]), bias, padding=pad)
    return out.permute([2, 0, 1])


conv_tbc = autocast_policy("lower_precision_fp")(_conv_tbc)
conv_tbc.__name__ = conv_tbc.__qualname__ = "conv_tbc"


def channel_shuffle(input, groups):
    """(N, C, ...) -> the channels regrouped: channel g*(C/groups)+k moves to k*groups+g."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], list(input.shape[2:])
    grouped = input.reshape([n, groups, c // groups] + rest)
    return grouped.transpose(1, 2).reshape(list(input.shape))


def pdist(input, p=2):
    """The p-norm distances of every pair of rows i < j of a 2-D input, in row-major order of (i, j)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if n < 2:
        return _C.empty([0], dtype=input.dtype)
    rows = _C.ones([n, n], dtype=_C.bool).triu(1).nonzero()
    return F.pairwise_distance(input[rows[:, 0]], input[rows[:, 1]], p, eps=0.0)


def cdist(x1, x2, p=2.0, compute_mode=None):
    return F.cdist(x1, x2, p, compute_mode or "use_mm_for_euclid_dist_if_necessary")


def rsub(input, other, *, alpha=1):
    """other - alpha * input (sub with its operands swapped)."""
    return _C.sub(other, input, alpha=alpha)


# The losses' native forms take reduction as at::Reduction's int: 0 none, 1 mean, 2 sum.
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(name, reduction):
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' must be int, not {type(reduction).__name__}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}(): reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction}")
    return _REDUCTIONS[reduction]


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(
        "binary_cross_entropy_with_logits", reduction), pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction("cosine_embedding_loss",
                                                                                        reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction))


def kl_div(input, target, reduction=1, *, log_target=False):
    return F.kl_div(input, target, reduction=_reduction("kl_div", reduction), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction("margin_ranking_loss",
                                                                                      reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction("poisson_nll_loss",
                                                                                            reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=1):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction("triplet_margin_loss", reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    """The lengths may be lists of ints or tensors, as in PyTorch's two native overloads."""
    lengths = [x if isinstance(x, _C.TensorBase) else _C.tensor(list(x), dtype=_C.int64)
               for x in (input_lengths, target_lengths)]
    return F.ctc_loss(log_probs, targets, lengths[0], lengths[1], blank, _reduction("ctc_loss", reduction),
                      zero_infinity)


__all__ += ["binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss", "kl_div",
            "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss", "ctc_loss"]
