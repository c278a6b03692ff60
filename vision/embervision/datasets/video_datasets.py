"""Action-recognition video datasets over a VideoClips index, as torchvision's (0.10) Kinetics400, HMDB51
and UCF101: videos under root/<class>/..., each item a clip (video [T, H, W, C], audio, label); HMDB51 and
UCF101 choose their videos by the official split files (`fold` 1..3, train or test)."""
import glob
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from .folder import find_classes, make_dataset
from .video_utils import VideoClips
from .vision import VisionDataset

__all__ = ["Kinetics400", "HMDB51", "UCF101"]


class _VideoClipDataset(VisionDataset):
    samples: List[Tuple[str, int]]
    indices: List[int]
    video_clips: VideoClips

    def _index(self, extensions: Tuple[str, ...], frames_per_clip: int, step_between_clips: int,
               frame_rate: Optional[float], precomputed: Optional[Dict[str, Any]], num_workers: int) -> List[str]:
        self.classes, self.class_to_idx = find_classes(self.root)
        self.samples = make_dataset(self.root, self.class_to_idx, extensions, is_valid_file=None)
        video_list = [path for path, _ in self.samples]
        self.full_video_clips = VideoClips(video_list, frames_per_clip, step_between_clips, frame_rate, precomputed,
                                           num_workers=num_workers)
        return video_list

    @property
    def metadata(self) -> Dict[str, Any]:
        return self.full_video_clips.metadata

    def __len__(self) -> int:
        return self.video_clips.num_clips()

    def __getitem__(self, idx: int) -> Tuple[Any, Any, int]:
        video, audio, _, video_idx = self.video_clips.get_clip(idx)
        label = self.samples[self.indices[video_idx]][1]
        if self.transform is not None:
            video = self.transform(video)
        return video, audio, label


class Kinetics400(_VideoClipDataset):
    """Every video under root/<class>/ with one of `extensions`."""

    def __init__(self, root: str, frames_per_clip: int, step_between_clips: int = 1, frame_rate: Optional[float] = None,
                 extensions: Tuple[str, ...] = ("avi",), transform: Optional[Callable] = None,
                 _precomputed_metadata: Optional[Dict[str, Any]] = None, num_workers: int = 1) -> None:
        super().__init__(root)
        video_list = self._index(tuple(extensions), frames_per_clip, step_between_clips, frame_rate,
                                 _precomputed_metadata, num_workers)
        self.indices = list(range(len(video_list)))
        self.video_clips = self.full_video_clips
        self.transform = transform


class _FoldedVideoDataset(_VideoClipDataset):
    """HMDB51 and UCF101: the .avi videos under root, one of three train/test folds chosen by the
    annotation files (each subclass's _select_fold reads its own format)."""

    def __init__(self, root: str, annotation_path: str, frames_per_clip: int, step_between_clips: int = 1,
                 frame_rate: Optional[float] = None, fold: int = 1, train: bool = True,
                 transform: Optional[Callable] = None, _precomputed_metadata: Optional[Dict[str, Any]] = None,
                 num_workers: int = 1) -> None:
        super().__init__(root)
        if fold not in (1, 2, 3):
            raise ValueError(f"fold should be between 1 and 3, got {fold}")
        self.fold, self.train = fold, train
        video_list = self._index(("avi",), frames_per_clip, step_between_clips, frame_rate, _precomputed_metadata,
                                 num_workers)
        self.indices = self._select_fold(video_list, annotation_path, fold, train)
        self.video_clips = self.full_video_clips.subset(self.indices)
        self.transform = transform


class HMDB51(_FoldedVideoDataset):
    """root/<class>/<video>.avi; annotation_path holds <class>_test_split<fold>.txt files whose lines
    "<video>.avi <tag>" put a video in the train (1) or test (2) part of that fold."""

    TRAIN_TAG, TEST_TAG = 1, 2

    def _select_fold(self, video_list: List[str], annotations_dir: str, fold: int, train: bool) -> List[int]:
        target_tag = self.TRAIN_TAG if train else self.TEST_TAG
        selected = set()
        for path in glob.glob(os.path.join(annotations_dir, f"*test_split{fold}.txt")):
            with open(path) as fid:
                for line in fid:
                    if line.strip():
                        video_filename, tag = line.split()
                        if int(tag) == target_tag:
                            selected.add(video_filename)
        return [i for i, path in enumerate(video_list) if os.path.basename(path) in selected]


class UCF101(_FoldedVideoDataset):
    """root/<class>/<video>.avi; annotation_path holds trainlist0<fold>.txt / testlist0<fold>.txt, whose
    lines start with the video's path relative to root."""

    def _select_fold(self, video_list: List[str], annotation_path: str, fold: int, train: bool) -> List[int]:
        name = "{}list{:02d}.txt".format("train" if train else "test", fold)
        with open(os.path.join(annotation_path, name)) as fid:
            selected = {os.path.join(self.root, line.strip().split(" ")[0]) for line in fid if line.strip()}
        return [i for i, path in enumerate(video_list) if path in selected]
