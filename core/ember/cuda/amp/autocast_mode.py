"""ember.cuda.amp.autocast: disabled without CUDA (a no-op context manager and decorator), and the
custom_fwd/custom_bwd decorators, which then leave the function unchanged."""
import functools
import warnings

from ... import _C


class autocast:
    def __init__(self, enabled=True, dtype=_C.float16, cache_enabled=True):
        warnings.warn("`ember.cuda.amp.autocast(args...)` is deprecated, as torch.cuda.amp's is.",
                      FutureWarning, stacklevel=2)
        if enabled:
            warnings.warn("CUDA is not available. Disabling autocast.", UserWarning, stacklevel=2)
        self.fast_dtype = dtype
        self._enabled = False

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run_disabled(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run_disabled


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Marks a custom Function's forward for autocast; with autocast unavailable it runs as written."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd):
    return bwd
