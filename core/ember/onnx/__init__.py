"""ember.onnx: export a model to ONNX (PyTorch's torch.onnx.export), by tracing it on example inputs."""
from . import errors  # noqa: F401
from ._export import TrainingMode, export, is_in_onnx_export

__all__ = ["export", "is_in_onnx_export", "errors", "TrainingMode"]
