"""ember.distributed.algorithms: Join for uneven inputs, and DDP's communication hooks."""
from .join import Join, Joinable, JoinHook

__all__ = ["Join", "Joinable", "JoinHook"]
