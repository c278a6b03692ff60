"""DataParallel on ember's CPU-only build: with no GPU to replicate onto, PyTorch's DataParallel keeps
no device ids and calls the wrapped module directly (its state_dict keys gain the "module." prefix);
its functional data_parallel cannot pick a device type and raises. Both do the same here."""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []  # no accelerator: PyTorch ignores the ids it was given and keeps none

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    raise RuntimeError("device type could not be determined")
