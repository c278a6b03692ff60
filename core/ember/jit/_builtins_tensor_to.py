"""Tensor.to in scripted code with any of its forms: to(dtype), to(device), to(other) (other's dtype and device),
to(device, dtype) and the dtype=/device=/copy= keywords. As in eager code, the tensor itself when nothing
changes (and copy is False), else a converted copy (devices are strings in scripted code)."""
from typing import Any, Optional

from ._ops import aten
from ember import Tensor


def to(self, other: Any = None, second: Optional[int] = None, dtype: Optional[int] = None,
       device: Optional[str] = None, non_blocking: bool = False, copy: bool = False):
    if isinstance(other, Tensor):
        dtype = other.dtype
        device = other.device
    elif isinstance(other, int):
        dtype = other
    elif isinstance(other, str):
        device = other
        if second is not None:
            dtype = second
    if (dtype is None or dtype == self.dtype) and (device is None or device == self.device) and not copy:
        return self
    return aten._to_copy(self, dtype=dtype, device=device)
