"""Video files through PyAV (FFmpeg), as torchvision.io's video functions: read_video (a time window of
the first video and audio streams), read_video_timestamps and write_video (with audio). Unlike
torchvision, which returns whatever it decoded before an FFmpeg error, a file FFmpeg cannot read raises
a RuntimeError naming the file."""
import gc
import math
import os
from fractions import Fraction
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

import ember
from ember import Tensor

__all__ = ["read_video", "read_video_timestamps", "write_video"]

# PyAV's audio sample formats and the NumPy dtypes of their samples.
_AUDIO_DTYPES = {"dbl": "<f8", "dblp": "<f8", "flt": "<f4", "fltp": "<f4", "s16": "<i2", "s16p": "<i2",
                 "s32": "<i4", "s32p": "<i4", "u8": "u1", "u8p": "u1"}


def _av():
    import av
    return av


def _open(filename: str, what: str):
    if not os.path.exists(filename):
        raise RuntimeError(f"File not found: {filename}")
    av = _av()
    try:
        return av.open(filename, metadata_errors="ignore")
    except av.FFmpegError as e:
        raise RuntimeError(f"{what}: cannot open '{filename}': {e}") from None


def write_video(filename: str, video_array: Tensor, fps: float, video_codec: str = "libx264",
                options: Optional[Dict[str, Any]] = None, audio_array: Optional[Tensor] = None,
                audio_fps: Optional[float] = None, audio_codec: Optional[str] = None,
                audio_options: Optional[Dict[str, Any]] = None) -> None:
    """Writes uint8 frames [T, H, W, C] (RGB) at `fps`, and optionally audio [channels, samples] at
    `audio_fps` samples per second, into a container chosen by the file's extension."""
    av = _av()
    frames = np.asarray(ember.as_tensor(video_array).to(ember.uint8).numpy())
    if frames.ndim != 4 or frames.shape[3] != 3:
        raise ValueError(f"write_video: video_array must be [T, H, W, 3], got shape {frames.shape}")
    if isinstance(fps, float):  # PyAV needs an integer or a Fraction
        fps = int(round(fps))
    with av.open(filename, mode="w") as container:
        stream = container.add_stream(video_codec, rate=fps)
        stream.width, stream.height = frames.shape[2], frames.shape[1]
        stream.pix_fmt = "yuv420p" if video_codec != "libx264rgb" else "rgb24"
        stream.options = {k: str(v) for k, v in (options or {}).items()}
        if audio_array is not None:
            if audio_fps is None or audio_codec is None:
                raise ValueError("write_video: audio_array needs audio_fps and audio_codec")
            a_stream = container.add_stream(audio_codec, rate=int(audio_fps))
            a_stream.options = {k: str(v) for k, v in (audio_options or {}).items()}
            samples = np.asarray(ember.as_tensor(audio_array).numpy())
            if samples.ndim != 2:
                raise ValueError(f"write_video: audio_array must be [channels, samples], got shape {samples.shape}")
            layout = "stereo" if samples.shape[0] > 1 else "mono"
            sample_fmt = a_stream.format.name
            samples = samples.astype(np.dtype(_AUDIO_DTYPES[sample_fmt]))
            if not a_stream.format.is_planar:  # packed formats hold the channels interleaved in one plane
                samples = np.ascontiguousarray(samples.T).reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(samples), format=sample_fmt, layout=layout)
            frame.sample_rate = int(audio_fps)
            for packet in a_stream.encode(frame):
                container.mux(packet)
            for packet in a_stream.encode():
                container.mux(packet)
        for image in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def _to_pts(start: float, end: float, pts_unit: str, time_base) -> Tuple[int, float]:
    """A window in seconds (pts_unit "sec") as the stream's time_base units; "pts" windows pass through."""
    if pts_unit == "sec":
        start = int(math.floor(start * (1 / time_base)))
        if end != float("inf"):
            end = int(math.ceil(end * (1 / time_base)))
    return start, end


def _read_from_stream(container, start, end, pts_unit: str, stream, selector: Dict[str, int]) -> List:
    """The frames of `stream` whose pts lies in [start, end]: seek to the keyframe before start, then
    decode on until a frame lies past end."""
    start, end = _to_pts(start, end, pts_unit, stream.time_base)
    frames = {}
    try:
        container.seek(max(int(start) - 1, 0), any_frame=False, backward=True, stream=stream)
        for frame in container.decode(**selector):
            if frame.pts is None:
                continue
            frames[frame.pts] = frame
            if frame.pts >= end:  # the decoder hands frames out in presentation order
                break
    except _av().FFmpegError as e:
        raise RuntimeError(f"read_video: cannot decode '{container.name}': {e}") from None
    return [frames[p] for p in sorted(frames) if start <= p <= end]


