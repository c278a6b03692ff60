"""Script versions of the Tensor methods that make a new tensor like another one (new_full, new_zeros,
new_ones, new_empty, new_tensor): self's dtype and device unless given (devices are strings in scripted
code), as eager Tensor.new_* do."""
from typing import Any, List, Optional

import ember


def new_full(self, size: List[int], fill_value: float, dtype: Optional[int] = None, device: Optional[str] = None,
             requires_grad: bool = False):
    kind = self.dtype if dtype is None else dtype
    where = self.device if device is None else device
    return ember.full(size, fill_value, dtype=kind, device=where, requires_grad=requires_grad)


def new_zeros(self, size: List[int], dtype: Optional[int] = None, device: Optional[str] = None,
              requires_grad: bool = False):
    kind = self.dtype if dtype is None else dtype
    where = self.device if device is None else device
    return ember.zeros(size, dtype=kind, device=where, requires_grad=requires_grad)


def new_ones(self, size: List[int], dtype: Optional[int] = None, device: Optional[str] = None,
             requires_grad: bool = False):
    kind = self.dtype if dtype is None else dtype
    where = self.device if device is None else device
    return ember.ones(size, dtype=kind, device=where, requires_grad=requires_grad)


def new_empty(self, size: List[int], dtype: Optional[int] = None, device: Optional[str] = None,
              requires_grad: bool = False):
    kind = self.dtype if dtype is None else dtype
    where = self.device if device is None else device
    return ember.empty(size, dtype=kind, device=where, requires_grad=requires_grad)


def new_tensor(self, data: Any, dtype: Optional[int] = None, device: Optional[str] = None):
    kind = self.dtype if dtype is None else dtype
    where = self.device if device is None else device
    return ember.tensor(data, dtype=kind, device=where)


def repeat(self, sizes: List[int]):
    """Tensor.repeat: self tiled sizes[i] times along each dim (leading dims added when sizes is longer), by
    an expand of a view with a unit dim before each of self's, then one reshape (a new tensor, as eager's)."""
    n = len(sizes)
    if n < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    shape = [1 for _ in range(n - self.dim())] + self.shape
    spread: List[int] = []
    tiled: List[int] = []
    out: List[int] = []
    for i in range(n):
        spread += [1, shape[i]]
        tiled += [sizes[i], shape[i]]
        out.append(sizes[i] * shape[i])
    return self.reshape(spread).expand(tiled).reshape(out)


# name -> (script version, whether its int arguments may come one by one as *sizes)
NEW_TENSOR_METHODS = {"new_full": (new_full, False), "new_zeros": (new_zeros, True), "new_ones": (new_ones, True),
                      "new_empty": (new_empty, True), "new_tensor": (new_tensor, False),
                      "repeat": (repeat, True)}
