"""The exporter's errors, with PyTorch's names and messages (torch.onnx.errors)."""
from __future__ import annotations

__all__ = ["OnnxExporterError", "UnsupportedOperatorError"]


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""


class UnsupportedOperatorError(OnnxExporterError):
    """Raised when an operator has no ONNX mapping in the exporter."""

    def __init__(self, name: str, version: int, supported_version: int | None = None) -> None:
        if supported_version is not None:
            msg = (f"Exporting the operator '{name}' to ONNX opset version {version} is not supported. Support for "
                   f"this operator was added in version {supported_version}, try exporting with this version")
        elif name.startswith(("aten::", "prim::", "quantized::")):
            msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        else:
            msg = (f"ONNX export failed on an operator with unrecognized namespace {name}. If you are trying to "
                   "export a custom operator, make sure you registered it with the right domain and version.")
        super().__init__(msg)
