"""load / save / info on soundfile (libsndfile: WAV, FLAC, OGG/Vorbis, MP3 ...) and FFmpeg through PyAV (AAC,
M4A, Opus, the audio of video files: _io_av), with torchaudio's arguments and results: (channels, frames)
float32 in [-1, 1] by default, or WAV's integer samples with normalize=False; AudioMetaData's encodings and
bits per sample as torchaudio names them."""
from __future__ import annotations

import os

import numpy as np

import ember

from . import _av_save, _io_av
from ._metadata import AudioMetaData

_BITS = {"PCM_S8": 8, "PCM_U8": 8, "PCM_16": 16, "PCM_24": 24, "PCM_32": 32, "FLOAT": 32, "DOUBLE": 64,
         "ULAW": 8, "ALAW": 8, "IMA_ADPCM": 0, "MS_ADPCM": 0, "GSM610": 0, "VORBIS": 0, "OPUS": 0,
         "MPEG_LAYER_III": 0}
_ENCODING = {"PCM_S8": "PCM_S", "PCM_U8": "PCM_U", "PCM_16": "PCM_S", "PCM_24": "PCM_S", "PCM_32": "PCM_S",
             "FLOAT": "PCM_F", "DOUBLE": "PCM_F", "ULAW": "ULAW", "ALAW": "ALAW", "VORBIS": "VORBIS", "OPUS": "OPUS",
             "MPEG_LAYER_III": "MP3"}
# normalize=False on WAV: the integer type that holds the file's samples (24-bit ones left-aligned in int32)
_RAW_DTYPE = {"PCM_16": "int16", "PCM_24": "int32", "PCM_32": "int32", "PCM_U8": "uint8", "PCM_S8": "int8",
              "FLOAT": "float32", "DOUBLE": "float64"}


def _soundfile():
    try:
        import soundfile
    except ImportError as e:  # pragma: no cover - a dependency of the package
        raise RuntimeError("emberaudio's I/O needs the soundfile package (pip install soundfile)") from e
    return soundfile


def _name(uri):
    return os.fspath(uri) if isinstance(uri, (str, os.PathLike)) else getattr(uri, "name", "<file object>")


def _open_info(uri, format):
    sf = _soundfile()
    try:
        if hasattr(uri, "read"):
            pos = uri.tell() if hasattr(uri, "tell") else None
            meta = sf.info(uri)
            if pos is not None:
                uri.seek(pos)
            return meta
        return sf.info(os.fspath(uri))
    except FileNotFoundError:
        raise
    except (RuntimeError, sf.LibsndfileError) as e:
        raise RuntimeError(f"Failed to read the audio metadata of {_name(uri)}: {e}") from e


def _route(uri, format, backend, action):
    """Runs action(soundfile_or_ffmpeg) on the backend that reads this source (see _io_av.choose)."""
    if backend is not None and backend not in list_audio_backends():
        raise ValueError(f"Backend {backend!r} is not one of available backends: {list_audio_backends()}.")
    route = _io_av.choose(uri, format, backend or _backend[0])
    if route == "either":
        rewind = uri.tell() if hasattr(uri, "tell") else None
        try:
            return action("soundfile")
        except RuntimeError as first:
            if "ffmpeg" not in list_audio_backends():
                raise
            if rewind is not None:
                uri.seek(rewind)
            try:
                return action("ffmpeg")
            except RuntimeError as second:
                raise RuntimeError(f"{second} (libsndfile: {first})") from None
    return action(route)


def info(uri, format=None, buffer_size=4096, backend=None):
    """AudioMetaData of a file (path, path-like or file object)."""
    return _route(uri, format, backend, lambda b: _io_av.info(uri, format) if b == "ffmpeg" else _sf_info(uri, format))