def _align_audio(samples: np.ndarray, frames: List, ref_start: int, ref_end: float) -> np.ndarray:
    """Trims audio samples decoded in whole frames to the window [ref_start, ref_end] (stream units)."""
    start, end = frames[0].pts, frames[-1].pts
    total = samples.shape[1]
    step = (end - start + 1) / total
    s_idx, e_idx = 0, total
    if start < ref_start:
        s_idx = int((ref_start - start) / step)
    if end > ref_end:
        e_idx = int((ref_end - end) / step)
    return samples[:, s_idx:e_idx]


def read_video(filename: str, start_pts: Union[float, Fraction] = 0, end_pts: Optional[Union[float, Fraction]] = None,
               pts_unit: str = "pts") -> Tuple[Tensor, Tensor, Dict[str, Any]]:
    """The frames [T, H, W, 3] (uint8 RGB) and audio [channels, samples] of `filename` between start_pts
    and end_pts (inclusive; in the stream's time_base units, or seconds with pts_unit="sec"), and an info
    dict with "video_fps" and "audio_fps"."""
    if pts_unit not in ("pts", "sec"):
        raise ValueError(f"pts_unit must be 'pts' or 'sec', got '{pts_unit}'")
    if end_pts is None:
        end_pts = float("inf")
    if end_pts < start_pts:
        raise ValueError(f"end_pts should be larger than start_pts, got start_pts={start_pts} and end_pts={end_pts}")
    info: Dict[str, Any] = {}
    video_frames, audio_frames, audio_window = [], [], (0, float("inf"))
    with _open(filename, "read_video") as container:
        if container.streams.video:
            video_frames = _read_from_stream(container, start_pts, end_pts, pts_unit, container.streams.video[0],
                                             {"video": 0})
            if container.streams.video[0].average_rate is not None:
                info["video_fps"] = float(container.streams.video[0].average_rate)
        if container.streams.audio:
            audio = container.streams.audio[0]
            audio_frames = _read_from_stream(container, start_pts, end_pts, pts_unit, audio, {"audio": 0})
            info["audio_fps"] = audio.rate
            audio_window = _to_pts(start_pts, end_pts, pts_unit, audio.time_base)
        vframes_list = [frame.to_rgb().to_ndarray() for frame in video_frames]
        aframes_list = [_planar(frame) for frame in audio_frames]
    if vframes_list:
        vframes = ember.from_numpy(np.stack(vframes_list))
    else:
        vframes = ember.empty((0, 1, 1, 3), dtype=ember.uint8)
    if aframes_list:
        aframes = ember.from_numpy(np.ascontiguousarray(
            _align_audio(np.concatenate(aframes_list, 1), audio_frames, *audio_window)))
    else:
        aframes = ember.empty((1, 0), dtype=ember.float32)
    gc.collect()  # PyAV's frames hold FFmpeg buffers until collected
    return vframes, aframes, info


def _planar(frame) -> np.ndarray:
    """An audio frame's samples as [channels, samples], whether its format is planar or packed."""
    samples = frame.to_ndarray()
    if not frame.format.is_planar:
        channels = len(frame.layout.channels)
        samples = samples.reshape(-1, channels).T
    return samples


def read_video_timestamps(filename: str, pts_unit: str = "pts") -> Tuple[List[Union[int, Fraction]], Optional[float]]:
    """The presentation timestamps of the first video stream's frames (time_base units, or Fractions of a
    second with pts_unit="sec"), sorted, and its frame rate."""
    if pts_unit not in ("pts", "sec"):
        raise ValueError(f"pts_unit must be 'pts' or 'sec', got '{pts_unit}'")
    pts: List = []
    video_fps = None
    with _open(filename, "read_video_timestamps") as container:
        if container.streams.video:
            stream = container.streams.video[0]
            frames = _read_from_stream(container, 0, float("inf"), "pts", stream, {"video": 0})
            pts = sorted(frame.pts for frame in frames)
            if stream.average_rate is not None:
                video_fps = float(stream.average_rate)
            if pts_unit == "sec":
                pts = [p * stream.time_base for p in pts]
    return pts, video_fps
