"""Smaller pieces of PyTorch's API written over ember's ops: the top-level forms of some Tensor methods
(detach, zero_, get_device, is_same_size...), range, empty_permuted, index_reduce, histogramdd, the
randomized low-rank SVD/PCA, and the Tensor methods fill_diagonal_, sum_to_size, new, new_empty_strided."""
from __future__ import annotations

import numbers
import warnings

from . import _C
from ._out_arg import write_out
from . import return_types as _rt

__all__ = ["detach", "detach_", "zero_", "get_device", "is_same_size", "is_signed", "is_inference", "is_distributed",
           "init_num_threads", "range", "empty_permuted", "index_reduce", "histogramdd",
           "svd_lowrank", "pca_lowrank", "set_anomaly_enabled", "resize_as_", "to_dlpack", "set_flush_denormal",
           "_assert"]


def _assert(condition, message):
    """`assert condition, message` that tracing can record: a traced value (an fx Proxy, any object
    with __torch_function__) sends the call to its handler, as torch._assert does."""
    if not isinstance(condition, (bool, int, float)):
        from .overrides import handle_torch_function, has_torch_function
        if has_torch_function((condition,)):  # plain tensors do not count
            return handle_torch_function(_assert, (condition,), condition, message)
    assert condition, message


def set_flush_denormal(mode):
    """Denormal float results become 0 and denormal inputs read as 0 (x86's FTZ/DAZ) on this thread and ember's
    worker threads; returns False where the CPU has no such mode (core/csrc/device/denormal.cpp)."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return _C.set_flush_denormal(mode)


def detach(input):
    return input.detach()


def detach_(input):
    return input.detach_()


def zero_(input):
    return input.zero_()


def get_device(input):
    return input.get_device()


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input):
    return input.is_signed()


def is_inference(input):
    return input.is_inference()


def is_distributed(input):
    """False: ember has no distributed tensors."""
    return False


def init_num_threads():
    """Nothing to do: ember's thread pool starts on first use with the configured thread count."""


def to_dlpack(tensor):
    """A DLPack capsule sharing tensor's memory (what tensor.__dlpack__() gives)."""
    return tensor.__dlpack__()


def set_anomaly_enabled(enabled, check_nan=True):
    from .autograd.anomaly_mode import _set
    _set(enabled, check_nan)


