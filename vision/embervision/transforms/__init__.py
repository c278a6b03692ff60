"""embervision.transforms: torchvision-style image transforms on PIL images and [..., C, H, W] tensors."""
from . import functional  # noqa: F401
from ._interpolation import InterpolationMode  # noqa: F401
from ._transforms_basic import *  # noqa: F401,F403
from ._transforms_random import *  # noqa: F401,F403
from .autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide  # noqa: F401
