"""The ember package's version: the one place it is written (pyproject.toml and CMake read it here)."""
__version__ = "0.1.0"
