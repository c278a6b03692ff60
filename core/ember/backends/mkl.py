"""ember.backends.mkl: ember does not use Intel MKL (matrix products go to OpenBLAS)."""

__all__ = ["is_available"]


def is_available() -> bool:
    """False: ember is not built with MKL."""
    return False
