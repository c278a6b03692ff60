"""ember.cpu: the CPU device module; its amp holds torch.cpu.amp's deprecated names."""
from . import amp  # noqa: F401
