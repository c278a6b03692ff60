"""The nn layers."""
from .activation import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import Module  # noqa: F401
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from . import batchnorm, instancenorm  # noqa: F401  (PyTorch's module paths)
from .batchnorm import SyncBatchNorm  # noqa: F401
from .padding import *  # noqa: F401,F403
