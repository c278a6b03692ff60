"""VideoClips and the video datasets (Kinetics400, HMDB51, UCF101) on small AVI files written with PyAV:
clip counts from the unfold formula, clip frames equal to PyAV's decoded frames (also when resampled to
another frame rate), labels and the official split files."""
import numpy as np
import pytest

from embervision.datasets import HMDB51, UCF101, Kinetics400, VideoClips

av = pytest.importorskip("av")

FPS = 5


def _write_avi(path, frames: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (frames, 16, 16, 3), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("mpeg4", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = 16, 16, "yuv420p"
        for image in pixels:
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return pixels


def _decoded(path) -> np.ndarray:
    with av.open(str(path)) as container:
        return np.stack([f.to_rgb().to_ndarray() for f in container.decode(video=0)])


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    root = tmp_path_factory.mktemp("clips")
    paths = {"jump/v_jump_01.avi": 10, "jump/v_jump_02.avi": 7, "run/v_run_01.avi": 12}
    for i, (rel, n) in enumerate(paths.items()):
        _write_avi(root / rel, n, i)
    return root, {rel: _decoded(root / rel) for rel in paths}


def test_clip_index_and_frames(videos):
    root, decoded = videos
    rels = sorted(decoded)
    clips = VideoClips([str(root / r) for r in rels], clip_length_in_frames=4, frames_between_clips=3)
    counts = [(len(decoded[r]) - 4) // 3 + 1 for r in rels]  # 3, 2, 3
    assert clips.num_clips() == sum(counts) and clips.num_videos() == 3
    assert clips.video_fps == [FPS] * 3
    k = 0
    for v, rel in enumerate(rels):
        for c in range(counts[v]):
            video, _, info, video_idx = clips.get_clip(k)
            assert video_idx == v and clips.get_clip_location(k) == (v, c)
            np.testing.assert_array_equal(video.numpy(), decoded[rel][3 * c:3 * c + 4])
            k += 1
    with pytest.raises(IndexError, match=f"Index {k} out of range \\({k} number of clips\\)"):
        clips.get_clip(k)


@pytest.mark.parametrize("frame_rate, picks", [(2.5, [0, 2, 4, 6]), (2, [0, 2, 5, 7])])
def test_resampled_frame_rate(videos, frame_rate, picks):
    root, decoded = videos
    frames = decoded["jump/v_jump_01.avi"]  # 10 frames at 5 fps
    clips = VideoClips([str(root / "jump/v_jump_01.avi")], clip_length_in_frames=4, frames_between_clips=10,
                       frame_rate=frame_rate)
    assert clips.num_clips() == 1
    video, _, info, _ = clips.get_clip(0)
    assert info["video_fps"] == frame_rate
    np.testing.assert_array_equal(video.numpy(), frames[picks])


def test_too_short_videos_are_skipped_with_a_warning(videos):
    root, _ = videos
    with pytest.warns(UserWarning, match="There aren't enough frames"):
        clips = VideoClips([str(root / "jump/v_jump_02.avi")], clip_length_in_frames=8)
    assert clips.num_clips() == 0


def test_kinetics_labels(videos):
    root, decoded = videos
    ds = Kinetics400(str(root), frames_per_clip=5, step_between_clips=5)
    assert ds.classes == ["jump", "run"] and len(ds) == 2 + 1 + 2
    video, audio, label = ds[4]
    assert label == 1
    np.testing.assert_array_equal(video.numpy(), decoded["run/v_run_01.avi"][5:10])


def test_ucf101_and_hmdb51_folds(videos, tmp_path):
    root, decoded = videos
    (tmp_path / "trainlist01.txt").write_text("jump/v_jump_01.avi 1\nrun/v_run_01.avi 2\n")
    (tmp_path / "testlist01.txt").write_text("jump/v_jump_02.avi\n")
    ucf_train = UCF101(str(root), str(tmp_path), frames_per_clip=4, step_between_clips=4)
    assert ucf_train.indices == [0, 2] and len(ucf_train) == 2 + 3
    assert [ucf_train[i][2] for i in range(len(ucf_train))] == [0, 0, 1, 1, 1]
    ucf_test = UCF101(str(root), str(tmp_path), frames_per_clip=4, step_between_clips=4, train=False)
    np.testing.assert_array_equal(ucf_test[0][0].numpy(), decoded["jump/v_jump_02.avi"][0:4])
    (tmp_path / "jump_test_split1.txt").write_text("v_jump_01.avi 2\nv_jump_02.avi 1\n")
    (tmp_path / "run_test_split1.txt").write_text("v_run_01.avi 1\n")
    hmdb = HMDB51(str(root), str(tmp_path), frames_per_clip=6, step_between_clips=6)
    assert hmdb.indices == [1, 2] and [hmdb[i][2] for i in range(len(hmdb))] == [0, 1, 1]
    with pytest.raises(ValueError, match="fold should be between 1 and 3"):
        HMDB51(str(root), str(tmp_path), frames_per_clip=6, fold=4)
