"""Normalization and embedding functions of ember.nn.functional (re-exported there), written with
differentiable ops: batch_norm (running statistics with momentum, the unbiased variance stored as
PyTorch stores it), instance_norm, layer_norm, group_norm, local_response_norm, embedding."""
from __future__ import annotations

import math

from .. import _C
from .._dtype_info import finfo
from .._ops_sort import unique
from ..autograd.grad_mode import no_grad
from ._embedding_grad import EmbeddingLookup
from ._arg_checks import check_int, check_positive, check_same_dtype, tensor_args

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "local_response_norm", "embedding",
           "rms_norm"]


def _check_channel_params(fname, input, running_mean, running_var, weight, bias):
    """Per-channel parameters: one entry per channel (dim 1) of input, 1-D (batch_norm's weight
    and bias may be (1, C) too, as PyTorch's); of the input's dtype (or float32 for a
    half/bfloat16 input), batch_norm's running statistics too."""
    c = input.size(1)  # (indexing .shape costs ~0.6 us, size(1) 0.1)
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and (t.numel() != c or (t.dim() != 1 and (name.startswith("running") or
                                                                   fname != "batch_norm"))):
            raise RuntimeError(f"{fname}: {name} should be a 1-D tensor of {c} elements (one per channel of input of "
                               f"shape {list(input.shape)}), not of shape {list(t.shape)}")
    if fname == "batch_norm":
        check_same_dtype(fname, input, reduced_params_may_be_float=True, running_mean=running_mean,
                         running_var=running_var)
    check_same_dtype(fname, input, reduced_params_may_be_float=True, weight=weight, bias=bias)


def _affine(y, weight, bias, shape):
    dtype = y.dtype  # float32 parameters keep a half/bfloat16 result in its dtype, as PyTorch
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y if y.dtype == dtype else y.to(dtype)


def _native_dtypes(input, *params):
    """Whether native_batch_norm takes these dtypes: float32/float64, or a half/bfloat16 input whose
    parameters are all of its dtype or all float32 (computed in float32 there)."""
    if input.dtype in (_C.float32, _C.float64):
        return True
    if input.dtype not in (_C.float16, _C.bfloat16):
        return False
    dtypes = {p.dtype for p in params if p is not None}
    return dtypes in (set(), {input.dtype}, {_C.float32})


