"""VideoClips: an index of every clip of `clip_length_in_frames` frames, `frames_between_clips` apart, over
a list of videos (optionally resampled to `frame_rate`), built from each video's frame timestamps, as
torchvision.datasets.video_utils.VideoClips with its PyAV backend; get_clip(i) decodes clip i."""
import bisect
import math
import warnings
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

import ember

__all__ = ["VideoClips", "unfold"]


def unfold(values: np.ndarray, size: int, step: int) -> np.ndarray:
    """The windows of `size` consecutive values, starting every `step` values: [n_windows, size]."""
    count = (len(values) - size) // step + 1 if len(values) >= size else 0
    if count <= 0:
        return np.zeros((0, size), dtype=values.dtype)
    return np.stack([values[i * step:i * step + size] for i in range(count)])


def _resample_video_idx(num_frames: int, original_fps: float, new_fps: float) -> Union[slice, np.ndarray]:
    """Which frames of a video at original_fps make it one at new_fps: every step-th when that step is
    whole, else floor(i * step) for each new frame i."""
    step = float(original_fps) / new_fps
    if step.is_integer():
        return slice(None, None, int(step))
    return np.floor(np.arange(num_frames, dtype=np.float32) * step).astype(np.int64)


class VideoClips:
    def __init__(self, video_paths: List[str], clip_length_in_frames: int = 16, frames_between_clips: int = 1,
                 frame_rate: Optional[float] = None, _precomputed_metadata: Optional[Dict[str, Any]] = None,
                 num_workers: int = 0) -> None:
        self.video_paths = list(video_paths)
        self.num_workers = num_workers
        if _precomputed_metadata is None:
            self._compute_frame_pts()
        else:
            self._init_from_metadata(_precomputed_metadata)
        self.compute_clips(clip_length_in_frames, frames_between_clips, frame_rate)

    def _compute_frame_pts(self) -> None:
        from ..io import read_video_timestamps
        self.video_pts: List[ember.Tensor] = []
        self.video_fps: List[Optional[float]] = []
        for path in self.video_paths:
            pts, fps = read_video_timestamps(path)
            self.video_pts.append(ember.tensor(np.asarray(pts, dtype=np.int64)))
            self.video_fps.append(fps)

    def _init_from_metadata(self, metadata: Dict[str, Any]) -> None:
        self.video_paths = metadata["video_paths"]
        if len(self.video_paths) != len(metadata["video_pts"]) or len(self.video_paths) != len(metadata["video_fps"]):
            raise ValueError("VideoClips: the metadata's video_paths, video_pts and video_fps differ in length")
        self.video_pts = metadata["video_pts"]
        self.video_fps = metadata["video_fps"]

    @property
    def metadata(self) -> Dict[str, Any]:
        return {"video_paths": self.video_paths, "video_pts": self.video_pts, "video_fps": self.video_fps}

    def subset(self, indices: List[int]) -> "VideoClips":
        """The clips of the videos at `indices` only, without reading them again."""
        metadata = {"video_paths": [self.video_paths[i] for i in indices],
                    "video_pts": [self.video_pts[i] for i in indices],
                    "video_fps": [self.video_fps[i] for i in indices]}
        return type(self)(metadata["video_paths"], self.num_frames, self.step, self.frame_rate,
                          _precomputed_metadata=metadata, num_workers=self.num_workers)

    @staticmethod
    def compute_clips_for_video(video_pts: np.ndarray, num_frames: int, step: int, fps: Optional[float],
                                frame_rate: Optional[float] = None) -> Tuple[np.ndarray, Any]:
        if fps is None:  # a video without a frame rate: treat it as 1 fps, as torchvision does
            fps = 1
        if frame_rate is None:
            frame_rate = fps
        total_frames = len(video_pts) * (float(frame_rate) / fps)
        idxs = _resample_video_idx(int(math.floor(total_frames)), fps, frame_rate)
        clips = unfold(video_pts[idxs], num_frames, step)
        if not clips.size:
            warnings.warn("There aren't enough frames in the current video to get a clip for the given clip length "
                          "and frames between clips. The video (and potentially others) will be skipped.")
        idxs = [idxs] * len(clips) if isinstance(idxs, slice) else unfold(idxs, num_frames, step)
        return clips, idxs

    def compute_clips(self, num_frames: int, step: int, frame_rate: Optional[float] = None) -> None:
        """Indexes the clips of num_frames frames every `step` frames (at frame_rate, if given)."""
        self.num_frames, self.step, self.frame_rate = num_frames, step, frame_rate
        self.clips: List[np.ndarray] = []
        self.resampling_idxs: List[Any] = []
        for pts, fps in zip(self.video_pts, self.video_fps):
            clips, idxs = self.compute_clips_for_video(np.asarray(pts.numpy(), dtype=np.int64), num_frames, step, fps,
                                                       frame_rate)
            self.clips.append(clips)
            self.resampling_idxs.append(idxs)
        self.cumulative_sizes = np.cumsum([len(c) for c in self.clips]).tolist()

    def __len__(self) -> int:
        return self.num_clips()

    def num_videos(self) -> int:
        return len(self.video_paths)

    def num_clips(self) -> int:
        return self.cumulative_sizes[-1] if self.cumulative_sizes else 0

    def get_clip_location(self, idx: int) -> Tuple[int, int]:
        """(video index, clip index within that video) of global clip idx."""
        video_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        clip_idx = idx if video_idx == 0 else idx - self.cumulative_sizes[video_idx - 1]
        return video_idx, clip_idx

    def get_clip(self, idx: int) -> Tuple[ember.Tensor, ember.Tensor, Dict[str, Any], int]:
        """Clip idx: (video [T, H, W, 3], audio, info, video index)."""
        from ..io import read_video
        if idx >= self.num_clips():
            raise IndexError(f"Index {idx} out of range ({self.num_clips()} number of clips)")
        video_idx, clip_idx = self.get_clip_location(idx)
        clip_pts = self.clips[video_idx][clip_idx]
        video, audio, info = read_video(self.video_paths[video_idx], int(clip_pts[0]), int(clip_pts[-1]))
        if self.frame_rate is not None:
            resampling_idx = self.resampling_idxs[video_idx][clip_idx]
            if isinstance(resampling_idx, np.ndarray):
                resampling_idx = ember.tensor(resampling_idx - resampling_idx[0])
            video = video[resampling_idx]
            info["video_fps"] = self.frame_rate
        if len(video) != self.num_frames:
            raise RuntimeError(f"VideoClips: clip {idx} of {self.video_paths[video_idx]} decoded to "
                               f"{tuple(video.shape)}, expected {self.num_frames} frames")
        return video, audio, info, video_idx


