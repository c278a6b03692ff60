"""unique and unique_consecutive: thin wrappers over the C++ ops (_unique2, _unique_dim,
_unique_consecutive) that return a tensor or a tuple depending on the flags, as PyTorch does."""
from . import _C

__all__ = ["unique", "unique_consecutive"]


def _pick(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of input (or distinct slices along dim), sorted; optionally the index of
    each input element in the output (return_inverse) and how often each occurs (return_counts)."""
    if dim is None:
        res = _C._unique2(input, sorted, return_inverse, return_counts)
    else:
        res = _C._unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _pick(*res, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses every run of consecutive equal elements (or slices along dim) to one."""
    res = _C._unique_consecutive(input, return_inverse, return_counts, dim)
    return _pick(*res, return_inverse, return_counts)


class SortMethods:
    """Tensor methods of the Python-level sort ops."""

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return unique_consecutive(self, return_inverse, return_counts, dim)
