"""Tensor methods for the devices ember is not built for (cuda, xpu, mtia, ipu) and the predicates
PyTorch has for them: they answer and fail as PyTorch's CPU-only build does."""
import builtins

from . import _C

NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _not_compiled(backend):
    return AssertionError(f"Ember not compiled with {backend} enabled")


class DeviceMethods:
    # Predicates for devices and layouts ember tensors never have.
    is_xpu = property(lambda self: False)
    is_mps = property(lambda self: False)
    is_ipu = property(lambda self: False)
    is_mtia = property(lambda self: False)
    is_maia = property(lambda self: False)
    is_vulkan = property(lambda self: False)
    is_xla = property(lambda self: False)
    is_mkldnn = property(lambda self: False)
    is_quantized = property(lambda self: False)
    is_nested = property(lambda self: False)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """A copy on a CUDA device: always refused, as PyTorch without CUDA refuses it."""
        if device is None:
            device = "cuda"
        if isinstance(device, builtins.int) and not isinstance(device, builtins.bool):
            raise RuntimeError(NO_ACCELERATOR)
        if (_C.device(device) if isinstance(device, str) else device).type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        return self.to(device, non_blocking=non_blocking)

    def xpu(self, device=None, non_blocking=False, memory_format=None):
        raise _not_compiled("XPU")

    def mtia(self, device=None, non_blocking=False, memory_format=None):
        raise _not_compiled("MTIA")

    def ipu(self, device=None, non_blocking=False, memory_format=None):
        raise RuntimeError("Ember is not linked with support for ipu devices")

    def pin_memory(self, device=None):
        """Page-locked memory is for copies to an accelerator; without one PyTorch refuses, as here."""
        raise RuntimeError(NO_ACCELERATOR)

    def is_pinned(self, device=None):
        return False
