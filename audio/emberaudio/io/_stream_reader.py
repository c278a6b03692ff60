"""StreamReader: audio decoded chunk by chunk from a long file or a file object (through FFmpeg), with
precise seeking; the part of torchaudio.io.StreamReader that reads audio. Chunks are (frames, channels)
float32 tensors of `frames_per_chunk` frames (the last may be shorter)."""
from dataclasses import dataclass

import numpy as np

import ember

from .. import _av


@dataclass
class SourceAudioStream:
    media_type: str
    codec: str
    codec_long_name: str
    format: str  # FFmpeg's sample format
    bit_rate: int
    num_frames: int  # as the container declares it (0 when unknown)
    sample_rate: float
    num_channels: int


@dataclass
class SourceStream:
    media_type: str
    codec: str
    codec_long_name: str


@dataclass
class _Output:
    stream: object
    frames_per_chunk: int
    sample_rate: int  # output rate (the source's unless resampled)


class StreamReader:
    """src: a path or a readable (seekable for seek()) file object; format: the container when FFmpeg cannot
    guess it from a file object."""

    def __init__(self, src, format=None):
        self._src = src
        self._format = format
        self._container = _av.open_input(src, format)
        self._outputs = []
        self._start = 0.0  # seconds: where the next stream() starts

    @property
    def num_src_streams(self):
        return len(self._container.streams)

    @property
    def default_audio_stream(self):
        audio = list(self._container.streams.audio)
        return audio[0].index if audio else None

    @property
    def num_out_streams(self):
        return len(self._outputs)

    def get_src_stream_info(self, i):
        if not 0 <= i < self.num_src_streams:
            raise IndexError(f"stream index {i} out of range for {self.num_src_streams} streams")
        stream = self._container.streams[i]
        ctx = stream.codec_context
        if stream.type != "audio":
            return SourceStream(stream.type, ctx.name if ctx else "", getattr(getattr(ctx, "codec", None),
                                                                              "long_name", ""))
        return SourceAudioStream("audio", ctx.name, ctx.codec.long_name, ctx.format.name if ctx.format else "",
                                 int(ctx.bit_rate or 0), int(stream.frames or 0), float(ctx.sample_rate),
                                 len(ctx.layout.channels))

    def add_basic_audio_stream(self, frames_per_chunk, stream_index=None, sample_rate=None):
        """Adds an output of `frames_per_chunk`-frame chunks (-1: one chunk per decoded frame) of the audio stream
        `stream_index` (default: the first), resampled to `sample_rate` when given."""
        if frames_per_chunk == 0 or frames_per_chunk < -1:
            raise ValueError(f"frames_per_chunk must be positive or -1, got {frames_per_chunk}")
        stream = _av.audio_stream(self._container, self._src, stream_index)
        rate = int(sample_rate) if sample_rate is not None else int(stream.codec_context.sample_rate)
        if rate <= 0:
            raise ValueError(f"sample_rate must be positive, got {sample_rate}")
        self._outputs.append(_Output(stream, frames_per_chunk, rate))

    def seek(self, timestamp):
        """The next stream() starts exactly at `timestamp` seconds."""
        if timestamp < 0:
            raise ValueError(f"timestamp must be non-negative, got {timestamp}")
        self._start = float(timestamp)

    def _samples(self, out):
        """Float (channels, n) arrays of the output's stream from the current start, resampled if asked."""
        src_rate = int(out.stream.codec_context.sample_rate)
        container = _av.open_input(self._rewound(), self._format) if self._used else self._container
        self._used = True
        stream = container.streams[out.stream.index]
        start = int(round(self._start * src_rate))
        blocks = (_av.to_float(data, base) for data, base in _av.decode(container, stream, self._src, start))
        if out.sample_rate == src_rate:
            yield from blocks
            return
        yield from _resampled(blocks, src_rate, out.sample_rate)

    _used = False

    def _rewound(self):
        if hasattr(self._src, "seek"):
            self._src.seek(0)
        return self._src

    def stream(self):
        """Yields one tuple per step with a chunk (or None once that output is exhausted) for each output."""
        if not self._outputs:
            raise RuntimeError("No output stream is configured: call add_basic_audio_stream first")
        if len(self._outputs) > 1:
            raise RuntimeError("stream() reads one output stream at a time; add a single audio output")
        out = self._outputs[0]
        pending, size = [], 0
        for block in self._samples(out):
            if out.frames_per_chunk == -1:
                yield (ember.from_numpy(np.ascontiguousarray(block.T)),)
                continue
            pending.append(block)
            size += block.shape[1]
            while size >= out.frames_per_chunk:
                data = np.concatenate(pending, axis=1)
                yield (ember.from_numpy(np.ascontiguousarray(data[:, : out.frames_per_chunk].T)),)
                rest = data[:, out.frames_per_chunk:]
                pending, size = [rest], rest.shape[1]
        if size:
            yield (ember.from_numpy(np.ascontiguousarray(np.concatenate(pending, axis=1).T)),)

    def close(self):
        self._container.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _resampled(blocks, src_rate, dst_rate):
    """Streams float (channels, n) blocks through FFmpeg's resampler (libswresample keeps the filter state across
    blocks, so chunk edges do not show)."""
    av = _av.av_module()
    resampler = None
    for block in blocks:
        layout = {1: "mono", 2: "stereo"}.get(block.shape[0], f"{block.shape[0]}c")
        if resampler is None:
            resampler = av.AudioResampler(format="fltp", layout=layout, rate=dst_rate)
        frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(block, dtype=np.float32), format="fltp",
                                           layout=layout)
        frame.sample_rate = src_rate
        for out in resampler.resample(frame):
            yield out.to_ndarray()
    if resampler is not None:
        for out in resampler.resample(None):
            yield out.to_ndarray()