@tensor_args("input", optional=("running_mean", "running_var", "weight", "bias"),
             numbers=("momentum", "eps"))
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalizes over every dim but 1 (the channels): with the batch's statistics in training
    (updating the running ones in place), with the running ones otherwise."""
    if input.dim() < 2:
        raise ValueError(f"expected 2D or more input (N, C, ...), got {input.dim()}D input")
    c = input.shape[1]
    _check_channel_params("batch_norm", input, running_mean=running_mean, running_var=running_var, weight=weight,
                          bias=bias)
    weight = weight.reshape(c) if weight is not None and weight.dim() != 1 else weight  # PyTorch takes (1, C) too
    bias = bias.reshape(c) if bias is not None and bias.dim() != 1 else bias
    if _native_dtypes(input, running_mean, running_var, weight, bias) and (training or running_mean is not None):
        if not training and (running_mean is None or running_var is None):
            raise RuntimeError("batch_norm: running_mean and running_var must be given when training=False")
        return _C.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]
    dims = [0] + list(range(2, input.dim()))
    shape = [1, c] + [1] * (input.dim() - 2)
    if training:
        count = input.numel() // c if c else 0
        if count == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
        if running_mean is not None or running_var is not None:
            with no_grad():
                if running_mean is not None:
                    running_mean.mul_(1 - momentum).add_(mean.reshape(c).detach() * momentum)
                if running_var is not None:
                    running_var.mul_(1 - momentum).add_(var.reshape(c).detach() * (momentum * count / (count - 1)))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be given when training=False")
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    y = (input - mean) * (var + eps).rsqrt()
    return _affine(y, weight, bias, shape)


@tensor_args("input", optional=("running_mean", "running_var", "weight", "bias"),
             numbers=("momentum", "eps"), bools=("use_input_stats",))
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """batch_norm of each (n, c) plane on its own."""
    if input.dim() < 3:
        raise ValueError(f"instance_norm: expected input with at least 3 dims (N, C, *spatial), got {input.dim()}D")
    n, c = input.shape[0], input.shape[1]
    _check_channel_params("instance_norm", input, running_mean=running_mean, running_var=running_var, weight=weight,
                          bias=bias)
    shape = [1, c] + [1] * (input.dim() - 2)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        y = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
        return _affine(y, weight, bias, shape)
    dims = list(range(2, input.dim()))
    mean = input.mean(dims, keepdim=True)
    var = (input - mean).square().mean(dims, keepdim=True)
    if running_mean is not None or running_var is not None:
        count = input.numel() // (n * c)
        with no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(mean.mean(0).reshape(c) * momentum)
            if running_var is not None:
                running_var.mul_(1 - momentum).add_(var.mean(0).reshape(c) * (momentum * count / max(count - 1, 1)))
    y = (input - mean) * (var + eps).rsqrt()
    return _affine(y, weight, bias, shape)


def _normalized_dims(fname, input, normalized_shape, weight, bias=None):
    """The last len(normalized_shape) dims, which must equal normalized_shape (and weight's and
    bias's shapes too), as layer_norm and rms_norm check them."""
    if not isinstance(normalized_shape, (int, list, tuple)):
        raise TypeError(f"{fname}(): argument 'normalized_shape' must be int or tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    ns = [check_int(fname, "normalized_shape", v) for v in ns]
    if fname == "rms_norm" and len(ns) > input.dim():
        raise ValueError(f"Input tensor must have at least {len(ns)} dimensions, but got {input.dim()}")
    if len(ns) > input.dim() or list(input.shape[input.dim() - len(ns):]) != ns:
        star = "*" if fname == "rms_norm" else "*, "  # PyTorch's two messages differ by that comma
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape [{star}{', '.join(map(str, ns))}], "
                           f"but got input of size{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {ns}")
    if fname == "layer_norm":  # rms_norm promotes
        check_same_dtype(fname, input, reduced_params_may_be_float=True, weight=weight, bias=bias)
    return list(range(input.dim() - len(ns), input.dim()))


@tensor_args("input", optional=("weight", "bias"), numbers=("eps",))
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalizes over the last len(normalized_shape) dims, which must equal normalized_shape."""
    dims = _normalized_dims("layer_norm", input, normalized_shape, weight, bias)
    mean = input.mean(dims, keepdim=True)
    var = (input - mean).square().mean(dims, keepdim=True)
    y = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y if y.dtype == input.dtype else y.to(input.dtype)  # float32 parameters of a half/bfloat16 input


@tensor_args("input", optional=("weight",))
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean of squares over the normalized dims + eps) (* weight); eps defaults to
    the dtype's machine epsilon."""
    dims = _normalized_dims("rms_norm", input, normalized_shape, weight)
    if eps is None:
        eps = finfo(input.dtype).eps
    y = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return y * weight if weight is not None else y


@tensor_args("input", optional=("weight", "bias"), numbers=("eps",))
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalizes each group of num_groups consecutive channels over (channels of the group, spatial)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    check_positive("group_norm", "num_groups", num_groups)
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                               f"got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    check_same_dtype("group_norm", input, reduced_params_may_be_float=True, weight=weight, bias=bias)
    per_group = input.numel() // (n * num_groups) if n else (c // num_groups) * math.prod(input.shape[2:])
    x = input.reshape([n, num_groups, per_group])
    mean = x.mean(2, keepdim=True)
    var = (x - mean).square().mean(2, keepdim=True)
    y = ((x - mean) * (var + eps).rsqrt()).reshape(list(input.shape))
    return _affine(y, weight, bias, [1, c] + [1] * (input.dim() - 2))


@tensor_args("input", numbers=("alpha", "beta", "k"))
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over a window of `size` channels around each)^beta; the
    window means are an average pooling along the channels (zeros beyond them)."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    check_positive("local_response_norm", "size", size)
    if input.numel() == 0:
        return input / (input * 0 + k) ** beta
    from ._functional_conv import pad
    n, c = input.shape[0], input.shape[1]
    rest = input.numel() // (n * c)
    x = input if input.is_floating_point() or input.is_complex() else input.to(_C.get_default_dtype())
    sq = pad((x * x).reshape(n, 1, c, rest), [0, 0, size // 2, (size - 1) // 2])
    div = _C._nn.avg_pool(sq, [size, 1], [1, 1], [0, 0], False, True, None).reshape(list(input.shape))
    return input / (div * alpha + k) ** beta


@tensor_args("input", "weight", bools=("scale_grad_by_freq", "sparse"))
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """weight[input]; padding_idx rows get no gradient; max_norm renormalizes the looked-up rows
    of weight in place (as PyTorch does)."""
    if input.is_floating_point() or input.is_complex() or input.dtype == _C.bool:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding)")
    if weight.dim() != 2:
        raise RuntimeError(f"'weight' must be 2-D, got shape {list(weight.shape)}")
    num = weight.shape[0]
    if input.numel() and (input.min().item() < 0 or input.max().item() >= num):
        raise IndexError(f"index out of range in self: embedding indices must be in [0, {num}), got values in "
                         f"[{input.min().item()}, {input.max().item()}]")
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise ValueError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    if max_norm is not None:
        with no_grad():
            rows = unique(input.reshape(-1))
            norms = weight[rows].norm(norm_type, 1, True)
            scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), _C.ones_like(norms))
            weight[rows] = weight[rows] * scale
    flat = input.reshape(-1).to(_C.int64)
    if (sparse or scale_grad_by_freq) and weight.requires_grad and _C.is_grad_enabled():
        return EmbeddingLookup.apply(weight, flat, padding_idx, scale_grad_by_freq, sparse).reshape(
            list(input.shape) + [weight.shape[1]])
    out = weight.index_select(0, flat)
    if padding_idx is not None and weight.requires_grad:
        keep = (flat != padding_idx).to(weight.dtype).unsqueeze(1)
        out = out * keep + (out * (1 - keep)).detach()  # the padding row's value, without gradient
    return out.reshape(list(input.shape) + [weight.shape[1]])
