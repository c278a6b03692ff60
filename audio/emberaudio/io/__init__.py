"""emberaudio.io: streaming audio input through FFmpeg (PyAV), as torchaudio.io."""
from ._stream_reader import SourceAudioStream, SourceStream, StreamReader

__all__ = ["StreamReader", "SourceAudioStream", "SourceStream"]
