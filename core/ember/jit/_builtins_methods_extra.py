"""Script versions of Tensor methods that are method-only in the op database (so outside the op table the
interpreter calls): unfold and repeat_interleave (by an int count), and the dtype-conversion methods (long,
int, short, char, byte, double, float, half, bfloat16, bool: Tensor.to with that dtype), over ops that are in
it, with the same values and gradients. repeat and to are in _builtins_tensor_new and _builtins_tensor_to."""
from __future__ import annotations

from typing import Optional

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


def float_(self: Tensor) -> Tensor:
    return self.to(ember.float32)


def bfloat16(self: Tensor) -> Tensor:
    return self.to(ember.bfloat16)


def byte(self: Tensor) -> Tensor:
    return self.to(ember.uint8)


def char(self: Tensor) -> Tensor:
    return self.to(ember.int8)


def short(self: Tensor) -> Tensor:
    return self.to(ember.int16)


# name -> (script version, whether its int arguments may come one by one as *sizes)
METHODS = {"unfold": (unfold, False), "repeat_interleave": (repeat_interleave, False), "long": (long, False),
           "int": (int_, False), "short": (short, False), "char": (char, False), "byte": (byte, False),
           "double": (double, False), "float": (float_, False), "half": (half, False), "bfloat16": (bfloat16, False),
           "bool": (bool_, False)}


def method_function_impls() -> dict:
    """The ember functions of the same name: ember.repeat_interleave(x, 2, dim)."""
    return {ember.repeat_interleave: repeat_interleave}
