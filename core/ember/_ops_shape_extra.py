"""PyTorch's shape and index helpers written over ember's ops (views, cat, index_select, in-place copies
into views of a clone), so autograd comes from the parts: broadcasting, atleast_nd, block_diag,
meshgrid and products, triangle indices, splits, rot90, the diag family, the *_scatter ops,
argwhere, unravel_index and repeat_interleave."""
from __future__ import annotations

import itertools
import numbers
import warnings

from . import _C

__all__ = ["broadcast_to", "broadcast_shapes", "broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d",
           "block_diag", "cartesian_prod", "combinations", "meshgrid", "tril_indices", "triu_indices", "tensor_split",
           "hsplit", "vsplit", "dsplit", "rot90", "diag", "diag_embed", "diagflat", "diagonal_scatter",
           "select_scatter", "slice_scatter", "as_strided_scatter", "argwhere", "unravel_index", "repeat_interleave",
           "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"]


def broadcast_to(input, size):
    return input.expand(size)


def broadcast_shapes(*shapes):
    """The shape all of shapes broadcast to (each an int or a sequence of ints), without tensors."""
    from ._size import Size
    dims = [(s,) if isinstance(s, numbers.Integral) else tuple(s) for s in shapes]
    out = [1] * max((len(d) for d in dims), default=0)
    for i, d in enumerate(dims):
        for k, n in enumerate(reversed(d)):
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(d)}")
            cur = out[-1 - k]
            if n != cur and n != 1 and cur != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {-1 - k}! Mismatching "
                                   f"argument at index {i} had {tuple(d)}; but expected shape should be broadcastable "
                                   f"to {out}")
            if cur == 1:
                out[-1 - k] = n
    return Size(out)


def _tensor_list(tensors, name):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.TensorBase):
            raise TypeError(f"{name}(): argument 'tensors' (position {i + 1}) must be tuple of Tensors, not "
                            f"{type(t).__name__}")
    return tensors


def broadcast_tensors(*tensors):
    tensors = _tensor_list(tensors, "broadcast_tensors")
    shape = list(tensors[0].shape) if tensors else []
    for t in tensors[1:]:
        shape = list((_C.empty(shape) + _C.empty(list(t.shape))).shape) if t.shape != tuple(shape) else shape
    return tuple(t.expand(shape) for t in tensors)


def _atleast(name, tensors, fix):
    single = len(tensors) == 1 and isinstance(tensors[0], _C.TensorBase)
    out = tuple(fix(t) for t in _tensor_list(tensors, name))
    return out[0] if single else out


def atleast_1d(*tensors):
    return _atleast("atleast_1d", tensors, lambda t: t.reshape(1) if t.dim() == 0 else t)


def atleast_2d(*tensors):
    return _atleast("atleast_2d", tensors, lambda t: t.reshape(1, 1) if t.dim() == 0 else
                    t.unsqueeze(0) if t.dim() == 1 else t)


def atleast_3d(*tensors):
    def fix(t):
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        return t.unsqueeze(-1) if t.dim() == 2 else t
    return _atleast("atleast_3d", tensors, fix)


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D) along the diagonal of one matrix of their promoted dtype, zeros elsewhere."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return _C.empty([1, 0])
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = _C.promote_types(dtype, b.dtype)
    cols = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [_C.zeros([r, left], dtype=dtype), b.to(dtype), _C.zeros([r, cols - left - c], dtype=dtype)]
        rows.append(_C.cat(parts, 1))
        left += c
    return _C.cat(rows, 0)


def _check_1d(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors):
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of input's elements (rows of the result), as itertools orders them."""
    _check_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _C.empty([0], dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(pick(range(input.shape[0]), r))
    if not idx:
        return _C.empty([0, r], dtype=input.dtype)
    return input[_C.tensor(idx, dtype=_C.int64)]


def meshgrid(*tensors, indexing=None):
    tensors = _tensor_list(tensors, "meshgrid")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                               f"shape {list(t.shape)}")
    flat = [t.reshape(-1) for t in tensors]
    shape = [t.shape[0] for t in flat]
    grids = [t.reshape([-1 if i == k else 1 for i in range(len(flat))]).expand(shape) for k, t in enumerate(flat)]
    if indexing == "xy" and len(flat) >= 2:  # Cartesian: the first two output dims swap
        grids = [g.transpose(0, 1) for g in grids]
    return tuple(grids)


def _tri_indices(name, row, col, offset, dtype, device, keep):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    mask = keep(_C.ones([row, col], dtype=_C.bool), offset)
    out = mask.nonzero().t().contiguous()
    return out.to(dtype or _C.int64, device=device) if dtype is not None or device is not None else out


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """(2, N) indices of the lower triangle (at or below diagonal offset) in row-major order."""
    return _tri_indices("tril_indices", row, col, offset, dtype, device, lambda m, k: m.tril(k))


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices("triu_indices", row, col, offset, dtype, device, lambda m, k: m.triu(k))


def tensor_split(input, indices_or_sections, dim=0):
    """Views of input split into n near-equal parts (the first size % n one longer) or at the indices."""
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    if isinstance(indices_or_sections, _C.TensorBase):
        t = indices_or_sections
        if t.dtype != _C.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_dtype_title(t.dtype)}")
        if t.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t.dim()} dims")
        indices_or_sections = t.item() if t.dim() == 0 else t.tolist()
    dim = dim + input.dim() if dim < 0 else dim
    size = input.shape[dim]
    if isinstance(indices_or_sections, numbers.Integral):
        n = int(indices_or_sections)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        bounds = list(itertools.accumulate([base + 1] * extra + [base] * (n - extra), initial=0))
    else:
        bounds = [0] + [min(max(i + size if i < 0 else i, 0), size) for i in indices_or_sections] + [size]
    return tuple(input.narrow(dim, s, max(e - s, 0)) if e > s else input.narrow(dim, min(s, size), 0)
                 for s, e in zip(bounds[:-1], bounds[1:]))


