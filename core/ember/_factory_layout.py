"""The `layout=` argument of the factory functions (ember.zeros(..., layout=ember.strided)): strided (or None)
makes the dense tensor; zeros, empty and zeros_like also make an all-zero sparse COO or CSR tensor, as PyTorch's
do; the other factories refuse a sparse layout with PyTorch's error for them."""
import functools

from ._layout import layout as _layout_type, sparse_coo, sparse_csr, strided

# factory -> the op PyTorch reports as having no sparse kernel when given a sparse layout
_NO_SPARSE_KERNEL = {
    "rand": "uniform_", "randn": "normal_", "randint": "random_.from", "randperm": "randperm.generator_out",
    "arange": "arange.start_out", "range": "range.out", "linspace": "linspace.out", "logspace": "logspace.out",
    "eye": "eye.m_out", "empty_strided": "empty_strided", "tril_indices": "tril_indices",
    "triu_indices": "triu_indices", "empty_like": "empty_strided", "ones_like": "empty_strided",
    "full_like": "empty_strided", "rand_like": "empty_strided", "randn_like": "empty_strided",
    "randint_like": "empty_strided"}
_FULL = ("ones", "full")  # PyTorch: "full(...) is not implemented for sparse layout"
_SPARSE_ZEROS = ("zeros", "empty", "zeros_like")


def _size(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tuple(args[0])
    return tuple(args)


def _sparse_zeros(name, fn, args, kwargs, layout):
    """The all-zero (no stored entries) sparse tensor of the factory's size and dtype."""
    from . import _C
    from .sparse._tensor import make_coo, make_csr
    like = fn(*args, **kwargs)  # the dense result gives size, dtype and the argument checks
    size = tuple(like.shape)
    if layout is sparse_coo:
        return make_coo(_C.empty([len(size), 0], dtype=_C.int64), _C.empty([0], dtype=like.dtype), size, True)
    if len(size) != 2:
        raise RuntimeError(f"torch.empty: Only batched sparse compressed (non-block) tensors are supported, but got "
                           f"size {list(size)}")
    return make_csr(_C.zeros([size[0] + 1], dtype=_C.int64), _C.empty([0], dtype=_C.int64),
                    _C.empty([0], dtype=like.dtype), size)


def _with_layout(name, fn):
    @functools.wraps(fn)
    def factory(*args, layout=None, **kwargs):
        if layout is None or layout is strided:
            return fn(*args, **kwargs)
        if not isinstance(layout, _layout_type):
            raise TypeError(f"{name}(): argument 'layout' must be ember.layout, not {type(layout).__name__}")
        if name in _SPARSE_ZEROS and layout in (sparse_coo, sparse_csr):
            return _sparse_zeros(name, fn, args, kwargs, layout)
        if name in _FULL:
            raise RuntimeError("full(...) is not implemented for sparse layout")
        from .sparse._tensor import not_on_sparse
        raise not_on_sparse(_NO_SPARSE_KERNEL[name], layout)
    return factory


def add_layout_argument(namespace):
    """Rebinds each factory of namespace (ember's globals) to its form that takes layout=."""
    for name in (*_SPARSE_ZEROS, *_FULL, *_NO_SPARSE_KERNEL):
        if name in namespace:
            namespace[name] = _with_layout(name, namespace[name])
