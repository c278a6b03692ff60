"""ember.backends.mps: no Apple Metal backend in ember."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: no MPS device."""
    return False


def is_built() -> bool:
    """False: ember is not built with MPS."""
    return False
