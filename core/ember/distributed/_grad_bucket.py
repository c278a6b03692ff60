"""GradBucket, what a DDP communication hook receives (torch.distributed.GradBucket), and the built-in hook
names (BuiltinCommHookType)."""
from __future__ import annotations

import enum

__all__ = ["BuiltinCommHookType", "GradBucket"]


class BuiltinCommHookType(enum.Enum):
    ALLREDUCE = 1
    FP16_COMPRESS = 2


class GradBucket:
    """One bucket of a DDP step: its flat gradient buffer (index() in bucket order; is_last() for the bucket
    reduced last) and the parameters whose gradients it holds, in buffer order."""

    def __init__(self, index: int, num_buckets: int, buffer, parameters: list):
        self._index, self._num_buckets = index, num_buckets
        self._buffer, self._parameters = buffer, parameters

    def index(self) -> int:
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, buffer) -> None:
        """Replaces the bucket's buffer (a compressing hook's copy, say)."""
        self._buffer = buffer

    def is_last(self) -> bool:
        return self._index == self._num_buckets - 1

    def parameters(self) -> list:
        return list(self._parameters)

    def gradients(self) -> list:
        """Views of the buffer shaped as each parameter (writes reach the buffer)."""
        views, offset = [], 0
        for p in self._parameters:
            views.append(self._buffer[offset:offset + p.numel()].view(p.shape))
            offset += p.numel()
        return views
