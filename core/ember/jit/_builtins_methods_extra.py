"""Script versions of Tensor methods that are method-only in the op database (so outside the op table the
interpreter calls): unfold, repeat and repeat_interleave (by an int count), and the dtype-conversion methods
(long, int, double, bool, half and to with a dtype keyword), over ops that are in it, with the same values
and gradients."""
from __future__ import annotations

from typing import List, Optional

import ember
from ember import Tensor


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold (a method-only view, outside the op table): the same windows gathered by index, so the
    values (and gradients) are the view's."""
    d = dimension + max(self.dim(), 1) if dimension < 0 else dimension
    length = self.size(d) if self.dim() > 0 else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (length - size) // step + 1
    index = (ember.arange(count) * step).unsqueeze(1) + ember.arange(size).unsqueeze(0)
    picked = self.index_select(d, index.reshape([-1]))
    shape = self.shape
    windows = picked.reshape(shape[:d] + [count, size] + shape[d + 1:])
    return windows.movedim(d + 1, -1)


def repeat(self: Tensor, sizes: List[int]) -> Tensor:
    """Tensor.repeat: the tensor tiled sizes[i] times along each dim (leading dims added), as ember.tile."""
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    return ember.tile(self, sizes)


def repeat_interleave(self: Tensor, repeats: int, dim: Optional[int] = None,
                      output_size: Optional[int] = None) -> Tensor:
    """Each slice along dim (of the flattened tensor when None) repeated `repeats` times, by index_select as the
    eager function does."""
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    x = self.reshape([-1]) if dim is None else self
    d = 0 if dim is None else dim
    d = d + x.dim() if d < 0 else d
    n = x.size(d) if x.dim() > 0 else 1
    total = n * repeats
    if output_size is not None and output_size != total:
        raise RuntimeError(f"allocated size does not match required size: {output_size} vs {total}")
    index = ember.arange(n).unsqueeze(1).expand([n, repeats]).reshape([-1])
    return x.index_select(d, index)


def long(self: Tensor) -> Tensor:
    return self.to(ember.int64)


def int_(self: Tensor) -> Tensor:
    return self.to(ember.int32)


def double(self: Tensor) -> Tensor:
    return self.to(ember.float64)


def bool_(self: Tensor) -> Tensor:
    return self.to(ember.bool)


def half(self: Tensor) -> Tensor:
    return self.to(ember.float16)


def to(self: Tensor, dtype: Optional[int] = None, non_blocking: bool = False, copy: bool = False) -> Tensor:
    """Tensor.to(dtype=...) by keyword (a positional dtype compiles to _to_copy directly)."""
    if dtype is None:
        return self.clone() if copy else self
    if copy:
        return self.to(dtype).clone()
    return self.to(dtype)


# name -> (script version, whether its int arguments may come one by one as *sizes)
METHODS = {"unfold": (unfold, False), "repeat": (repeat, True), "long": (long, False), "int": (int_, False),
           "double": (double, False), "bool": (bool_, False), "half": (half, False), "to": (to, False),
           "repeat_interleave": (repeat_interleave, False)}


def method_function_impls() -> dict:
    """The ember functions of the same name: ember.repeat_interleave(x, 2, dim)."""
    return {ember.repeat_interleave: repeat_interleave}
