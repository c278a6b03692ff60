"""ember.nn.parallel: DataParallel and data_parallel as PyTorch runs them on a machine without GPUs,
and DistributedDataParallel over ember.distributed's process groups."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]


def __getattr__(name):
    # DDP loads ember.distributed (and its gloo library) only when used, not on every `import ember`.
    if name == "DistributedDataParallel":
        from .distributed import DistributedDataParallel
        return DistributedDataParallel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
