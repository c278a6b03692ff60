"""transforms.v2.functional: the v2 kernels, dispatching on the input's type."""
from ._functional import *  # noqa: F401,F403
from ._functional import __all__  # noqa: F401
