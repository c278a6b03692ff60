"""ember.backends.cuda: ember has no CUDA build. `matmul.allow_tf32` (which PyTorch ties to the
float32 matmul precision: True is "high", False "highest") and the reduced-precision-reduction flags
are settable as in PyTorch, and change nothing in ember's CPU results."""
from ember import _matmul_precision

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    """False: ember is not built with CUDA."""
    return False


class _MatmulFlags:
    """torch.backends.cuda.matmul: allow_tf32 and the fp16/bf16 reduced-precision-reduction flags."""

    _REDUCTIONS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self):
        object.__setattr__(self, "_reduced", {k: True for k in self._REDUCTIONS})

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _matmul_precision.get_float32_matmul_precision() != "highest"
        if name in self._REDUCTIONS:
            return self._reduced[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            _matmul_precision.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._REDUCTIONS:
            ok = isinstance(value, bool) or (isinstance(value, (tuple, list)) and value
                                             and all(isinstance(v, bool) for v in value))
            if not ok:
                raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
            self._reduced[name] = value if isinstance(value, bool) else value[0]
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = _MatmulFlags()
