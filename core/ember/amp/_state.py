"""Autocast's per-thread state behind PyTorch's top-level functions (ember.is_autocast_enabled('cpu'),
ember.set_autocast_dtype, the nesting counter and the weight-cast cache). CPU's state lives in the
C++ core, where the op wrappers read it; the other device types this build cannot run keep theirs
here, per thread, so code written for them reads back what it set."""
from __future__ import annotations

import threading
import warnings

from .. import _C

# The device types PyTorch's autocast knows, with their default lower-precision dtype.
_DEFAULT_DTYPES = {"cpu": _C.bfloat16, "cuda": _C.float16, "xpu": _C.float16, "mps": _C.float16,
                   "hpu": _C.bfloat16, "xla": _C.bfloat16, "ipu": _C.float16, "mtia": _C.float16,
                   "maia": _C.bfloat16, "privateuseone": _C.float16}
# Device types PyTorch parses but has no autocast for.
_OTHER_DEVICE_TYPES = ("mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "lazy", "vulkan", "meta")
_ALL_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, "
                     "mps, meta, hpu, mtia, privateuseone")


class _OtherDevices(threading.local):
    def __init__(self):
        self.enabled = dict.fromkeys(_DEFAULT_DTYPES, False)
        self.dtype = dict(_DEFAULT_DTYPES)


_others = _OtherDevices()


def _device_type(fname: str, device_type, *, for_dtype: bool = False) -> str:
    """device_type checked as PyTorch's bindings do: a str naming a device type that has autocast."""
    if not isinstance(device_type, str):
        raise TypeError(f"{fname}(): argument 'device_type' (position 1) must be str, not {type(device_type).__name__}")
    if device_type in _DEFAULT_DTYPES:
        return device_type
    if device_type in _OTHER_DEVICE_TYPES:
        raise RuntimeError("unsupported scalarType" if for_dtype else
                           "unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    raise RuntimeError(f"Expected one of {_ALL_DEVICE_TYPES} device type at start of device string: {device_type}")


def _check_bool(fname: str, name: str, value, position: int) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{fname}(): argument '{name}' (position {position}) must be bool, not {type(value).__name__}")


def _check_dtype(fname: str, value, position: int) -> None:
    if not isinstance(value, _C.dtype):
        raise TypeError(f"{fname}(): argument 'dtype' (position {position}) must be ember.dtype, not "
                        f"{type(value).__name__}")


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be used on device_type: any device type autocast knows (False for the other
    device types, such as meta; an unknown name raises), as PyTorch."""
    if isinstance(device_type, str) and device_type in _OTHER_DEVICE_TYPES:
        return False
    return _device_type("_is_autocast_available", device_type) in _DEFAULT_DTYPES


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for device_type in this thread (CUDA's when no device type is given)."""
    device_type = _device_type("is_autocast_enabled", device_type)
    return _C._autocast_cpu_enabled() if device_type == "cpu" else _others.enabled[device_type]


def set_autocast_enabled(device_type, enabled=None) -> None:
    """set_autocast_enabled(device_type, enabled), or set_autocast_enabled(enabled) for CUDA."""
    if enabled is None and isinstance(device_type, bool):
        device_type, enabled = "cuda", device_type
    device_type = _device_type("set_autocast_enabled", device_type)
    _check_bool("set_autocast_enabled", "enabled", enabled, 2)
    if device_type == "cpu":
        _C._set_autocast_cpu_enabled(enabled)
    else:
        _others.enabled[device_type] = enabled


def get_autocast_dtype(device_type: str):
    """The dtype autocast's lower-precision ops run in on device_type in this thread."""
    device_type = _device_type("get_autocast_dtype", device_type, for_dtype=True)
    return _C._autocast_cpu_dtype() if device_type == "cpu" else _others.dtype[device_type]


def set_autocast_dtype(device_type: str, dtype) -> None:
    device_type = _device_type("set_autocast_dtype", device_type, for_dtype=True)
    _check_dtype("set_autocast_dtype", dtype, 2)
    if device_type == "cpu":
        _C._set_autocast_cpu_dtype(dtype)
    else:
        _others.dtype[device_type] = dtype


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"ember.{old} is deprecated. Please use ember.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _C._autocast_cpu_enabled()


def set_autocast_cpu_enabled(enabled) -> None:
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _check_bool("set_autocast_cpu_enabled", "enabled", enabled, 1)
    _C._set_autocast_cpu_enabled(enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _C._autocast_cpu_dtype()


def set_autocast_cpu_dtype(dtype) -> None:
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _check_dtype("set_autocast_cpu_dtype", dtype, 1)
    _C._set_autocast_cpu_dtype(dtype)


def autocast_increment_nesting() -> int:
    """Enters one more autocast region in this thread; returns the new depth."""
    return _C._autocast_increment_nesting()


def autocast_decrement_nesting() -> int:
    """Leaves an autocast region; at 0 the caller clears the weight-cast cache (autocast's __exit__ does)."""
    return _C._autocast_decrement_nesting()


def clear_autocast_cache() -> None:
    """Drops this thread's cached lower-precision copies of weights."""
    _C._clear_autocast_cache()


def is_autocast_cache_enabled() -> bool:
    return _C._autocast_cache_enabled()


def set_autocast_cache_enabled(enabled) -> None:
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _C._set_autocast_cache_enabled(enabled)


__all__ = ["is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
           "set_autocast_dtype", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
           "set_autocast_cpu_dtype", "autocast_increment_nesting", "autocast_decrement_nesting", "clear_autocast_cache",
           "is_autocast_cache_enabled", "set_autocast_cache_enabled"]
