"""Video IO against PyAV itself: the tests write small files with PyAV (or with write_video and read them
back with PyAV) and compare frames, audio samples and timestamps with what PyAV decodes."""
from fractions import Fraction

import numpy as np
import pytest

import ember
from embervision.io import VideoReader, read_video, read_video_timestamps, write_video

av = pytest.importorskip("av")

FPS, FRAMES, H, W = 10, 16, 32, 48
RATE = 8000


def _frames() -> np.ndarray:
    y, x = np.mgrid[0:H, 0:W]
    return np.stack([np.stack([(x * 5 + 9 * t) % 256, (y * 7 + 3 * t) % 256, np.full((H, W), 16 * t % 256)], axis=2)
                     for t in range(FRAMES)]).astype(np.uint8)


@pytest.fixture(scope="module")
def movie(tmp_path_factory):
    """An H.264 video (keyframe every 4 frames) with a mono AAC track, written by PyAV."""
    path = tmp_path_factory.mktemp("video") / "movie.mp4"
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = W, H, "yuv420p"
        stream.codec_context.gop_size = 4
        audio = container.add_stream("aac", rate=RATE)
        tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(RATE * FRAMES // FPS) / RATE)).astype(np.float32)
        frame = av.AudioFrame.from_ndarray(tone[None, :], format="fltp", layout="mono")
        frame.sample_rate = RATE
        for packet in list(audio.encode(frame)) + list(audio.encode()):
            container.mux(packet)
        for image in _frames():
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return str(path)


def _pyav_video(path):
    with av.open(path) as container:
        stream = container.streams.video[0]
        frames = [(f.pts, f.to_rgb().to_ndarray()) for f in container.decode(video=0)]
        return frames, stream.time_base


def _pyav_audio(path):
    with av.open(path) as container:
        return np.concatenate([f.to_ndarray() for f in container.decode(audio=0)], axis=1)


def test_read_video_equals_pyav(movie):
    expected, _ = _pyav_video(movie)
    vframes, aframes, info = read_video(movie)
    assert vframes.dtype == ember.uint8 and tuple(vframes.shape) == (FRAMES, H, W, 3)
    np.testing.assert_array_equal(vframes.numpy(), np.stack([f for _, f in expected]))
    assert info["video_fps"] == FPS and info["audio_fps"] == RATE
    np.testing.assert_array_equal(aframes.numpy(), _pyav_audio(movie))


@pytest.mark.parametrize("first, last", [(3, 9), (0, 0), (5, 15)])
def test_read_video_window_in_pts_and_seconds(movie, first, last):
    expected, time_base = _pyav_video(movie)
    pts = [p for p, _ in expected]
    by_pts, _, _ = read_video(movie, start_pts=pts[first], end_pts=pts[last])
    np.testing.assert_array_equal(by_pts.numpy(), np.stack([f for _, f in expected[first:last + 1]]))
    seconds = [p * time_base for p in pts]
    by_sec, _, _ = read_video(movie, start_pts=seconds[first], end_pts=seconds[last], pts_unit="sec")
    np.testing.assert_array_equal(by_sec.numpy(), by_pts.numpy())


def test_read_video_timestamps_equal_pyav(movie):
    expected, time_base = _pyav_video(movie)
    pts, fps = read_video_timestamps(movie)
    assert pts == sorted(p for p, _ in expected) and fps == FPS
    seconds, _ = read_video_timestamps(movie, pts_unit="sec")
    assert seconds == [Fraction(p) * time_base for p in pts]
    assert all(isinstance(s, Fraction) for s in seconds)


def test_read_video_argument_errors(movie, tmp_path):
    with pytest.raises(ValueError, match="end_pts should be larger than start_pts"):
        read_video(movie, start_pts=5, end_pts=2)
    with pytest.raises(ValueError, match="pts_unit must be 'pts' or 'sec'"):
        read_video(movie, pts_unit="frames")
    with pytest.raises(RuntimeError, match="File not found"):
        read_video(str(tmp_path / "missing.mp4"))
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(RuntimeError, match="read_video: cannot open '.*junk.mp4'"):
        read_video(str(junk))


def test_write_video_lossless_round_trip_with_audio(tmp_path):
    path = str(tmp_path / "out.mkv")
    frames = _frames()
    audio = np.random.default_rng(1).integers(-20000, 20000, (2, 4000)).astype(np.int16)
    write_video(path, ember.tensor(frames), fps=FPS, video_codec="libx264rgb", options={"crf": 0},
                audio_array=ember.tensor(audio), audio_fps=RATE, audio_codec="pcm_s16le")
    decoded, _ = _pyav_video(path)
    np.testing.assert_array_equal(np.stack([f for _, f in decoded]), frames)
    vframes, aframes, info = read_video(path)
    np.testing.assert_array_equal(vframes.numpy(), frames)
    np.testing.assert_array_equal(aframes.numpy(), audio)  # PCM: every sample back, channels apart
    assert info == {"video_fps": FPS, "audio_fps": RATE}


def test_write_video_checks_its_input(tmp_path):
    with pytest.raises(ValueError, match=r"video_array must be \[T, H, W, 3\]"):
        write_video(str(tmp_path / "x.mp4"), ember.zeros((4, 8, 8), dtype=ember.uint8), fps=5)


def test_video_reader_iterates_like_pyav(movie):
    expected, time_base = _pyav_video(movie)
    reader = VideoReader(movie)
    got = list(reader)
    assert len(got) == FRAMES
    for item, (pts, frame) in zip(got, expected):
        assert item["pts"] == float(pts * time_base)
        np.testing.assert_array_equal(item["data"].numpy(), frame.transpose(2, 0, 1))


@pytest.mark.parametrize("index", [0, 5, 10, 15])
def test_video_reader_seek_is_exact(movie, index):
    expected, time_base = _pyav_video(movie)
    target = float(expected[index][0] * time_base)
    item = next(VideoReader(movie).seek(target))
    assert item["pts"] == target
    np.testing.assert_array_equal(item["data"].numpy(), expected[index][1].transpose(2, 0, 1))


def test_video_reader_keyframe_seek_lands_on_the_keyframe_before(movie):
    expected, time_base = _pyav_video(movie)
    with av.open(movie) as container:
        keyframes = [f.pts for f in container.decode(video=0) if f.key_frame]
    assert len(keyframes) > 1  # gop_size 4
    target = expected[-2][0]
    item = next(VideoReader(movie).seek(float(target * time_base), keyframes_only=True))
    assert item["pts"] == float(max(k for k in keyframes if k <= target) * time_base)


def test_video_reader_metadata_and_streams(movie):
    reader = VideoReader(movie)
    meta = reader.get_metadata()
    with av.open(movie) as container:
        v, a = container.streams.video[0], container.streams.audio[0]
        assert meta["video"] == {"fps": [float(v.average_rate)], "duration": [float(v.duration * v.time_base)]}
        assert meta["audio"] == {"framerate": [float(a.sample_rate)], "duration": [float(a.duration * a.time_base)]}
    assert reader.set_current_stream("audio")
    samples = np.concatenate([item["data"].numpy() for item in reader], axis=0)
    np.testing.assert_array_equal(samples.T, _pyav_audio(movie))
    assert not reader.set_current_stream("video:3")
    with pytest.raises(ValueError, match="unknown stream type 'subtitle'"):
        reader.set_current_stream("subtitle")