def _sf_info(uri, format):
    meta = _open_info(uri, format)
    encoding = "FLAC" if meta.format == "FLAC" else _ENCODING.get(meta.subtype, "UNKNOWN")
    return AudioMetaData(int(meta.samplerate), int(meta.frames), int(meta.channels), _BITS.get(meta.subtype, 0),
                         encoding)


def load(uri, frame_offset=0, num_frames=-1, normalize=True, channels_first=True, format=None, buffer_size=4096,
         backend=None):
    """(waveform, sample_rate): `num_frames` frames (-1: to the end) from `frame_offset`."""
    if frame_offset < 0:
        raise ValueError(f"frame_offset must be non-negative, got {frame_offset}")
    if num_frames == 0 or num_frames < -1:
        raise ValueError(f"num_frames must be -1 (to the end) or positive, got {num_frames}")

    def action(b):
        if b == "ffmpeg":
            return _io_av.load(uri, frame_offset, num_frames, normalize, channels_first, format)
        return _sf_load(uri, frame_offset, num_frames, normalize, channels_first, format)

    return _route(uri, format, backend, action)


def _sf_load(uri, frame_offset, num_frames, normalize, channels_first, format):
    sf = _soundfile()
    meta = _open_info(uri, format)
    dtype = "float32"
    if not normalize and meta.format == "WAV":
        dtype = _RAW_DTYPE.get(meta.subtype, "float32")
    read_as = "int16" if dtype in ("uint8", "int8") else dtype  # libsndfile reads 8-bit PCM widened
    source = uri if hasattr(uri, "read") else os.fspath(uri)
    try:
        data, rate = sf.read(source, frames=num_frames, start=frame_offset, dtype=read_as, always_2d=True)
    except (RuntimeError, sf.LibsndfileError) as e:
        raise RuntimeError(f"Failed to load audio from {_name(uri)}: {e}") from e
    if dtype == "uint8":
        data = ((data.astype(np.int32) >> 8) + 128).astype(np.uint8)
    elif dtype == "int8":
        data = (data >> 8).astype(np.int8)
    waveform = ember.from_numpy(np.ascontiguousarray(data.T if channels_first else data))
    return waveform, int(rate)


_WAV_DEFAULT = {ember.uint8: "PCM_U8", ember.int16: "PCM_16", ember.int32: "PCM_32", ember.float32: "FLOAT",
                ember.float64: "DOUBLE"}


def _wav_subtype(dtype, encoding, bits):
    """libsndfile's subtype for a WAV file, by torchaudio's rules for encoding and bits_per_sample."""
    if not encoding:
        if not bits:
            if dtype not in _WAV_DEFAULT:
                raise ValueError(f"Unsupported dtype for wav: {dtype}")
            return _WAV_DEFAULT[dtype]
        return "PCM_U8" if bits == 8 else f"PCM_{bits}"
    if encoding == "PCM_S":
        if bits == 8:
            raise ValueError("wav does not support 8-bit signed PCM encoding.")
        return f"PCM_{bits or 32}"
    rules = {"PCM_U": ({None: "PCM_U8", 8: "PCM_U8"}, "wav only supports 8-bit unsigned PCM encoding."),
             "PCM_F": ({None: "FLOAT", 32: "FLOAT", 64: "DOUBLE"}, "wav only supports 32/64-bit float PCM encoding."),
             "ULAW": ({None: "ULAW", 8: "ULAW"}, "wav only supports 8-bit mu-law encoding."),
             "ALAW": ({None: "ALAW", 8: "ALAW"}, "wav only supports 8-bit a-law encoding.")}
    if encoding not in rules:
        raise ValueError(f"wav does not support {encoding}.")
    table, message = rules[encoding]
    if bits not in table:
        raise ValueError(message)
    return table[bits]


