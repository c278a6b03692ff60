"""ember.nn.parallel: DataParallel and data_parallel as PyTorch runs them on a machine without GPUs.
(DistributedDataParallel belongs to ember.distributed's work.)"""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
