"""ember.backends.openmp: ember's parallel loops run on its own worker pool, not OpenMP (so another
library's OpenMP runtime in the process cannot slow them); OMP_NUM_THREADS still sets the thread count."""

__all__ = ["is_available"]


def is_available() -> bool:
    """False: ember is not built with OpenMP."""
    return False
