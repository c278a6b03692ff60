"""Loads OpenBLAS from the scipy-openblas32 wheel before ember._C, which links to it by soname:
found wherever the wheel is importable (a venv, the system or the user site), so _C needs no
path baked in. The RPATH in _C (core/cmake/openblas.cmake) is only the fallback for C++ users."""
import ctypes
import importlib.util
import os

_lib = None


def _load():
    global _lib
    spec = importlib.util.find_spec("scipy_openblas32")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return  # _C's import then names the missing library; `pip install scipy-openblas32` fixes it
    libdir = os.path.join(list(spec.submodule_search_locations)[0], "lib")
    try:
        names = sorted(n for n in os.listdir(libdir) if n.startswith("libscipy_openblas")
                       and (n.endswith(".so") or n.endswith(".dylib") or ".so." in n))
    except OSError:
        return
    if names:
        _lib = ctypes.CDLL(os.path.join(libdir, names[0]))


_load()
