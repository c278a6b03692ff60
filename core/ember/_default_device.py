"""ember.get_default_device / set_default_device and `with ember.device(...)`: the device factory
calls use when none is named. Per thread, as in PyTorch; the C++ factories read it."""
import threading

from . import _C
from ._tensor_device import NO_ACCELERATOR

_local = threading.local()  # .stack: the devices entered with `with ember.device(...)`, innermost last


def _as_device(device):
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError(NO_ACCELERATOR)
    return device if isinstance(device, _C.device) else _C.device(device)


def get_default_device():
    """The device factories create on: cpu unless set_default_device or `with ember.device(...)` chose another."""
    dev = _C._get_default_device()
    if dev.type == "cuda":  # PyTorch asks the device for its index, which fails without CUDA
        raise AssertionError("Ember not compiled with CUDA enabled")
    return dev


def set_default_device(device):
    """Makes factory calls without device= create on `device` (None: back to cpu), in this thread.
    A cuda device is accepted here; the factories then refuse it, as PyTorch's CPU build does."""
    _C._set_default_device(_C.device("cpu") if device is None else _as_device(device))


def _device_enter(self):
    stack = _local.__dict__.setdefault("stack", [])
    stack.append(_C._get_default_device())
    _C._set_default_device(self)
    return self


def _device_exit(self, exc_type, exc, tb):
    _C._set_default_device(_local.stack.pop())


_C.device.__enter__ = _device_enter
_C.device.__exit__ = _device_exit
