"""ember.accelerator: PyTorch's device-generic accelerator API. ember's build has no accelerator, so
it answers as PyTorch does on a CPU-only machine: none available, none current, no devices; what
needs a device raises PyTorch's RuntimeError."""
from ._tensor_device import NO_ACCELERATOR

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "current_device_idx",
           "set_device_index", "set_device_idx", "current_stream", "set_stream", "synchronize", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "reset_accumulated_memory_stats", "get_memory_info", "device_index"]


def is_available():
    return False


def current_accelerator(check_available=False):
    """The accelerator's device type, or None when there is none (always, here)."""
    return None


def device_count():
    return 0


def _none_available(*args, **kwargs):
    raise RuntimeError(NO_ACCELERATOR)


current_device_index = current_device_idx = _none_available
set_device_index = set_device_idx = _none_available
current_stream = set_stream = synchronize = empty_cache = _none_available
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _none_available
memory_stats = reset_peak_memory_stats = reset_accumulated_memory_stats = get_memory_info = _none_available


class device_index:
    """Context selecting an accelerator device index: None selects nothing; an index is refused."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            raise RuntimeError(NO_ACCELERATOR)

    def __exit__(self, exc_type, exc, tb):
        return False
