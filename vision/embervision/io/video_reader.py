"""VideoReader: frame-by-frame reading of one stream of a video file through PyAV, as torchvision's
VideoReader (its "pyav" backend): iteration yields {"data": frame, "pts": seconds}, `seek` moves to a
time (exactly, by decoding on from the keyframe before it, or to that keyframe with keyframes_only),
`get_metadata` gives each stream type's durations and rates, `set_current_stream` switches streams."""
from typing import Any, Dict, List, Tuple

import ember

from .video import _av, _open, _planar

__all__ = ["VideoReader"]


def _parse_stream(stream: str) -> Tuple[str, int]:
    kind, _, index = stream.partition(":")
    if kind not in ("video", "audio"):
        raise ValueError(f"VideoReader: unknown stream type '{kind}' in '{stream}' (use 'video', 'audio', "
                         f"'video:N' or 'audio:N')")
    try:
        return kind, int(index) if index else 0
    except ValueError:
        raise ValueError(f"VideoReader: bad stream index in '{stream}'") from None


class VideoReader:
    """Reads `src` (a path) one frame at a time from `stream` ("video", "audio", "video:1", ...). Video
    frames come as uint8 [3, H, W] RGB tensors, audio frames as [samples, channels]."""

    def __init__(self, src: str, stream: str = "video", num_threads: int = 0) -> None:
        self.src = str(src)
        self.container = _open(self.src, "VideoReader")
        self._skip_before = None
        self.num_threads = num_threads
        if not self.set_current_stream(stream):
            self.container.close()
            raise ValueError(f"VideoReader: '{src}' has no stream '{stream}'")

    def __iter__(self) -> "VideoReader":
        return self

    def __next__(self) -> Dict[str, Any]:
        av = _av()
        while True:
            try:
                frame = next(self._frames)
            except av.FFmpegError as e:
                raise RuntimeError(f"VideoReader: cannot decode '{self.src}': {e}") from None
            pts = float(frame.pts * frame.time_base)
            if self._skip_before is not None and pts < self._skip_before:
                continue  # decoded from the keyframe before a seek target: not yet there
            self._skip_before = None
            break
        if self._kind == "video":
            data = ember.from_numpy(frame.to_rgb().to_ndarray()).permute(2, 0, 1).contiguous()
        else:
            data = ember.from_numpy(_planar(frame).T.copy())
        return {"data": data, "pts": pts}

    def seek(self, time_s: float, keyframes_only: bool = False) -> "VideoReader":
        """Moves so the next frame is the first at or after `time_s` seconds (or, with keyframes_only,
        the keyframe at or before it)."""
        offset = int(round(time_s / self._stream.time_base))
        self.container.seek(max(offset, 0), backward=True, any_frame=False, stream=self._stream)
        self._frames = self.container.decode(**{self._kind: self._index})
        # a tiny tolerance: a frame's pts in seconds may round just below a time given as its pts
        self._skip_before = None if keyframes_only else time_s - 1e-9
        return self

    def get_metadata(self) -> Dict[str, Dict[str, List[float]]]:
        """{"video": {"duration": [...], "fps": [...]}, "audio": {"duration": [...], "framerate": [...]}},
        one entry per stream of that type, durations in seconds."""
        metadata: Dict[str, Dict[str, List[float]]] = {}
        for stream in self.container.streams:
            if stream.type not in ("video", "audio"):
                continue
            rate_name = "fps" if stream.type == "video" else "framerate"
            entry = metadata.setdefault(stream.type, {rate_name: [], "duration": []})
            rate = stream.average_rate if stream.type == "video" else stream.sample_rate
            duration = stream.duration if stream.duration is not None else 0
            entry["duration"].append(float(duration * stream.time_base))
            entry[rate_name].append(float(rate) if rate is not None else float("nan"))
        return metadata

    def set_current_stream(self, stream: str) -> bool:
        """Switches to `stream` ("video", "audio:1", ...) from its start; False when the file has no such stream."""
        kind, index = _parse_stream(stream)
        streams = self.container.streams.video if kind == "video" else self.container.streams.audio
        if index >= len(streams):
            return False
        self._kind, self._index, self._stream = kind, index, streams[index]
        self._stream.thread_count = self.num_threads if self.num_threads > 0 else self._stream.thread_count
        self.container.seek(0, backward=True, any_frame=False, stream=self._stream)
        self._frames = self.container.decode(**{kind: index})
        self._skip_before = None
        return True

    def __del__(self):
        container = getattr(self, "container", None)
        if container is not None:
            container.close()
