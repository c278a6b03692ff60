"""ember.backends.cpu: the CPU's vector capability as ember's kernels see it."""
from ember import _C

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The widest vector instruction set ember's kernels pick at run time on this CPU: "AVX512"
    (AVX-512F), "AVX2" (AVX2 with FMA) or "DEFAULT" (baseline x86-64 / other CPUs), as
    torch.backends.cpu.get_cpu_capability names them."""
    return _C._cpu_capability()
