"""embervision.transforms: torchvision-style image transforms on PIL images and [..., C, H, W] tensors."""
from . import functional  # noqa: F401
from ._interpolation import InterpolationMode  # noqa: F401
