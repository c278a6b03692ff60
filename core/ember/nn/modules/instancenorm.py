"""PyTorch's nn.modules.instancenorm path: the instance-norm classes, which ember defines in normalization.py."""
from .normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm  # noqa: F401

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
