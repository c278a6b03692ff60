"""What the backends' modules share: a module class whose settable flags are checked bools (as
PyTorch's setters: RuntimeError "set_X expects a bool"), unknown attributes an AttributeError, and a
flags(...) context manager that sets several and restores them."""
from __future__ import annotations

import contextlib
import sys
import types


class FlagModule(types.ModuleType):
    """A backends module with boolean flags: FLAGS maps a flag to (default, setter name in messages)."""

    FLAGS: dict = {}

    def _values(self):
        return self.__dict__.setdefault("_flag_values", {k: d for k, (d, _) in self.FLAGS.items()})

    def __getattr__(self, name):
        if name in type(self).FLAGS:
            return self._values()[name]
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __setattr__(self, name, value):
        flags = type(self).FLAGS
        if name in flags:
            if not isinstance(value, bool):
                raise RuntimeError(f"{flags[name][1]} expects a bool, but got {type(value).__name__}")
            self._values()[name] = value
        else:
            super().__setattr__(name, value)

    @contextlib.contextmanager
    def _flags(self, **values):
        before = dict(self._values())
        try:
            for k, v in values.items():
                setattr(self, k, v)
            yield
        finally:
            self._values().update(before)


def install(module_name: str, cls: type) -> types.ModuleType:
    """Gives the module `module_name` the class `cls` (so its flags are checked properties); returns it."""
    module = sys.modules[module_name]
    module.__class__ = cls
    return module
