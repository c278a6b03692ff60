"""embervision: ember's vision package. Its C++ ops (vision/csrc) register into ember's op table when
`embervision._C` loads; the Python modules wrap them."""

import ember as _ember

from . import _C  # noqa: F401  (loading it registers vision's ops)

from ._version import __version__  # noqa: F401
ember_version = _ember.__version__

_errors = _ember._C._take_registration_errors()
if _errors:
    raise RuntimeError("embervision: registering its ops failed: " + "; ".join(_errors))


def __getattr__(name):
    # transforms and tv_tensors load on first use: they need NumPy and Pillow, which a bare
    # `import embervision` beside the core must not require
    if name in ("transforms", "tv_tensors"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
