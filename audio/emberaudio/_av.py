"""Audio through PyAV (FFmpeg): the formats libsndfile lacks (AAC, M4A/MP4, Opus, the audio of video files)
and any other FFmpeg reads. Decoded frames become (channels, samples) NumPy arrays at exact sample positions,
so offsets, counts and the streaming reader agree with whole-file decoding."""
import os

import numpy as np

# FFmpeg sample formats: (NumPy dtype, scale to [-1, 1], offset) of their samples
_SAMPLE_FORMATS = {"u8": ("u1", 128.0, 128.0), "s16": ("<i2", 32768.0, 0.0), "s32": ("<i4", 2147483648.0, 0.0),
                   "s64": ("<i8", 9223372036854775808.0, 0.0), "flt": ("<f4", 1.0, 0.0), "dbl": ("<f8", 1.0, 0.0)}
# container names FFmpeg uses for the `format=` values torchaudio users pass
_CONTAINERS = {"m4a": "mp4", "aac": "aac", "opus": "ogg", "mkv": "matroska", "oga": "ogg", "wave": "wav"}
# codec -> torchaudio's encoding names
_ENCODINGS = {"mp3": "MP3", "mp3float": "MP3", "aac": "AAC", "opus": "OPUS", "libopus": "OPUS", "vorbis": "VORBIS",
              "flac": "FLAC", "alac": "ALAC", "pcm_mulaw": "ULAW", "pcm_alaw": "ALAW"}


def av_module():
    try:
        import av
    except ImportError as e:  # pragma: no cover - PyAV is installed with the package's extras
        raise RuntimeError("emberaudio's FFmpeg backend needs PyAV (pip install av)") from e
    return av


def name_of(uri):
    return os.fspath(uri) if isinstance(uri, (str, os.PathLike)) else getattr(uri, "name", "<file object>")


def open_input(uri, format=None):
    """An av container for a path or a readable file object; FFmpeg's failures become RuntimeErrors naming
    the source."""
    av = av_module()
    if isinstance(uri, (str, os.PathLike)) and not os.path.exists(uri):
        raise FileNotFoundError(f"No such file or directory: '{os.fspath(uri)}'")
    fmt = _CONTAINERS.get(format.lower(), format.lower()) if format else None
    try:
        return av.open(uri if hasattr(uri, "read") else os.fspath(uri), mode="r", format=fmt,
                       metadata_errors="ignore")
    except av.FFmpegError as e:
        raise RuntimeError(f"Failed to open the audio of {name_of(uri)}: {e}") from None


def audio_stream(container, uri, index=None):
    audio = list(container.streams.audio)
    if not audio:
        raise RuntimeError(f"{name_of(uri)} has no audio stream")
    if index is None:
        return audio[0]
    for stream in container.streams:
        if stream.index == index:
            if stream.type != "audio":
                raise ValueError(f"stream {index} of {name_of(uri)} is {stream.type}, not audio")
            return stream
    raise ValueError(f"{name_of(uri)} has no stream {index} (it has {len(container.streams)})")


def frame_samples(frame):
    """A decoded AudioFrame as (channels, samples) in the codec's own sample type and its format's base name."""
    name = frame.format.name
    base = name[:-1] if frame.format.is_planar else name
    data = frame.to_ndarray()
    if not frame.format.is_planar:  # packed: (1, samples * channels), interleaved
        data = data.reshape(-1, len(frame.layout.channels)).T
    return np.ascontiguousarray(data), base


def to_float(data, base):
    dtype, scale, offset = _SAMPLE_FORMATS[base]
    if base in ("flt", "dbl"):
        return data.astype(np.float32, copy=False)
    return ((data.astype(np.float64) - offset) / scale).astype(np.float32)


_PREROLL_SECONDS = 0.25


def decode(container, stream, uri, start=0):
    """Yields (channels, samples) arrays (native sample type) and the format base name, starting exactly at sample
    `start`: seeks to the keyframe before it and drops what precedes it by the first frame's timestamp."""
    av = av_module()
    rate = stream.codec_context.sample_rate
    position = 0
    if start > 0 and stream.time_base is not None:
        # seek a little early: lossy decoders (MDCT overlap, MP3's bit reservoir) need preceding frames to
        # reproduce the samples a decode from the beginning gives
        target = max(start / rate - _PREROLL_SECONDS, 0.0)
        try:
            container.seek(int(target / stream.time_base), stream=stream, backward=True, any_frame=False)
            position = None  # known again from the next frame's timestamp
        except av.FFmpegError:
            pass  # unseekable source: decode from where it is (the start) and drop samples
    try:
        for frame in container.decode(stream):
            data, base = frame_samples(frame)
            if position is None:  # sample index = time since the stream's first sample (after codec delay)
                pts = (frame.pts if frame.pts is not None else 0) - (stream.start_time or 0)
                position = max(int(round(float(pts * stream.time_base) * rate)), 0)
            end = position + data.shape[1]
            if end > start:
                yield data[:, max(start - position, 0):], base
            position = end
    except av.FFmpegError as e:
        raise RuntimeError(f"Failed to decode the audio of {name_of(uri)}: {e}") from None


def encoding_of(stream):
    codec = stream.codec_context.name
    if codec in _ENCODINGS:
        return _ENCODINGS[codec]
    if codec.startswith("pcm_"):
        kind = codec[4]
        return {"s": "PCM_S", "u": "PCM_U", "f": "PCM_F"}.get(kind, "UNKNOWN")
    return "UNKNOWN"


def bits_of(stream):
    codec = stream.codec_context.name
    if codec.startswith("pcm_"):
        digits = "".join(ch for ch in codec[5:] if ch.isdigit())
        return int(digits) if digits else 8
    if codec in ("flac", "alac"):  # PyAV hides the stored width: FFmpeg decodes <= 16 bits as s16, 24 as s32
        fmt = stream.codec_context.format
        return {"s16": 16, "s16p": 16, "s32": 24, "s32p": 24}.get(fmt.name if fmt else "", 0)
    return 0
