"""pad and the convolutions of ember.nn.functional (re-exported there): argument forms and checks
as in PyTorch; the work is the `convolution` op (core/ops/nn.yaml)."""
from __future__ import annotations

from ..amp._policy import autocast_policy, fp32_under_autocast
from .. import _C
from ._arg_checks import check_same_dtype, tensor_args

__all__ = ["pad", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _ntuple(v, n, name):
    if not isinstance(v, (int, list, tuple)):
        raise TypeError(f"expected {name} to be an int or a tuple of ints, but got {type(v).__name__}")
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={v}")
    return v


def _pad_dim(x, dim, left, right, mode, shape):
    """x padded along dim by (left, right) >= 0 in a non-constant mode: slices of x (reflected
    ones flipped) concatenated, so the output is allocated once and no index is built per position."""
    n = x.shape[dim]
    if mode == "reflect" and (left >= n or right >= n):
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                           f"padding ({left}, {right}) at dimension {dim} of input {list(shape)}")
    if mode == "circular" and (left > n or right > n):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    if n == 0:
        raise RuntimeError(f"{mode} padding of an empty dimension {dim} of input {list(shape)}")
    if mode == "replicate":
        before = _repeat_edge(x, dim, 0, left)
        after = _repeat_edge(x, dim, n - 1, right)
    elif mode == "reflect":  # x[left], ..., x[1] | x | x[n-2], ..., x[n-1-right]
        before = x.narrow(dim, 1, left).flip([dim])
        after = x.narrow(dim, n - 1 - right, right).flip([dim])
    else:  # circular: the last `left` entries, then the first `right`
        before = x.narrow(dim, n - left, left)
        after = x.narrow(dim, 0, right)
    return _C.cat([before, x, after], dim)


def _repeat_edge(x, dim, index, count):
    sizes = list(x.shape)
    sizes[dim] = count
    return x.narrow(dim, index, 1).expand(sizes)


@tensor_args("input")
def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad)//2 dims: pad = (last_left, last_right, second_last_left, ...).
    Negative amounts crop. mode: constant (value, default 0), reflect, replicate, circular."""
    if not isinstance(pad, (list, tuple)) or not all(isinstance(v, int) for v in pad):
        bad = pad if not isinstance(pad, (list, tuple)) else next(v for v in pad if not isinstance(v, int))
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(bad).__name__}")
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode != "constant":
        if value not in (None, 0, 0.0):
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        if mode not in ("reflect", "replicate", "circular"):
            raise NotImplementedError(f"Unrecognised padding mode {mode}")
        if k > 3 or input.dim() < k + 1:
            raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now "
                                      f"(got {k} padded dims of a {input.dim()}-D input)")
        # PyTorch's CPU autocast runs reflection_pad1d/2d and replication_pad1d/2d/3d in float32.
        if (mode == "reflect" and k <= 2) or mode == "replicate":
            input = fp32_under_autocast(input)
        out = input
        for i in range(k):
            dim = input.dim() - 1 - i
            left, right = pad[2 * i], pad[2 * i + 1]
            if left == 0 and right == 0:
                continue
            out = _pad_dim(out, dim, max(left, 0), max(right, 0), mode, input.shape)
            if left < 0 or right < 0:  # negative amounts crop after padding the other side
                start = -left if left < 0 else 0
                stop = out.shape[dim] + right if right < 0 else out.shape[dim]
                out = out.narrow(dim, start, stop - start)
        return out
    shape = list(input.shape)
    src = [slice(None)] * input.dim()
    dst = [slice(None)] * input.dim()
    for i in range(k):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        n = shape[dim]
        new = n + left + right
        if new < 0:
            raise RuntimeError(f"The input size {n}, plus negative padding {left} and {right} resulted in a negative "
                               f"output size, which is invalid. Check dimension {dim} of your input.")
        src[dim] = slice(max(-left, 0), n - max(-right, 0))
        dst[dim] = slice(max(left, 0), max(left, 0) + max(0, n - max(-left, 0) - max(-right, 0)))
        shape[dim] = new
    out = _C.full(shape, 0 if value is None else value, dtype=input.dtype)
    out[tuple(dst)] = input[tuple(src)]  # recorded when input requires grad
    return out


def _conv_padding(input, weight, padding, stride, dilation, nd):
    """The symmetric padding for the convolution op, padding the input first when 'same' needs an
    odd total (the extra on the right, as PyTorch does)."""
    if isinstance(padding, str):
        if padding == "valid":
            return input, [0] * nd
        if padding != "same":
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [dilation[i] * (weight.shape[2 + i] - 1) for i in range(nd)]
        left = [t // 2 for t in total]
        if any(t % 2 for t in total):
            extra = []
            for i in reversed(range(nd)):
                extra += [0, total[i] - 2 * left[i]]
            input = pad(input, extra)
        return input, left
    return input, _ntuple(padding, nd, "padding")


def _check_conv_params(input, weight, bias, nd, name):
    """What the convolution op would accept but PyTorch refuses: a weight (or, not transposed,
    a bias) of another dtype than the input, an empty kernel."""
    check_same_dtype(name, input, weight=weight, bias=None if "transpose" in name else bias)
    if weight.numel() == 0 and weight.dim() == nd + 2 and any(k == 0 for k in weight.shape[2:]):
        raise RuntimeError(f"{name}(): kernel size should be greater than zero, but got weight of shape "
                           f"{list(weight.shape)}")


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, name):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    _check_conv_params(input, weight, bias, nd, name)
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride, dilation = _ntuple(stride, nd, "stride"), _ntuple(dilation, nd, "dilation")
    input, padding = _conv_padding(input, weight, padding, stride, dilation, nd)
    out = _C.convolution(input, weight, bias, stride, padding, dilation, False, [0], groups)
    return out.squeeze(0) if unbatched else out


@tensor_args("input", "weight", optional=("bias",))
@autocast_policy("lower_precision_fp")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@tensor_args("input", "weight", optional=("bias",))
@autocast_policy("lower_precision_fp")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@tensor_args("input", "weight", optional=("bias",))
@autocast_policy("lower_precision_fp")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    _check_conv_params(input, weight, bias, nd, name)
    if input.numel() == 0 and input.dim() == nd + 2 and input.shape[0] and input.shape[1]:
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{list(input.shape)}")
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    if isinstance(padding, str):
        raise ValueError(f"{name}: padding must be an int or a tuple of ints, got '{padding}'")
    out = _C.convolution(input, weight, bias, _ntuple(stride, nd, "stride"), _ntuple(padding, nd, "padding"),
                         _ntuple(dilation, nd, "dilation"), True, _ntuple(output_padding, nd, "output_padding"), groups)
    return out.squeeze(0) if unbatched else out


@tensor_args("input", "weight", optional=("bias",))
@autocast_policy("lower_precision_fp")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


@tensor_args("input", "weight", optional=("bias",))
@autocast_policy("lower_precision_fp")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


@tensor_args("input", "weight", optional=("bias",))
@autocast_policy("lower_precision_fp")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")
