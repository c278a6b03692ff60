"""ember.backends: what ember's CPU build computes with, under PyTorch's torch.backends names.

The availability functions tell the truth about ember: its kernels are its own (with OpenBLAS for
matrix products, ducc0 for FFTs and its own worker pool), so oneDNN, MKL, OpenMP, cuDNN, CUDA and MPS
report unavailable; the settable flags of the GPU libraries exist so PyTorch programs that set them
run unchanged, and they change nothing here. `cpu.get_cpu_capability()` names the widest vector
instructions ember's kernels use on this CPU.
"""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]
