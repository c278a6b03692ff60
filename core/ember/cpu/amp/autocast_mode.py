"""ember.cpu.amp.autocast: ember.amp.autocast('cpu', ...) under its old name, with PyTorch's FutureWarning."""
import warnings

from ... import _C
from ...amp.autocast_mode import autocast as _autocast

__all__ = ["autocast"]


class autocast(_autocast):
    def __init__(self, enabled: bool = True, dtype=_C.bfloat16, cache_enabled: bool = True):
        warnings.warn("`ember.cpu.amp.autocast(args...)` is deprecated. Please use `ember.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
