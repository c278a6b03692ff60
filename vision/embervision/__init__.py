"""embervision: ember's vision package. Its C++ ops (vision/csrc) register into ember's op table when
`embervision._C` loads; the Python modules wrap them."""

import ember as _ember

from . import _C  # noqa: F401  (loading it registers vision's ops)

from ._version import __version__  # noqa: F401
ember_version = _ember.__version__

_errors = _ember._C._take_registration_errors()
if _errors:
    raise RuntimeError("embervision: registering its ops failed: " + "; ".join(_errors))

from . import datasets, io, models, ops, transforms, tv_tensors, utils  # noqa: E402,F401
