"""Grad modes as context managers and decorators: no_grad, enable_grad, set_grad_enabled,
inference_mode (no graph and tensors that may never join one later)."""
import functools

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


class _DecoratorContextManager:
    """A context manager that also decorates functions (each call runs inside a fresh instance)."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _GradModeSwitch(_DecoratorContextManager):
    """Sets grad mode to the class's `mode` inside, and restores the previous one after."""
    mode = True

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class no_grad(_GradModeSwitch):
    """Disables recording: ops inside produce tensors without grad_fn."""
    mode = False


class enable_grad(_GradModeSwitch):
    """Enables recording inside a no_grad region."""
    mode = True


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode to `mode`; takes effect at once (also when used as a plain function call)."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and cheaper in spirit: tensors made inside are inference tensors, which refuse to
    be saved for backward or to require grad outside inference mode."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = (_C.is_grad_enabled(), _C.is_inference_mode_enabled())
        if self.mode:
            _C._set_grad_enabled(False)
            _C._set_inference_mode(True)
        else:
            _C._set_inference_mode(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev[0])
        _C._set_inference_mode(self.prev[1])

    def clone(self):
        return self.__class__(self.mode)
