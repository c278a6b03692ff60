"""set_float32_matmul_precision / get_float32_matmul_precision, as in PyTorch. The setting is kept
(torch.backends.cuda.matmul.allow_tf32 reads and writes it); ember's float32 matrix products on the
CPU always compute in float32 ("highest"), whatever it says."""
import warnings

_PRECISIONS = ("highest", "high", "medium")
_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """Sets the internal precision float32 matrix products may use: "highest", "high" or
    "medium". Any other string warns and changes nothing (PyTorch's behaviour)."""
    global _precision
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", UserWarning, stacklevel=2)
        return
    _precision = precision


def get_float32_matmul_precision() -> str:
    """The value set by set_float32_matmul_precision ("highest" by default)."""
    return _precision
