"""transforms.v2: transforms that move images, masks, bounding boxes and keypoints together (typed by
embervision.tv_tensors), one parameter draw per sample; plus MixUp/CutMix and nn.Module containers."""
from . import functional  # noqa: F401
from ._geometry import *  # noqa: F401,F403
from ._misc import *  # noqa: F401,F403
from ._mix import CutMix, MixUp  # noqa: F401
from ._transform import Transform  # noqa: F401
from .._interpolation import InterpolationMode  # noqa: F401
from ._scriptable import install as _install_scriptable

_install_scriptable()
