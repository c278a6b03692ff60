"""ember.backends.cudnn: no cuDNN in ember (CPU only); `enabled`, `benchmark`, `deterministic` and
`allow_tf32` are settable bools, as in PyTorch, so programs that set them run unchanged. They do not
affect ember.are_deterministic_algorithms_enabled() (nor do they in PyTorch)."""
from ._flags import FlagModule, install

__all__ = ["is_available", "version", "flags"]


def is_available() -> bool:
    """False: ember is not built with cuDNN."""
    return False


def version():
    """None: no cuDNN."""
    return None


class _CudnnModule(FlagModule):
    FLAGS = {"enabled": (True, "set_enabled_cudnn"), "benchmark": (False, "set_benchmark_cudnn"),
             "deterministic": (False, "set_deterministic_cudnn"), "allow_tf32": (True, "set_allow_tf32_cublas")}

    @property
    def benchmark_limit(self):
        return self._values().setdefault("benchmark_limit", 10)

    @benchmark_limit.setter
    def benchmark_limit(self, value):
        self._values()["benchmark_limit"] = value


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """A context manager setting the flags, restoring them on exit."""
    return _module._flags(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
                          deterministic=deterministic, allow_tf32=allow_tf32)


_module = install(__name__, _CudnnModule)
