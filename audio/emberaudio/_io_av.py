"""load / info on the FFmpeg backend (PyAV), and the choice between it and soundfile: libsndfile's own formats
go to soundfile; AAC, M4A/MP4, Opus, WebM/Matroska and other video containers to FFmpeg; file objects and
unknown extensions try soundfile first and fall back to FFmpeg when libsndfile does not know the format."""
import os

import numpy as np

import ember

from . import _av
from ._metadata import AudioMetaData

SOUNDFILE_EXTENSIONS = {"wav", "wave", "flac", "ogg", "oga", "mp3", "aif", "aiff", "aifc", "au", "snd", "caf", "w64",
                        "rf64", "sd2", "voc", "htk", "nist", "sph"}


def _ext(uri, format):
    if format:
        return format.lower()
    if isinstance(uri, (str, os.PathLike)):
        return os.path.splitext(os.fspath(uri))[1][1:].lower()
    return ""


def choose(uri, format, backend):
    """'soundfile', 'ffmpeg' or 'either' (soundfile, then FFmpeg if libsndfile does not know the format)."""
    if backend == "ffmpeg":
        return "ffmpeg"
    ext = _ext(uri, format)
    if ext in SOUNDFILE_EXTENSIONS:
        return "soundfile"
    return "ffmpeg" if ext else "either"


def info(uri, format=None):
    rewind = uri.tell() if hasattr(uri, "tell") else None
    container = _av.open_input(uri, format)
    try:
        stream = _av.audio_stream(container, uri)
        rate = stream.codec_context.sample_rate
        channels = stream.codec_context.channels if hasattr(stream.codec_context, "channels") else len(
            stream.codec_context.layout.channels)
        # exact: the count load() returns (container durations are estimates for lossy codecs)
        frames = sum(data.shape[1] for data, _ in _av.decode(container, stream, uri))
        return AudioMetaData(int(rate), int(frames), int(channels), _av.bits_of(stream), _av.encoding_of(stream))
    finally:
        container.close()
        if rewind is not None:
            uri.seek(rewind)


_RAW = {"s16": ember.int16, "s32": ember.int32, "u8": ember.uint8}


def load(uri, frame_offset=0, num_frames=-1, normalize=True, channels_first=True, format=None):
    """(waveform, sample_rate); normalize=False keeps 8/16/32-bit integer PCM as integers (compressed audio is
    always float32 in [-1, 1], as torchaudio's FFmpeg backend gives it)."""
    container = _av.open_input(uri, format)
    try:
        stream = _av.audio_stream(container, uri)
        rate = int(stream.codec_context.sample_rate)
        pieces, got, base = [], 0, None
        for data, base in _av.decode(container, stream, uri, start=frame_offset):
            if num_frames > 0 and got + data.shape[1] >= num_frames:
                pieces.append(data[:, : num_frames - got])
                got = num_frames
                break
            pieces.append(data)
            got += data.shape[1]
    finally:
        container.close()
    channels = len(stream.codec_context.layout.channels)
    if not pieces:
        return ember.zeros((channels, 0) if channels_first else (0, channels)), rate
    data = np.concatenate(pieces, axis=1)
    keep_raw = not normalize and base in _RAW and stream.codec_context.name.startswith("pcm_")
    samples = data if keep_raw else _av.to_float(data, base)
    waveform = ember.from_numpy(np.ascontiguousarray(samples if channels_first else samples.T))
    return waveform, rate
