"""Tensor methods for Python protocols: copy/deepcopy/pickle, reversed(), `in`, complex(), and
NumPy ufuncs on tensors giving tensors back (__array_wrap__), as PyTorch's tensors do."""
import numbers

from . import _C


def _rebuild(raw, dtype_name, shape, strides):
    """A tensor from _reduce's bytes (the dense memory block of the pickled tensor)."""
    import numpy as np
    flat = _C.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())
    flat = flat.view(getattr(_C, dtype_name))
    return _C.as_strided(flat, shape, strides, 0)


class ProtocolMethods:
    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = self.clone()
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        """Pickles the values with the dtype, shape and (dense) strides; a copy shares nothing."""
        if self.is_meta:
            raise RuntimeError("can't pickle a meta tensor: it has no data")
        if self.device.type != "cpu":
            raise RuntimeError(f"can't pickle a {self.device.type} tensor: copy it to the CPU first with .cpu()")
        dense = self.clone()  # dense, in this tensor's dim order, offset 0
        block = dense.as_strided((dense.numel(),), (1,), 0).view(_C.uint8)
        raw = bytes(block.numpy()) if block.numel() else b""
        name = repr(self.dtype).split(".", 1)[1]
        return _rebuild, (raw, name, tuple(self.shape), tuple(dense.stride()))

    def __reversed__(self):
        """The tensor flipped along dim 0 (a 0-dim tensor itself)."""
        return self if self.dim() == 0 else self.flip(0)

    def __contains__(self, element):
        """`x in t`: whether any element of t equals x (a number, or a tensor broadcast against t)."""
        if not isinstance(element, (_C.TensorBase, numbers.Number)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element)}.")
        eq = self == element
        return not _C.equal(eq, _C.zeros_like(eq))

    def __complex__(self):
        if self.numel() != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars (got {self.numel()} "
                             f"elements for complex())")
        return complex(self.item())

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """np.sin(t), np.add(t, 1) and t + ndarray (computed by NumPy) come back as tensors."""
        if any(s < 0 for s in array.strides):
            array = array.copy()
        try:
            return _C.from_numpy(array)
        except TypeError:  # a NumPy dtype ember lacks (uint16, ...): leave it an array
            return array
