"""Anomaly detection: the forward stack of every recorded op is kept, and a backward that produces
NaN names the op and shows where it was called."""
import traceback
import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]

is_anomaly_enabled = _C.is_anomaly_enabled


def _current_stack():
    return "".join(traceback.format_stack()[:-1])


def _warn(msg):
    warnings.warn(msg, stacklevel=2)


def _set(on, check_nan=True):
    _C._set_anomaly_enabled(bool(on), bool(check_nan), _current_stack, _warn)


class detect_anomaly:
    """Context manager (and decorator) that enables anomaly detection inside."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", stacklevel=2)
        _set(True, self.check_nan)

    def __exit__(self, *exc):
        _set(*self.prev)

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Sets anomaly detection on or off, at once and until the context (if any) exits."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        _set(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set(*self.prev)
