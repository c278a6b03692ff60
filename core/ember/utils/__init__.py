"""ember.utils: where the installed C++ core lives, for building extensions against it."""
import os as _os

from .. import _C as _C_module

_root = _os.path.dirname(_os.path.abspath(_C_module.__file__))
#: For CMake: -DCMAKE_PREFIX_PATH=<this> makes find_package(Ember) find the installed core.
cmake_prefix_path = _os.path.join(_root, "share", "cmake")
include_dir = _os.path.join(_root, "include")
library_dir = _os.path.join(_root, "lib")


def __getattr__(name):
    # Submodules on first use: importing ember should not pay for multiprocessing, tensorboard & co.
    if name in ("data", "deterministic", "checkpoint", "tensorboard", "benchmark"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
