"""Script versions of small ember functions and Tensor methods whose eager forms are outside the op table
(ember._assert dispatches traced values to their handlers; F.relu6 is Python over hardtanh; Tensor.expand
and Tensor.view are C++ methods with no op-table entry)."""
from __future__ import annotations

from typing import Any, List, Optional

import ember
import ember.nn.functional as F
from ember import Tensor

from ._builtins_language_extra import tensor_type
from ._builtins_methods_extra import METHODS
from ._builtins_tensor_new import NEW_TENSOR_METHODS
from ._builtins_tensor_to import to as tensor_to


def _assert(condition: Any, message: str):
    assert condition, message


def relu6(input, inplace: bool = False):
    return F.hardtanh(input, 0.0, 6.0, inplace)


def expand(self, sizes: List[int]):
    # the values of self.expand(sizes) (-1 keeps a dim): a tiled copy, since the graph has no view op for it
    lead = len(sizes) - self.dim()
    if lead < 0:
        raise RuntimeError("expand: the number of sizes provided must be greater or equal to the number of "
                           "dimensions in the tensor")
    reps: List[int] = []
    for i in range(len(sizes)):
        if i < lead:
            reps.append(sizes[i])
        elif sizes[i] == -1 or sizes[i] == self.size(i - lead):
            reps.append(1)
        elif self.size(i - lead) == 1:
            reps.append(sizes[i])
        else:
            raise RuntimeError("expand: the expanded size must match the existing size at a non-singleton dimension")
    return ember.tile(self, reps)


def tensor(data: Any, dtype: Optional[int] = None, device: Optional[str] = None):
    # ember.tensor of a list of numbers: float32 for floats, int64 for ints (or dtype), one element at a time
    if isinstance(data, List[float]):
        kind = ember.float32
    elif isinstance(data, List[int]):
        kind = ember.int64
    else:
        raise TypeError("ember.tensor in scripted code takes a list of ints or of floats")
    if dtype is not None:
        kind = dtype
    if len(data) == 0:
        return ember.zeros([0], dtype=kind, device=device)
    return ember.stack([ember.scalar_tensor(v, dtype=kind, device=device) for v in data])


def expand_as(self, other):
    return expand(self, other.shape)


def is_floating_point(self) -> bool:
    d = self.dtype
    return d == ember.float16 or d == ember.bfloat16 or d == ember.float32 or d == ember.float64


def as_tensor(data: Any, dtype: Optional[int] = None, device: Optional[str] = None):
    if isinstance(data, Tensor):
        if dtype is not None:
            data = data.to(dtype)
        if device is not None and data.device != device:  # devices are strings in scripted code
            data = data.to(device=device)
        return data
    return tensor(data, dtype, device)


def contiguous(self):
    return ember.reshape(self, self.shape)  # self when it is contiguous; the graph's ops take any strides


def view(self, sizes: List[int]):
    return ember.reshape(self, sizes)


def misc_impls() -> dict:
    return {ember._assert: _assert, F.relu6: relu6, ember.tensor: tensor, ember.as_tensor: as_tensor}


# Tensor methods by name -> (script version, whether its int arguments may come one by one as *sizes)
TENSOR_METHODS = {"expand": (expand, True), "view": (view, True), "expand_as": (expand_as, False),
                  "is_floating_point": (is_floating_point, False), "contiguous": (contiguous, False),
                  **METHODS, **NEW_TENSOR_METHODS, "to": (tensor_to, False), "type": (tensor_type, False)}