def _subtype(fmt, dtype, encoding, bits):
    if fmt in ("ogg", "vorbis"):
        return "VORBIS"
    if fmt == "mp3":
        return "MPEG_LAYER_III"
    if fmt == "flac":
        table = {None: "PCM_16", 8: "PCM_S8", 16: "PCM_16", 24: "PCM_24"}
        if bits not in table:
            raise ValueError(f"flac does not support bits_per_sample {bits} (8, 16 or 24)")
        return table[bits]
    if fmt in ("wav", "wave"):
        return _wav_subtype(dtype, encoding, bits)
    raise ValueError(f"save: unsupported format {fmt!r} (wav, flac, ogg/vorbis, mp3, aac, m4a, mp4, opus)")


def _through_ffmpeg(fmt, backend):
    """AAC, M4A/MP4 and Opus always (libsndfile writes none of them); MP3 when the FFmpeg backend is chosen."""
    return fmt in _av_save.FORMATS and (fmt != "mp3" or backend == "ffmpeg")


def save(uri, src, sample_rate, channels_first=True, format=None, encoding=None, bits_per_sample=None,
         buffer_size=4096, backend=None, compression=None):
    """Writes a (channels, frames) tensor (frames, channels with channels_first=False) to `uri`. wav, flac,
    ogg/vorbis and mp3 through libsndfile; aac, m4a, mp4, opus (and mp3 with backend="ffmpeg") through PyAV, where
    `compression` is the bit rate in kbps."""
    sf = _soundfile()
    if not isinstance(src, ember.Tensor):
        raise TypeError(f"save: src must be a Tensor, got {type(src).__name__}")
    if src.dim() != 2:
        raise ValueError(f"Expected 2D Tensor, got {src.dim()}D.")
    fmt = (format or (os.path.splitext(_name(uri))[1][1:] if not hasattr(uri, "write") else "")).lower()
    if not fmt:
        raise RuntimeError("save: the format cannot be inferred from a file object: pass format=")
    fmt = {"oga": "ogg", "wave": "wav"}.get(fmt, fmt)
    if backend is not None and backend not in list_audio_backends():
        raise ValueError(f"Backend {backend!r} is not one of available backends: {list_audio_backends()}.")
    if _through_ffmpeg(fmt, backend or _backend[0]):
        data = src.detach().cpu().numpy()
        _av_save.save(uri, data if channels_first else data.T, int(sample_rate), fmt, compression)
        return
    subtype = _subtype(fmt, src.dtype, encoding, bits_per_sample)
    data = src.detach().cpu().numpy()
    if channels_first:
        data = data.T
    if data.dtype == np.uint8:  # libsndfile takes 8-bit PCM as int16 scaled to the full range
        data = (data.astype(np.int16) - 128) << 8
    kwargs = {}
    if compression is not None and fmt in ("flac", "ogg", "vorbis", "mp3"):
        kwargs["compression_level"] = float(compression) / (8.0 if fmt == "flac" else 10.0)
    container = {"vorbis": "OGG", "mp3": "MP3"}.get(fmt, fmt.upper())
    try:
        sf.write(uri if hasattr(uri, "write") else os.fspath(uri), np.ascontiguousarray(data), int(sample_rate),
                 subtype=subtype, format=container, **kwargs)
    except (RuntimeError, TypeError, sf.LibsndfileError) as e:
        raise RuntimeError(f"Failed to save audio to {_name(uri)}: {e}") from e


def list_audio_backends():
    """soundfile always; ffmpeg when PyAV is importable."""
    try:
        import av  # noqa: F401
    except ImportError:
        return ["soundfile"]
    return ["soundfile", "ffmpeg"]


_backend = ["soundfile"]


def get_audio_backend():
    return _backend[0]


def set_audio_backend(backend):
    """"soundfile" (the default: libsndfile's formats there, the rest through FFmpeg) or "ffmpeg" (everything
    through FFmpeg); None restores the default."""
    if backend is not None and backend not in list_audio_backends():
        raise RuntimeError(f"Backend {backend!r} is not one of available backends: {list_audio_backends()}.")
    _backend[0] = backend or "soundfile"
