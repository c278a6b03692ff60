"""record_function: a named range on the profile's timeline, as a context manager or a decorator;
nothing is recorded (and it costs one C call) when no profile is recording."""
from __future__ import annotations

import functools

from ember import _C


class record_function:
    def __init__(self, name: str, args: str | None = None):
        if not isinstance(name, str):
            raise TypeError(f"record_function: name must be a str, got {type(name).__name__}")
        self.name = name
        self.args = args
        self.record = -1
        self.run_callbacks_on_exit = True

    def __enter__(self):
        self.record = _C._record_function_enter(self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.run_callbacks_on_exit:
            _C._record_function_exit(self.record)
        self.record = -1
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            handle = _C._record_function_enter(self.name)
            try:
                return fn(*args, **kwargs)
            finally:
                _C._record_function_exit(handle)

        return wrapped
