"""ember.ops: the op table from Python. `ember.ops.<namespace>.<name>` is an op registered from C++
(EMBER_LIBRARY in an extension loaded with `load_library`), called like any ember function; it
dispatches on its tensors' device to the kernel registered for that backend (CPU, CUDA, Meta)."""
from __future__ import annotations

import ctypes
import os

from . import _C

loaded_libraries: set[str] = set()


class OpNamespace:
    """The ops of one namespace: attributes are looked up in the op table when first used."""

    def __init__(self, name: str):
        self.name = name

    def __getattr__(self, op: str):
        if op.startswith("__"):
            raise AttributeError(op)
        found = _C._op_lookup(f"{self.name}::{op}")
        if found is None:
            raise AttributeError(f"no op named {self.name}::{op} in the op table "
                                 f"(ops in '{self.name}': {', '.join(_C._op_names(self.name)) or 'none'})")
        setattr(self, op, found)
        return found

    def __dir__(self):
        return _C._op_names(self.name)

    def __repr__(self):
        return f"<ember.ops namespace '{self.name}'>"


_namespaces: dict[str, OpNamespace] = {}


def __getattr__(name: str) -> OpNamespace:
    if name.startswith("__"):
        raise AttributeError(name)
    if name not in _namespaces:
        _namespaces[name] = OpNamespace(name)
    return _namespaces[name]


def load_library(path: str | os.PathLike) -> None:
    """Loads a shared library of ops (built with ember.utils.cpp_extension or the CMake package);
    its EMBER_LIBRARY blocks register their ops as it loads. Registration errors are raised here."""
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"ember.ops.load_library: no such file: {path}")
    try:
        ctypes.CDLL(path)
    except OSError as e:
        raise OSError(f"ember.ops.load_library: could not load {path}: {e}") from None
    errors = _C._take_registration_errors()
    if errors:
        raise RuntimeError(f"ember.ops.load_library({path}): " + "; ".join(errors))
    loaded_libraries.add(path)
