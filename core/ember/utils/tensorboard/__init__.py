"""ember.utils.tensorboard: SummaryWriter, PyTorch's writer of TensorBoard event files (scalars,
histograms, images, text, hparams). It needs the `tensorboard` package, whose protocol buffers and
event-file writer it uses. add_graph waits for ember.fx."""
try:
    from tensorboard.summary.writer.event_file_writer import EventFileWriter as _EventFileWriter  # noqa: F401
except ImportError as e:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above; pip install tensorboard") from e

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]
