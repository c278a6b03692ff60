"""Summary protocol buffers for SummaryWriter, built with the tensorboard package's own protos (as
PyTorch's torch.utils.tensorboard.summary does): scalars, histograms, PNG images, text, hparams."""
import struct
import zlib

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ... import _C


def make_np(x):
    """An ndarray from an ember tensor, a NumPy array or a Python number."""
    if isinstance(x, _C.TensorBase):
        return x.detach().numpy()
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or ember tensor are expected.")


def scalar(name, value, new_style=False, double_precision=False):
    arr = make_np(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} and "
                             f"{arr.ndim} dimensions.")
    v = float(arr)
    if new_style:
        proto = TensorProto(double_val=[v], dtype="DT_DOUBLE") if double_precision else \
            TensorProto(float_val=[v], dtype="DT_FLOAT")
        smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
        return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=smd)])
    return Summary(value=[Summary.Value(tag=name, simple_value=v)])


def make_histogram(values, bins, max_bins=None):
    """TensorBoard's HistogramProto: counts per bucket (right edges in bucket_limit), empty buckets at
    both ends trimmed, plus min/max/num/sum/sum_squares."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    num_bins = len(counts)
    if max_bins is not None and num_bins > max_bins:
        sub = num_bins // max_bins
        rem = num_bins % sub
        if rem != 0:
            counts = np.pad(counts, pad_width=[[0, sub - rem]], mode="constant", constant_values=0)
        counts = counts.reshape(-1, sub).sum(axis=-1)
        new_limits = np.empty((counts.size + 1,), limits.dtype)
        new_limits[:-1] = limits[:-1:sub]
        new_limits[-1] = limits[-1]
        limits = new_limits
    # Keep from the bucket before the first non-empty one to the last non-empty one.
    cum = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(cum, [0, cum[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=counts.tolist())


def histogram(name, values, bins, max_bins=None):
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def make_grid(images, ncols=8):
    """N images (N, C, H, W) tiled into one (3, H * rows, W * cols) canvas, row by row."""
    if images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = int(np.ceil(n / ncols))
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor, input_format):
    if len(set(input_format)) != len(input_format):
        raise AssertionError(f"You can not use the same dimension shorthand twice. input_format: {input_format}")
    if len(tensor.shape) != len(input_format):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {tensor.shape}, "
                             f"input_format: {input_format}")
    input_format = input_format.upper()
    if len(input_format) == 4:
        nchw = tensor.transpose([input_format.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(input_format) == 3:
        hwc = tensor.transpose([input_format.find(c) for c in "HWC"])
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc, hwc, hwc], 2)
        return hwc
    hw = tensor.transpose([input_format.find(c) for c in "HW"])
    return np.stack([hw, hw, hw], 2)


def encode_png(hwc):
    """A PNG of an (H, W, C) uint8 array, C = 1, 3 or 4 (zlib, filter 0 on every row)."""
    h, w, c = hwc.shape
    color_type = {1: 0, 3: 2, 4: 6}[c]
    raw = b"".join(b"\x00" + hwc[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def image(tag, tensor, dataformats="NCHW"):
    arr = make_np(tensor)
    arr = convert_to_HWC(arr, dataformats)
    scale = 1 if arr.dtype == np.uint8 else 255  # floats are in [0, 1]
    arr = (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    h, w, c = arr.shape
    img = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=encode_png(np.ascontiguousarray(arr)))
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def text(tag, text):
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    tensor = TensorProto(dtype="DT_STRING", string_val=[text.encode(encoding="utf_8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=smd, tensor=tensor)])
