"""save() through PyAV (FFmpeg) for the compressed and container formats libsndfile cannot write: AAC (ADTS),
M4A/MP4 (AAC in an MP4 container), Opus (in Ogg), and MP3 by LAME when the FFmpeg backend is asked for.
The whole (channels, frames) array is handed to the encoder as one float frame; PyAV converts it to the
codec's sample format and cuts it into the codec's frame size."""
import os

import numpy as np

from . import _av

# format= / extension -> (FFmpeg muxer, encoder)
FORMATS = {"mp3": ("mp3", "libmp3lame"), "aac": ("adts", "aac"), "m4a": ("ipod", "aac"), "mp4": ("mp4", "aac"),
           "opus": ("ogg", "libopus")}
# Opus codes only these rates (RFC 6716); other encoders resample nothing either, so the rate is checked here
_OPUS_RATES = (8000, 12000, 16000, 24000, 48000)
# integer sample types -> (offset, scale) to floats in [-1, 1]
_INT_SCALES = {np.dtype("uint8"): (128.0, 128.0), np.dtype("int16"): (0.0, 32768.0),
               np.dtype("int32"): (0.0, 2147483648.0)}


def as_float_planar(data):
    """(channels, frames) samples of any of save's dtypes as float32 in [-1, 1]."""
    if data.dtype in _INT_SCALES:
        offset, scale = _INT_SCALES[data.dtype]
        return ((data.astype(np.float64) - offset) / scale).astype(np.float32)
    if data.dtype.kind == "f":
        return data.astype(np.float32)
    raise ValueError(f"save: {data.dtype} samples cannot be encoded (float, int32, int16 or uint8)")


def check(fmt, sample_rate, channels):
    if fmt == "opus" and sample_rate not in _OPUS_RATES:
        raise ValueError(f"opus supports sample rates {', '.join(map(str, _OPUS_RATES))}; got {sample_rate}")
    if fmt == "opus" and channels > 2:
        raise ValueError(f"opus in Ogg is written for 1 or 2 channels here; got {channels}")


def save(uri, data, sample_rate, fmt, bit_rate_kbps=None):
    """Encodes (channels, frames) samples `data` into `uri` (a path or a writable file object) as `fmt`;
    bit_rate_kbps (torchaudio's `compression` for these formats) sets the encoder's target bit rate."""
    av = _av.av_module()
    container_format, codec = FORMATS[fmt]
    channels = data.shape[0]
    check(fmt, sample_rate, channels)
    samples = np.ascontiguousarray(as_float_planar(data))
    layout = {1: "mono", 2: "stereo"}.get(channels, f"{channels}c")
    target = uri if hasattr(uri, "write") else os.fspath(uri)
    try:
        with av.open(target, mode="w", format=container_format) as container:
            stream = container.add_stream(codec, rate=int(sample_rate))
            stream.layout = layout
            if bit_rate_kbps is not None:
                stream.bit_rate = int(float(bit_rate_kbps) * 1000)
            if samples.shape[1] > 0:
                frame = av.AudioFrame.from_ndarray(samples, format="fltp", layout=layout)
                frame.sample_rate, frame.pts = int(sample_rate), 0
                for packet in stream.encode(frame):
                    container.mux(packet)
            for packet in stream.encode(None):
                container.mux(packet)
    except (av.FFmpegError, ValueError) as e:
        raise RuntimeError(f"Failed to save audio to {_av.name_of(uri)} as {fmt}: {e}") from e
