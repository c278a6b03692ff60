"""Tensor.tolist() in scripted code: as in TorchScript, only where the result's type is annotated
(`xs: List[float] = t.tolist()`), since a tensor's dimension count and dtype are not known when compiling.
One- and two-dimensional lists of int, float and bool; a tensor of another dimension count is a RuntimeError."""
from typing import List

from ember import Tensor


def _check_dim(t: Tensor, want: int):
    if t.dim() != want:
        raise RuntimeError(f"tolist: the annotated result has {want} dimensions, the tensor has {t.dim()}")


def tolist_float(t: Tensor) -> List[float]:
    _check_dim(t, 1)
    return [float(t[i]) for i in range(t.size(0))]


def tolist_int(t: Tensor) -> List[int]:
    _check_dim(t, 1)
    return [int(t[i]) for i in range(t.size(0))]


def tolist_bool(t: Tensor) -> List[bool]:
    _check_dim(t, 1)
    return [bool(t[i]) for i in range(t.size(0))]


def tolist_float2(t: Tensor) -> List[List[float]]:
    _check_dim(t, 2)
    return [[float(t[i, j]) for j in range(t.size(1))] for i in range(t.size(0))]


def tolist_int2(t: Tensor) -> List[List[int]]:
    _check_dim(t, 2)
    return [[int(t[i, j]) for j in range(t.size(1))] for i in range(t.size(0))]


def tolist_bool2(t: Tensor) -> List[List[bool]]:
    _check_dim(t, 2)
    return [[bool(t[i, j]) for j in range(t.size(1))] for i in range(t.size(0))]


# the annotated type's text -> the script version that builds it
TOLIST = {"List[float]": tolist_float, "List[int]": tolist_int, "List[bool]": tolist_bool,
          "List[List[float]]": tolist_float2, "List[List[int]]": tolist_int2, "List[List[bool]]": tolist_bool2}
