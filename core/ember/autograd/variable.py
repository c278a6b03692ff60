"""ember.autograd.Variable, PyTorch's legacy name: every Tensor is a Variable (isinstance holds), calling it
gives a tensor sharing the data, and Variable._execution_engine.queue_callback(fn) runs fn once the
backward pass now running has finished (what DDP's reducer and similar hooks rely on)."""
from __future__ import annotations

import warnings

from .. import _C

__all__ = ["Variable"]


class _ImperativeEngine:
    def queue_callback(self, callback) -> None:
        """Runs callback() after the current backward pass (raises outside one)."""
        if not callable(callback):
            raise TypeError(f"queue_callback expects a callable, got {type(callback).__name__}")
        _C._ddp.queue_callback(callback)


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, _C.TensorBase)


class Variable(metaclass=_VariableMeta):
    _execution_engine = _ImperativeEngine()

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with ember.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            import ember
            data = ember.empty(0)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out.requires_grad_(requires_grad)
        return out