_builtin_range = range


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Values from start to end inclusive (PyTorch's deprecated form of arange), in the default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = int((end - start) // step) + 1
    values = _C.arange(count, dtype=_C.float64) * step + start
    result = values.to(dtype or _C.get_default_dtype()).requires_grad_(requires_grad)
    return write_out(out, result) if out is not None else result


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialized tensor of logical shape size whose memory is laid out in physical_layout's dim order."""
    size, order = list(size), list(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    if sorted(order) != list(_builtin_range(len(order))):
        raise RuntimeError(f"Dimension {order} is not a permutation of the dimensions")
    physical = _C.empty([size[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in _builtin_range(len(order))]
    return physical.permute(inverse).requires_grad_(requires_grad)


_INDEX_REDUCTIONS = {"prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin"}


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices along dim reduced (prod, mean, amax, amin) into input's slices at index."""
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    dim = dim + input.dim() if dim < 0 else dim
    if index.numel() != (source.shape[dim] if source.dim() else 1):
        raise IndexError("index_reduce_(): Number of indices should be equal to source.size(dim)")
    shape = [1] * source.dim()
    if source.dim():
        shape[dim] = -1
    full_index = index.reshape(shape).expand(list(source.shape)) if source.dim() else index.reshape([])
    return input.scatter_reduce(dim, full_index, source, _INDEX_REDUCTIONS[reduce], include_self=include_self)


def _index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    return input.copy_(index_reduce(input, dim, index, source, reduce, include_self=include_self))


def histogramdd(input, bins=10, *, range=None, weight=None, density=False, out=None):
    """(hist, bin_edges): the D-dimensional histogram of input's rows (points of D coordinates in the last dim);
    bins an int, one int per dim, or one tensor of edges per dim; range is (min0, max0, min1, max1, ...)."""
    if not input.is_floating_point():
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{str(input.dtype).split('.')[-1]}'")
    if input.dim() < 1:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 1 dimension")
    d = input.shape[-1]
    points = input.reshape(-1, d)
    if isinstance(bins, numbers.Integral):
        bins = [int(bins)] * d
    bins = list(bins)
    if len(bins) != d:
        raise RuntimeError(f"torch.histogramdd: expected {d} sequences of bin edges for each of the {d} dimensions, "
                           f"but got {len(bins)}")
    edges = []
    for k, b in enumerate(bins):
        if isinstance(b, _C.TensorBase):
            edges.append(b.to(input.dtype))
            continue
        if range is not None:
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
        elif points.shape[0]:
            lo, hi = points[:, k].min().item(), points[:, k].max().item()
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(_C.linspace(lo, hi, int(b) + 1, dtype=input.dtype))
    counts = [e.shape[0] - 1 for e in edges]
    flat_index = _C.zeros([points.shape[0]], dtype=_C.int64)
    inside = _C.ones([points.shape[0]], dtype=_C.bool)
    for k, e in enumerate(edges):
        col = points[:, k]
        inside = inside & (col >= e[0]) & (col <= e[-1])
        idx = (_C.searchsorted(e, col.contiguous(), right=True) - 1).clamp(0, max(counts[k] - 1, 0))
        flat_index = flat_index * counts[k] + idx
    w = _C.ones([points.shape[0]], dtype=input.dtype) if weight is None else weight.reshape(-1).to(input.dtype)
    w = _C.where(inside, w, _C.zeros_like(w))
    total = 1
    for c in counts:
        total *= c
    hist = _C.zeros([total], dtype=input.dtype).index_add(0, flat_index, w).reshape(counts)
    if density:
        volume = _C.ones(counts, dtype=input.dtype)
        for k, e in enumerate(edges):
            volume = volume * (e[1:] - e[:-1]).reshape([-1 if i == k else 1 for i in _builtin_range(d)])
        hist = hist / (hist.sum() * volume)
    return _rt.histogramdd(hist, tuple(edges))


def _orthonormal_range(a, q, niter):
    """An orthonormal basis of a's range from q random columns and niter subspace iterations (Halko et al.)."""
    x = _C.randn([a.shape[-1], q], dtype=a.dtype)
    basis = _C._linalg.qr(a @ x).Q
    for _ in _builtin_range(niter):
        basis = _C._linalg.qr(a.mH @ basis).Q
        basis = _C._linalg.qr(a @ basis).Q
    return basis


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) of a rank-q approximation of A (minus M), by randomized range finding and subspace iteration."""
    if not isinstance(q, numbers.Integral) or q < 0:
        raise ValueError(f"q(={q}) must be non-negative integer")
    a = A if M is None else A - M
    m, n = a.shape[-2], a.shape[-1]
    q = min(q, m, n)
    transpose = m < n
    if transpose:
        a = a.mH
    basis = _orthonormal_range(a, q, niter)
    u, s, vh = _C._linalg.svd(basis.mH @ a, full_matrices=False)
    u = basis @ u
    v = vh.mH
    return (v, s, u) if transpose else (u, s, v)


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of svd_lowrank applied to A with its column means removed (center=True)."""
    m, n = A.shape[-2], A.shape[-1]
    q = min(6, m, n) if q is None else q
    if not (0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter)
    return svd_lowrank(A - A.mean(-2, keepdim=True), q, niter)


def _fill_diagonal_(self, fill_value, wrap=False):
    """Writes fill_value on the main diagonal (all indices equal); a tall 2-D matrix restarts it every
    (cols + 1) rows with wrap=True, as NumPy's fill_diagonal."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    if self.dim() == 2 and wrap and self.shape[0] > self.shape[1] + 1:
        rows = [r for r in _builtin_range(self.shape[0]) if r % (self.shape[1] + 1) < self.shape[1]]
        cols = [r % (self.shape[1] + 1) for r in rows]
        self[_C.tensor(rows, dtype=_C.int64), _C.tensor(cols, dtype=_C.int64)] = fill_value
        return self
    idx = _C.arange(n)
    self[(idx,) * self.dim()] = fill_value
    return self


def _sum_to_size(self, *size):
    """self summed over the dims that broadcasting would expand to self's shape from size."""
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = tuple(size[0])
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    out = self.sum(list(_builtin_range(lead))) if lead else self
    keep = [i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1]
    return out.sum(keep, keepdim=True) if keep else out


def _new(self, *args, **kwargs):
    """The legacy constructor (sizes, data, a tensor of self's dtype, or nothing) in self's dtype."""
    from ._legacy_tensor_types import legacy_new
    return legacy_new(self.dtype, args, kwargs)


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                       pin_memory=False):
    """Uninitialized memory with the given sizes and strides (self's dtype and device by default)."""
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    extent = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(s > 0 for s in size) else 0
    base = _C.empty([extent], dtype=dtype or self.dtype, device=device or self.device)
    return base.as_strided(size, stride).requires_grad_(requires_grad)


def _is_nonzero(self):
    if self.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def _prelu(self, weight):
    from .nn import functional as F
    return F.prelu(self, weight)


def _sizes(args):
    return list(args[0]) if len(args) == 1 and not isinstance(args[0], numbers.Integral) else list(args)


def _resize_inplace(self, *sizes):
    """Gives self the shape sizes (contiguous strides), growing its storage when needed; memory not
    covered before is uninitialized (filled under deterministic mode)."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    return self._resize_(_sizes(sizes))


def resize_as_(input, the_template):
    return _resize_inplace(input, list(the_template.shape))


def _resize(self, *sizes):
    """The deprecated out-of-place resize: a reshape that keeps the number of elements."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    sizes = _sizes(sizes)
    n = 1
    for s in sizes:
        n *= s
    if n != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in total), but the given "
                           f"tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the "
                           "number of elements. ")
    return self.contiguous().view(sizes)


def _resize_as(self, tensor):
    return _resize(self, list(tensor.shape))


def _as_subclass(self, cls):
    """An alias of self (same memory, attached to its autograd graph) whose class is cls."""
    if not (isinstance(cls, type) and issubclass(cls, _C.TensorBase)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    out = self.view_as(self)
    out.__class__ = cls
    return out


class MiscMethods:
    """Tensor methods PyTorch has beside the functions above."""
    fill_diagonal_ = _fill_diagonal_
    sum_to_size = _sum_to_size
    new = _new
    new_empty_strided = _new_empty_strided
    is_nonzero = _is_nonzero
    is_same_size = is_same_size
    is_distributed = is_distributed
    index_reduce = index_reduce
    index_reduce_ = _index_reduce_
    prelu = _prelu
    as_subclass = _as_subclass
    resize_ = _resize_inplace
    resize_as_ = resize_as_
    resize = _resize
    resize_as = _resize_as
