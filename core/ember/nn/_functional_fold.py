"""unfold (im2col on tensors), fold (its adjoint), max_unpool, lp_pool and embedding_bag of
ember.nn.functional (re-exported there), written with differentiable ops."""
from __future__ import annotations

from ..amp._policy import autocast_policy
from .. import _C
from .._deterministic import _alert_not_deterministic
from ._arg_checks import check_int, check_same_dtype, int_sequence, tensor_args

__all__ = ["unfold", "fold", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "embedding_bag"]


def _pair(v, name):
    if not isinstance(v, (int, list, tuple)):
        raise TypeError(f"{name} must be an int or a pair of ints, not {type(v).__name__}")
    v = [v, v] if isinstance(v, int) else list(v)
    if len(v) != 2:
        raise RuntimeError(f"{name} must be an int or a pair of ints, got {v}")
    return [check_int("unfold", name, e) for e in v]


def _sliding_args(kernel_size, dilation, padding, stride):
    """kernel_size, dilation, padding, stride as pairs, checked as PyTorch's im2col checks them."""
    k, d, p, s = (_pair(v, n) for v, n in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                           (padding, "padding"), (stride, "stride")))
    for (a, b), what, part in ((k, "kernel size", "kernel"), (d, "dilation", "dilation"), (s, "stride", "stride")):
        if a <= 0 or b <= 0:
            raise RuntimeError(f"{what} should be greater than zero, but got {part}_height: {a} {part}_width: {b}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    return k, d, p, s


def _patch_index(h, w, k, d, p, s):
    """For every (kernel offset, output position): the flat index into the padded (h + 2p) x (w + 2p) plane."""
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    oh = (hp - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (wp - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, padding={p}, "
                           f"calculated shape of the array of sliding blocks as ({oh}, {ow}), but its components "
                           "must be at least one.")
    # (kernel row i, kernel col j, output row a, output col b), flattened in that order
    i = _C.arange(k[0], dtype=_C.int64).reshape(k[0], 1, 1, 1)
    j = _C.arange(k[1], dtype=_C.int64).reshape(1, k[1], 1, 1)
    a = _C.arange(oh, dtype=_C.int64).reshape(1, 1, oh, 1)
    b = _C.arange(ow, dtype=_C.int64).reshape(1, 1, 1, ow)
    idx = (a * s[0] + i * d[0]) * wp + (b * s[1] + j * d[1])
    return idx.reshape(-1), oh, ow


@tensor_args("input")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) -> (N, C * kh * kw, L): each column one sliding block, channels outermost."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    unbatched = input.dim() == 3
    if any(v == 0 for v in input.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    x = input.unsqueeze(0) if unbatched else input
    k, d, p, s = _sliding_args(kernel_size, dilation, padding, stride)
    n, c, h, w = x.shape
    from ._functional_conv import pad
    xp = pad(x, [p[1], p[1], p[0], p[0]]) if any(p) else x
    idx, oh, ow = _patch_index(h, w, k, d, p, s)
    plane = (h + 2 * p[0]) * (w + 2 * p[1])
    cols = xp.reshape(n, c, plane).index_select(2, idx).reshape(n, c * k[0] * k[1], oh * ow)
    return cols.squeeze(0) if unbatched else cols


@tensor_args("input")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold: (N, C * kh * kw, L) blocks summed back into (N, C, H, W)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
                           f"{input.dim()}D)")
    if any(v == 0 for v in input.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    o = _pair(output_size, "output_size")
    k, d, p, s = _sliding_args(kernel_size, dilation, padding, stride)
    n, ckk, L = x.shape
    if ckk % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={ckk} and kernel_size={tuple(k)}")
    c = ckk // (k[0] * k[1])
    idx, oh, ow = _patch_index(o[0], o[1], k, d, p, s)
    if oh * ow != L:
        raise RuntimeError(f"Given output_size={tuple(o)}, kernel_size={tuple(k)}, dilation={tuple(d)}, "
                           f"padding={tuple(p)}, stride={tuple(s)}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got input.size(2)={L}.")
    hp, wp = o[0] + 2 * p[0], o[1] + 2 * p[1]
    flat = _C.zeros(n, c, hp * wp, dtype=x.dtype).index_add(2, idx, x.reshape(n, c, k[0] * k[1] * L))
    out = flat.reshape(n, c, hp, wp)[:, :, p[0]:p[0] + o[0], p[1]:p[1] + o[1]]
    return out.squeeze(0) if unbatched else out


def _unpool_size(input, k, s, p, output_size, nd):
    """The output's spatial size: the default one, or output_size (its last nd entries when it
    has nd + 2) within a stride of the default, as PyTorch checks it."""
    default = [(input.shape[input.dim() - nd + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(nd)]
    if output_size is None:
        return default
    if not isinstance(output_size, (list, tuple)):
        raise TypeError(f"max_unpool{nd}d(): argument 'output_size' must be a sequence of ints, not "
                        f"{type(output_size).__name__}")
    size = list(output_size)
    if len(size) == nd + 2:
        size = size[2:]
    if len(size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a length "
                         f"of '{len(size)}'")
    for d in range(nd):
        lo, hi = default[d] - s[d], default[d] + s[d]
        if not lo < check_int(f"max_unpool{nd}d", "output_size", size[d]) < hi:
            raise ValueError(f'invalid output_size "{tuple(size)}" (dim {d} must be between {lo} and {hi})')
    return size


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd):
    name = f"max_unpool{nd}d"
    k = int_sequence(name, "kernel_size", kernel_size, nd)
    s = k if stride is None else int_sequence(name, "stride", stride, nd)
    p = int_sequence(name, "padding", padding, nd)
    if indices.dtype != _C.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to max_unpooling{max(nd, 2)}d should be a {nd + 1}d or {nd + 2}d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    if any(input.shape[d] == 0 for d in range(input.dim() - nd - 1, input.dim())):
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
                           f"{list(input.shape)}")
    # PyTorch's names: which of several duplicate indices' values lands depends on the work's split
    _alert_not_deterministic(f"max_unpooling{max(nd, 2)}d_forward_out")
    size = _unpool_size(input, k, s, p, output_size, nd)
    if any(v < 0 for v in size):
        raise RuntimeError(f"{name}(): the output size {size} is negative (kernel_size={k}, stride={s}, padding={p})")
    lead = list(input.shape[:-nd])
    plane = 1
    for v in size:
        plane *= v
    invalid = ((indices < 0) | (indices >= plane)).reshape(-1)
    if invalid.any().item():
        bad = indices.reshape(-1)[invalid.to(_C.int64).argmax()].item()  # the first, as PyTorch reports it
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {'x'.join(map(str, size))}")
    flat_in = input.reshape(lead + [-1])
    out = _C.zeros(lead + [plane], dtype=input.dtype).scatter(-1, indices.reshape(lead + [-1]), flat_in)
    return out.reshape(lead + size)


@tensor_args("input", "indices")
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@tensor_args("input", "indices")
@autocast_policy("fp32")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@tensor_args("input", "indices")
@autocast_policy("fp32")
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    from ._functional_pool import _avg_pool
    if norm_type == 0:  # the 1/p power below
        raise ValueError(f"lp_pool{nd}d(): norm_type must be non-zero, but got norm_type={norm_type}")
    k = int_sequence(f"lp_pool{nd}d", "kernel_size", kernel_size, nd)
    count = 1
    for v in k:
        count *= v
    avg = _avg_pool(input.pow(norm_type), k, stride, 0, bool(ceil_mode), True, None, nd)
    # sign(avg) * relu(|avg|) * count, then the 1/p power, as PyTorch computes it
    return (_C.sign(avg) * _C.relu(avg.abs()) * count).pow(1.0 / norm_type)


@tensor_args("input", numbers=("norm_type",), bools=("ceil_mode",))
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


@tensor_args("input", numbers=("norm_type",), bools=("ceil_mode",))
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


@tensor_args("input", numbers=("norm_type",), bools=("ceil_mode",))
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


@tensor_args("input", "weight", optional=("offsets", "per_sample_weights"),
             bools=("scale_grad_by_freq", "sparse", "include_last_offset"))
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxes of bags of embeddings: input 2-D (one bag per row) or 1-D with
    offsets (bag i = input[offsets[i]:offsets[i+1]]). Empty bags give zeros."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if per_sample_weights is not None:
        if list(per_sample_weights.shape) != list(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({tuple(input.shape)})")
        check_same_dtype("embedding_bag", weight, per_sample_weights=per_sample_weights)
    if weight.is_complex() or not weight.is_floating_point():
        raise RuntimeError(f"embedding_bag: expected weight of a floating dtype, got {weight.dtype}")
    from ._functional_norm import embedding
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences.")
        nbags, width = input.shape
        flat = input.reshape(-1)
        bag = _C.arange(flat.shape[0], dtype=_C.int64) // max(width, 1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if not isinstance(offsets, _C.TensorBase) or offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor but got None" if offsets is None else
                             "offsets has to be a 1D Tensor")
        if offsets.is_floating_point() or offsets.is_complex():
            raise RuntimeError(f"embedding_bag: expected offsets of an integer dtype, got {offsets.dtype}")
        offsets = offsets.to(_C.int64)
        if offsets.numel() and offsets[0].item() != 0:
            raise ValueError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                             f"position 0. However, got {offsets[0].item()}")
        if offsets.numel() > 1 and ((offsets[1:] < offsets[:-1]).any().item() or
                                    offsets[-1].item() > input.shape[0]):
            raise RuntimeError(f"embedding_bag: offsets must be non-decreasing and at most the input's length "
                               f"{input.shape[0]}")
        starts = offsets[:-1] if include_last_offset else offsets
        nbags = starts.shape[0]
        flat, psw = input, per_sample_weights
        # each element's bag: the last start at or before it (elements past the last offset: none)
        bag = _C.searchsorted(starts.contiguous(), _C.arange(flat.shape[0], dtype=_C.int64), right=True) - 1
        if include_last_offset and offsets.numel():
            bag = _C.where(_C.arange(flat.shape[0], dtype=_C.int64) < offsets[-1], bag, _C.full_like(bag, -1))
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    rows = embedding(flat, weight, None, max_norm, norm_type)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    used = (bag >= 0) & (bag < nbags)
    if used.numel() and not bool(used.all()):
        rows, bag, flat = rows[used], bag[used], flat[used]
    count = _C.ones(bag.shape[0], dtype=weight.dtype)
    if padding_idx is not None:
        count = (flat != padding_idx % weight.shape[0]).to(weight.dtype)
        # padding rows drop out: zeros for sum/mean, -inf for max (a bag of padding alone gives zeros)
        rows = rows * count.unsqueeze(1) if mode != "max" else rows.masked_fill(count.unsqueeze(1) == 0, float("-inf"))
    dim = weight.shape[1]
    per_bag = _C.zeros(nbags, dtype=weight.dtype).index_add(0, bag, count)
    if mode == "max":
        out = _C.zeros(nbags, dim, dtype=weight.dtype).scatter_reduce(
            0, bag.unsqueeze(1).expand(bag.shape[0], dim), rows, "amax", include_self=False)
        return _C.where((per_bag > 0).unsqueeze(1), out, _C.zeros_like(out))
    out = _C.zeros(nbags, dim, dtype=weight.dtype).index_add(0, bag, rows)
    return out / per_bag.clamp_min(1).unsqueeze(1) if mode == "mean" else out
