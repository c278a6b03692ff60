"""InterpolationMode: the resampling filters the transforms accept, and their Pillow equivalents."""
from enum import Enum

from PIL import Image

__all__ = ["InterpolationMode"]


class InterpolationMode(Enum):
    """Interpolation modes; NEAREST, BILINEAR and BICUBIC work on tensors and PIL images, the rest on PIL only."""

    NEAREST = "nearest"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow 10 moved the filter constants into Image.Resampling; they keep their integer values.
PIL_MODES = {
    InterpolationMode.NEAREST: Image.Resampling.NEAREST,
    InterpolationMode.BILINEAR: Image.Resampling.BILINEAR,
    InterpolationMode.BICUBIC: Image.Resampling.BICUBIC,
    InterpolationMode.BOX: Image.Resampling.BOX,
    InterpolationMode.HAMMING: Image.Resampling.HAMMING,
    InterpolationMode.LANCZOS: Image.Resampling.LANCZOS,
}
_FROM_PIL = {int(v): k for k, v in PIL_MODES.items()}


def to_interpolation_mode(interpolation):
    """Accepts an InterpolationMode or (as torchvision 0.10 did, with a warning there) a Pillow filter int."""
    if isinstance(interpolation, InterpolationMode):
        return interpolation
    if isinstance(interpolation, int) and interpolation in _FROM_PIL:
        return _FROM_PIL[interpolation]
    raise TypeError("Argument interpolation should be of type InterpolationMode instead of "
                    f"{type(interpolation).__name__}")
