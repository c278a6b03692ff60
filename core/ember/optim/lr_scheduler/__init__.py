"""Learning-rate schedulers with PyTorch's names and semantics."""
from ._base import LRScheduler
from ._simple import (ConstantLR, ExponentialLR, LambdaLR, LinearLR, MultiplicativeLR, MultiStepLR,
                      PolynomialLR, StepLR)
from ._cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from ._cyclic import CyclicLR, OneCycleLR
from ._plateau import ReduceLROnPlateau
from ._composite import ChainedScheduler, SequentialLR

_LRScheduler = LRScheduler  # the old name

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "OneCycleLR", "ReduceLROnPlateau", "SequentialLR", "ChainedScheduler"]
