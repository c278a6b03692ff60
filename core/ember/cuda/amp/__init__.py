"""ember.cuda.amp: torch.cuda.amp's deprecated names. Without CUDA, PyTorch disables both with a
warning: autocast changes no dtype and GradScaler leaves losses and gradients unscaled while still
stepping the optimizer. So do these; ember's CPU autocast (ember.amp) is separate work."""
from .autocast_mode import autocast, custom_bwd, custom_fwd
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler"]
