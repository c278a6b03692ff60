"""ember.nn: layers (Module and its subclasses), containers, functional, init and utils, with
PyTorch's names and behaviour."""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
