"""torch.embedding_bag's top-level form: weight first, mode as PyTorch's enum (0 sum, 1 mean, 2 max), and its
four results (output, offset2bag, bag_size, max_indices). The output is nn.functional.embedding_bag's
(differentiable); the other three are integer bookkeeping, as PyTorch's CPU kernel fills them."""
from __future__ import annotations

from . import _C
from ._dtype_info import scalar_type_name
from .autograd.grad_mode import no_grad

__all__ = ["embedding_bag"]

_MODES = {0: "sum", 1: "mean", 2: "max"}


def _check_index_dtype(t):
    if t.dtype not in (_C.int64, _C.int32):
        word = scalar_type_name(t.dtype)
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{word}Tensor instead (while checking arguments for "
                           "embedding_bag)")


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """(output, offset2bag, bag_size, max_indices): output[b] the sum/mean/max of weight's rows indices[offsets[b]:
    offsets[b+1]]; offset2bag each index's bag; bag_size each bag's count of non-padding indices (zeros for sum);
    max_indices, for max, the weight row each maximum came from (else bag_size for mean, zeros for sum)."""
    if mode not in _MODES:
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    if not isinstance(offsets, _C.TensorBase):
        raise TypeError(f"embedding_bag(): argument 'offsets' (position 3) must be Tensor, not "
                        f"{type(offsets).__name__}")
    _check_index_dtype(indices)
    _check_index_dtype(offsets)
    from .nn import functional as F
    output = F.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq, _MODES[mode], sparse,
                             per_sample_weights, include_last_offset, padding_idx)
    with no_grad():
        offset2bag, bag_size, max_indices = _bookkeeping(weight, indices, offsets, mode, include_last_offset,
                                                         padding_idx, output.shape[0])
    return output, offset2bag, bag_size, max_indices


def _bookkeeping(weight, indices, offsets, mode, include_last_offset, padding_idx, nbags):
    flat = indices.reshape(-1).to(_C.int64)
    n = flat.shape[0]
    positions = _C.arange(n, dtype=_C.int64)
    if indices.dim() == 2:
        offset2bag = positions // max(indices.shape[1], 1)
    else:
        starts = offsets.to(_C.int64)
        starts = (starts[:-1] if include_last_offset else starts).contiguous()
        offset2bag = (_C.searchsorted(starts, positions, right=True) - 1).clamp_min(0)
    counted = _C.ones(n, dtype=_C.int64)
    if padding_idx is not None:
        counted = (flat != padding_idx % weight.shape[0]).to(_C.int64)
    live = offset2bag < nbags
    if indices.dim() == 1 and include_last_offset and offsets.numel():
        # past the last offset (which PyTorch documents as the input's length) no bag counts an index, as in
        # the output; PyTorch's own kernels disagree there by dtype and mode
        live = live & (positions < offsets[-1])
    bag_size = _C.zeros(nbags, dtype=_C.int64).index_add(0, offset2bag[live], counted[live])
    if mode == 0:  # PyTorch's sum kernel leaves these unset: zeros, one per offset
        zeros = _C.zeros(offsets.shape[0] if indices.dim() == 1 else nbags, dtype=_C.int64)
        return offset2bag, zeros, zeros.clone()
    if mode == 1:
        return offset2bag, bag_size, bag_size.clone()
    # max: per bag and column, the weight row of the first counted index reaching the bag's maximum
    dim = weight.shape[1]
    rows = weight.detach().index_select(0, flat)
    keep = (counted > 0) & live
    rows, bags, ids = rows[keep], offset2bag[keep], flat[keep]
    best = _C.full((nbags, dim), float("-inf"), dtype=weight.dtype).scatter_reduce(
        0, bags.unsqueeze(1).expand(bags.shape[0], dim), rows, "amax", include_self=True)
    hits = rows == best.index_select(0, bags)
    order = _C.where(hits, _C.arange(bags.shape[0], dtype=_C.int64).unsqueeze(1).expand(bags.shape[0], dim),
                     _C.full((bags.shape[0], dim), n, dtype=_C.int64))
    first = _C.full((nbags, dim), n, dtype=_C.int64).scatter_reduce(
        0, bags.unsqueeze(1).expand(bags.shape[0], dim), order, "amin", include_self=True)
    max_indices = _C.where(first < n, ids.index_select(0, first.clamp_max(max(bags.shape[0] - 1, 0)).reshape(-1))
                           .reshape(nbags, dim) if bags.shape[0] else first, _C.zeros_like(first))
    return offset2bag, bag_size, max_indices
