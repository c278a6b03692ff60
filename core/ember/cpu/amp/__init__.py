"""ember.cpu.amp: torch.cpu.amp's deprecated aliases of ember.amp's autocast and GradScaler."""
from .autocast_mode import autocast
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler"]
