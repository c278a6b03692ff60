"""ember.autocast / ember.amp.autocast: a context manager and decorator that runs the ops of a region in
mixed precision on the CPU (bfloat16 or float16), with PyTorch's arguments, checks and warnings; and
custom_fwd/custom_bwd for autograd Functions. The cast policy of each op is in the op database
(`autocast:`) and, for ops written in Python, in their `autocast_policy` decorator (amp/_policy.py)."""
from __future__ import annotations

import collections.abc
import functools
import warnings

from .. import _C
from . import _state

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

is_autocast_available = _state.is_autocast_available


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """Runs the ops of a region (a `with` block or a decorated function) in an op-specific dtype: matrix
    products and convolutions in `dtype` (bfloat16 by default on the CPU), losses, reductions like prod
    and linalg in float32, cat/stack in the widest of their inputs' types. Regions nest; enabled=False
    turns autocast off inside one. The state is per thread; casts of weights (float32 leaves that
    require grad) are cached until the outermost region exits when cache_enabled."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = _state.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        self._cache_enabled = _state.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if self.device == "cuda":  # this build has no CUDA, as PyTorch without a GPU
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype not in (_C.bfloat16, _C.float16):
                name = self.device.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of ember.bfloat16, ember.float16 currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _state.is_autocast_cache_enabled()
        self.prev = _state.is_autocast_enabled(self.device)
        self.prev_fastdtype = _state.get_autocast_dtype(self.device)
        _state.set_autocast_enabled(self.device, bool(self._enabled))
        _state.set_autocast_dtype(self.device, self.fast_dtype)
        _state.autocast_increment_nesting()
        _state.set_autocast_cache_enabled(bool(self._cache_enabled))
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        # The cache lives as long as the outermost region, so a weight is cast once per forward.
        if _state.autocast_decrement_nesting() == 0:
            _state.clear_autocast_cache()
        _state.set_autocast_enabled(self.device, self.prev)
        _state.set_autocast_dtype(self.device, self.prev_fastdtype)
        _state.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you mean to use "
                            "autocast as a context manager? For example:\n    with ember.autocast(device_type=...):\n"
                            "        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type: str, dtype):
    """value with its floating tensors (not float64) on device_type cast to dtype, through containers."""
    if isinstance(value, _C.TensorBase):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not _C.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or type(value).__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorates a custom Function's forward: inside an autocast region with cast_inputs given, floating
    tensor arguments are cast to cast_inputs and forward runs with autocast off; without cast_inputs it
    runs under the region's state. Records that state for custom_bwd."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _state.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _state.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if _state.is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorates a custom Function's backward to run under the autocast state its forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
