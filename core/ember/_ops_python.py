"""Ops written in Python on top of the C++ ones (keep this small: compose, don't compute)."""
from . import _C
from ._tensor_views import split  # int or list of sizes: picks split / split_with_sizes

__all__ = ["is_tensor", "numel", "split"]


def is_tensor(obj):
    return isinstance(obj, _C.TensorBase)


def numel(input):
    return input.numel()
