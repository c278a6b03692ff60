"""Advanced indexing of tensors in scripted code, as eager indexing does it: a bool (or uint8) mask selects
the positions where it is set over as many dims as it has; an integer tensor picks positions (negative ones
from the end, out-of-range ones an IndexError); several integer tensors at adjacent positions are broadcast
together and pick elements jointly (x[rows, cols]). The compiler applies the basic items (ints, slices, None)
first, then one of these (_exprs_containers.tensor_index)."""
from typing import List

import ember
from ember import Tensor


def _wrapped(idx: Tensor, size: int, dim: int) -> Tensor:
    if idx.is_floating_point() or idx.dtype == ember.bool:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    idx = idx.to(ember.int64)
    if idx.numel() > 0:
        if bool((idx >= size).any()) or bool((idx < -size).any()):
            outside = (idx >= size) | (idx < -size)
            bad = int(ember.masked_select(idx, outside).reshape(-1)[0])  # (no tensor indexing here: it is this)
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return ember.where(idx < 0, idx + size, idx)


def index_one(t: Tensor, dim: int, idx: Tensor, trailing: bool) -> Tensor:
    """t[..., idx] with idx at dim (dim items before it); trailing: basic items came after it."""
    sizes = t.shape
    if idx.dtype == ember.bool or idx.dtype == ember.uint8:
        m = idx.dim()
        if m != 1 and trailing:
            raise IndexError("a mask of more than one dimension followed by more indices is not supported in "
                             "scripted code")
        if dim + m > len(sizes):
            raise IndexError(f"too many indices for tensor of dimension {len(sizes)}")
        for k in range(m):
            if idx.shape[k] != sizes[dim + k]:
                raise IndexError(f"The shape of the mask {idx.shape} at index {k} does not match the shape of the "
                                 f"indexed tensor {sizes} at index {dim + k}")
        flat = t.reshape(sizes[:dim] + [-1] + sizes[dim + m:])
        picks = ember.nonzero(idx.reshape(-1)).reshape(-1)
        return ember.index_select(flat, dim, picks)
    pos = _wrapped(idx.reshape(-1), sizes[dim], dim)
    return ember.index_select(t, dim, pos).reshape(sizes[:dim] + idx.shape + sizes[dim + 1:])


def index_many(t: Tensor, dim: int, idxs: List[Tensor]) -> Tensor:
    """t[..., i0, i1, ...] with integer tensors at adjacent dims from dim: broadcast, joined to one index into
    those dims flattened."""
    sizes = t.shape
    k = len(idxs)
    if dim + k > len(sizes):
        raise IndexError(f"too many indices for tensor of dimension {len(sizes)}")
    shape_of = idxs[0] * 0
    for idx in idxs[1:]:
        shape_of = shape_of + idx * 0  # the broadcast shape of the indices
    linear = ember.zeros(shape_of.shape, dtype=ember.int64, device=t.device)
    for j, idx in enumerate(idxs):
        size = sizes[dim + j]
        linear = linear * size + _wrapped(idx.expand(shape_of.shape), size, dim + j)
    flat = t.reshape(sizes[:dim] + [-1] + sizes[dim + k:])
    return ember.index_select(flat, dim, linear.reshape(-1)).reshape(sizes[:dim] + shape_of.shape + sizes[dim + k:])


def index_put(t: Tensor, idxs: List[Tensor], value: Tensor) -> None:
    """t[idxs] = value (the indices from t's first dim): written in place, as eager item assignment."""
    ember.index_put_(t, idxs, value.to(t.dtype))
