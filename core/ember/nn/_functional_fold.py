"""unfold (im2col on tensors), fold (its adjoint), max_unpool, lp_pool and embedding_bag of
ember.nn.functional (re-exported there), written with differentiable ops."""
from __future__ import annotations

from .. import _C

__all__ = ["unfold", "fold", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "embedding_bag"]


def _pair(v, name):
    v = [v, v] if isinstance(v, int) else list(v)
    if len(v) != 2:
        raise RuntimeError(f"{name} must be an int or a pair of ints, got {v}")
    return v


def _patch_index(h, w, k, d, p, s):
    """For every (kernel offset, output position): the flat index into the padded (h + 2p) x (w + 2p) plane."""
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    oh = (hp - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (wp - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, padding={p}, "
                           f"calculated shape of the array of sliding blocks as ({oh}, {ow}), but its components "
                           "must be at least one.")
    idx = []
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(oh):
                for b in range(ow):
                    idx.append((a * s[0] + i * d[0]) * wp + b * s[1] + j * d[1])
    return _C.tensor(idx, dtype=_C.int64), oh, ow


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) -> (N, C * kh * kw, L): each column one sliding block, channels outermost."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    k, d, p, s = (_pair(v, n) for v, n in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                           (padding, "padding"), (stride, "stride")))
    n, c, h, w = x.shape
    from ._functional_conv import pad
    xp = pad(x, [p[1], p[1], p[0], p[0]]) if any(p) else x
    idx, oh, ow = _patch_index(h, w, k, d, p, s)
    cols = xp.reshape(n, c, -1).index_select(2, idx).reshape(n, c * k[0] * k[1], oh * ow)
    return cols.squeeze(0) if unbatched else cols


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold: (N, C * kh * kw, L) blocks summed back into (N, C, H, W)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
                           f"{input.dim()}D)")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    o, k, d, p, s = (_pair(v, nm) for v, nm in ((output_size, "output_size"), (kernel_size, "kernel_size"),
                                                  (dilation, "dilation"), (padding, "padding"), (stride, "stride")))
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
    flat = _C.zeros(n, c, hp * wp, dtype=x.dtype).index_add(2, idx, x.reshape(n, c, -1))
    out = flat.reshape(n, c, hp, wp)[:, :, p[0]:p[0] + o[0], p[1]:p[1] + o[1]]
    return out.squeeze(0) if unbatched else out


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd):
    k = [kernel_size] * nd if isinstance(kernel_size, int) else list(kernel_size)
    s = k if stride is None else ([stride] * nd if isinstance(stride, int) else list(stride))
    p = [padding] * nd if isinstance(padding, int) else list(padding)
    spatial = list(input.shape[-nd:])
    default = [(spatial[i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(nd)]
    size = default if output_size is None else list(output_size)[-nd:]
    lead = list(input.shape[:-nd])
    plane = 1
    for v in size:
        plane *= v
    if indices.numel() and (indices.min().item() < 0 or indices.max().item() >= plane):
        raise IndexError(f"max_unpool{nd}d: found an invalid max index {indices.max().item()} (output volume of "
                         f"size {size})")
    flat_in = input.reshape(lead + [-1])
    out = _C.zeros(lead + [plane], dtype=input.dtype).scatter(-1, indices.reshape(lead + [-1]), flat_in)
    return out.reshape(lead + size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    from ._functional_pool import _avg_pool
    k = [kernel_size] * nd if isinstance(kernel_size, int) else list(kernel_size)
    count = 1
    for v in k:
        count *= v
    avg = _avg_pool(input.pow(norm_type), k, stride, 0, ceil_mode, True, None, nd)
    # sign(avg) * relu(|avg|) * count, then the 1/p power, as PyTorch computes it
    return (_C.sign(avg) * _C.relu(avg.abs()) * count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


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
    from ._functional_norm import embedding
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                             "length sequences.")
        bags = [(i * input.shape[1], (i + 1) * input.shape[1]) for i in range(input.shape[0])]
        flat = input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if offsets is None or offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor but got None" if offsets is None else
                             "offsets has to be a 1D Tensor")
        off = [int(v) for v in offsets.tolist()]
        if off and off[0] != 0:
            raise ValueError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                             f"position 0. However, got {off[0]}")
        ends = off[1:] + ([] if include_last_offset else [input.shape[0]])
        starts = off[:-1] if include_last_offset else off
        bags = list(zip(starts, ends))
        flat, psw = input, per_sample_weights
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    rows = embedding(flat, weight, None, max_norm, norm_type)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    keep = None
    if padding_idx is not None:
        keep = (flat != padding_idx % weight.shape[0]).to(weight.dtype).unsqueeze(1)
        # padding rows drop out: zeros for sum/mean, -inf for max (a bag of padding alone gives zeros)
        rows = rows * keep if mode != "max" else rows.masked_fill(keep == 0, float("-inf"))
    out = []
    for b, e in bags:
        if e <= b:
            out.append(_C.zeros(weight.shape[1], dtype=weight.dtype))
            continue
        seg = rows[b:e]
        if mode == "sum":
            out.append(seg.sum(0))
        elif mode == "mean":
            n = keep[b:e].sum() if keep is not None else e - b
            out.append(seg.sum(0) / (n.clamp_min(1) if keep is not None else n))
        elif keep is not None and not bool(keep[b:e].any()):
            out.append(_C.zeros(weight.shape[1], dtype=weight.dtype))
        else:
            out.append(seg.amax(0))
    return _C.stack(out) if out else _C.zeros(0, weight.shape[1], dtype=weight.dtype)