def _dtype_title(dtype):
    return {"float32": "Float", "float64": "Double", "int32": "Int", "bool": "Bool", "float16": "Half",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bfloat16": "BFloat16"}.get(
        str(dtype).split(".")[-1], str(dtype))


def _directional_split(name, input, sections, dim, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(sections, numbers.Integral):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    if input.dim() == 0:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 "
                           "dimensions!")
    return _directional_split("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    return _directional_split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _directional_split("dsplit", input, indices_or_sections, 2, 3)


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by k quarter turns in the plane of dims, from the first dim towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (d + input.dim() if d < 0 else d for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor one dim larger whose (dim1, dim2) diagonal `offset` holds input's last dim, zeros elsewhere."""
    nd = input.dim() + 1
    d1, d2 = (d + nd if d < 0 else d for d in (dim1, dim2))
    if not (0 <= d1 < nd and 0 <= d2 < nd):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
                         f"{dim1 if not 0 <= d1 < nd else dim2})")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] + abs(offset) if input.dim() else 1 + abs(offset)
    x = input if input.dim() else input.reshape(1)
    out = _C.zeros(list(x.shape[:-1]) + [n, n], dtype=x.dtype)
    out.diagonal(offset, -2, -1).copy_(x)
    return out.movedim([nd - 2, nd - 1], [d1, d2])


def diag(input, diagonal=0):
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return input.diagonal(diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def diagflat(input, offset=0):
    return diag_embed(input.reshape(-1), offset)


def _scatter_into(input, src, view):
    out = input.clone()
    target = view(out)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(target.shape)}")
    target.copy_(src)
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of input with src written into its diagonal(offset, dim1, dim2)."""
    return _scatter_into(input, src, lambda t: t.diagonal(offset, dim1, dim2))


def select_scatter(input, src, dim, index):
    return _scatter_into(input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    dim = dim + input.dim() if dim < 0 else dim
    key = (slice(None),) * dim + (slice(start, end, step),)
    return _scatter_into(input, src, lambda t: t[key])


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A contiguous copy of input with src written into its as_strided(size, stride, storage_offset) view."""
    out = input.contiguous().clone() if input.is_contiguous() else input.contiguous()
    target = out.as_strided(size, stride, storage_offset or 0)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(target.shape)}")
    target.copy_(src)
    return out


def argwhere(input):
    return input.nonzero()


def unravel_index(indices, shape):
    """The coordinates, in a tensor of the given shape, of flat (row-major) indices; a tuple of tensors."""
    if not isinstance(indices, _C.TensorBase):
        indices = _C.tensor(indices)
    if indices.is_floating_point() or indices.is_complex() or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = [shape] if isinstance(shape, numbers.Integral) else list(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    flat = indices.to(_C.int64)
    total = 1
    for s in shape:
        total *= s
    flat = _C.where(flat < 0, flat + total, flat)
    coords = []
    for s in reversed(shape):
        coords.append(flat.remainder(s) if s else flat * 0)
        flat = flat.div(s, rounding_mode="floor") if s else flat
    return tuple(reversed(coords))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along dim) repeated `repeats` times (an int or one count per element);
    repeat_interleave(repeats) alone gives each index i repeats[i] times."""
    if repeats is None:
        repeats, input = input, _C.arange(input.shape[0] if input.dim() else 1)
        dim = 0
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = dim + input.dim() if dim < 0 else dim
    n = input.shape[dim] if input.dim() else 1
    if isinstance(repeats, _C.TensorBase) and repeats.numel() == 1 and repeats.dim() <= 1 and n != 1:
        repeats = int(repeats.item())
    if isinstance(repeats, numbers.Integral):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        counts = _C.full([n], int(repeats), dtype=_C.int64)
    else:
        counts = repeats.reshape(-1).to(_C.int64)
        if counts.shape[0] != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.shape[0]} and input.size(0) = {n}")
        if counts.numel() and counts.min().item() < 0:
            raise RuntimeError("repeats can not be negative")
    ends = counts.cumsum(0)
    total = int(ends[-1].item()) if n else 0
    if output_size is not None and output_size != total:
        raise RuntimeError(f"allocated size does not match required size: {output_size} vs {total}")
    index = _C.searchsorted(ends, _C.arange(total), right=True)
    return input.index_select(dim, index)


def unsafe_chunk(input, chunks, dim=0):
    return input.chunk(chunks, dim)


def unsafe_split(input, split_size, dim=0):
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return input.split_with_sizes(split_sizes, dim)


class ShapeMethods:
    """The Tensor methods of these functions (PyTorch has them as methods too)."""
    broadcast_to = broadcast_to
    tensor_split = tensor_split
    hsplit = hsplit
    vsplit = vsplit
    dsplit = dsplit
    rot90 = rot90
    diag = diag
    diag_embed = diag_embed
    diagflat = diagflat
    diagonal_scatter = diagonal_scatter
    select_scatter = select_scatter
    slice_scatter = slice_scatter
    as_strided_scatter = as_strided_scatter
    argwhere = argwhere
    repeat_interleave = repeat_interleave
    unsafe_chunk = unsafe_chunk
    unsafe_split = unsafe_split
    unsafe_split_with_sizes = unsafe_split_with_sizes
