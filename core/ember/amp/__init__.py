"""ember.amp: automatic mixed precision on the CPU (autocast, GradScaler, custom_fwd/custom_bwd), as
torch.amp."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
