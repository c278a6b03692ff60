"""The FFmpeg (PyAV) backend of load/info and emberaudio.io.StreamReader, on files the tests write with PyAV
and soundfile: compressed formats equal a plain PyAV decode written here (and stay within codec loss of the
signal), lossless ones equal soundfile's samples; offsets, file objects, video files' audio, backend selection,
streaming with seek and resampling; corrupt and truncated files raise naming the file."""
import io

import av
import numpy as np
import pytest
import soundfile as sf

import ember
import emberaudio
from emberaudio.io import StreamReader

SR = 16000


def _signal(seconds=2.0, rate=SR):
    t = np.arange(int(seconds * rate)) / rate
    return np.stack([0.5 * np.sin(2 * np.pi * 440 * t), 0.3 * np.sin(2 * np.pi * 660 * t)]).astype(np.float32)


def _write_av(path, codec, container_format=None, rate=SR, with_video=False, seconds=2.0):
    x = _signal(seconds, rate)
    with av.open(str(path), "w", format=container_format) as c:
        if with_video:
            v = c.add_stream("mpeg4", rate=10)
            v.width, v.height, v.pix_fmt = 32, 32, "yuv420p"
        s = c.add_stream(codec, rate=rate)
        s.layout = "stereo"
        for i in range(0, x.shape[1], 1024):
            frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(x[:, i:i + 1024]), format="fltp", layout="stereo")
            frame.sample_rate, frame.pts = rate, i
            for p in s.encode(frame):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
        if with_video:
            for k in range(int(seconds * 10)):
                img = av.VideoFrame.from_ndarray(np.full((32, 32, 3), k * 10, np.uint8), format="rgb24")
                for p in v.encode(img):
                    c.mux(p)
            for p in v.encode(None):
                c.mux(p)
    return x


def _plain_decode(path):
    """Every audio frame of the first audio stream, as float (channels, samples), concatenated."""
    with av.open(str(path)) as c:
        parts = []
        for frame in c.decode(audio=0):
            a = frame.to_ndarray()
            if not frame.format.is_planar:
                a = a.reshape(-1, len(frame.layout.channels)).T
            parts.append(a.astype(np.float32))
    return np.concatenate(parts, axis=1)


def _best_lag_snr(decoded, reference, max_lag=3000):
    best = -np.inf
    n = reference.shape[1] - max_lag
    for lag in range(0, max_lag):
        seg = decoded[:, lag:lag + n]
        if seg.shape[1] < n:
            break
        err = seg - reference[:, :n]
        best = max(best, 10 * np.log10((reference[:, :n] ** 2).sum() / (err ** 2).sum()))
    return best


LOSSY = [("a.m4a", "aac", None, "AAC", SR), ("a.aac", "aac", "adts", "AAC", SR),
         ("a.opus", "libopus", "ogg", "OPUS", 48000), ("a.mp4", "aac", None, "AAC", SR)]


@pytest.mark.parametrize("name,codec,fmt,encoding,rate", LOSSY)
def test_compressed_formats_load_and_info(tmp_path, name, codec, fmt, encoding, rate):
    path = tmp_path / name
    x = _write_av(path, codec, fmt, rate=rate)
    wave, got_rate = emberaudio.load(path)
    assert got_rate == rate and wave.dtype == ember.float32
    plain = _plain_decode(path)
    np.testing.assert_array_equal(wave.numpy(), plain)
    assert _best_lag_snr(wave.numpy(), x) > 15  # within codec loss of what was written
    meta = emberaudio.info(path)
    assert (meta.sample_rate, meta.num_frames, meta.num_channels, meta.bits_per_sample, meta.encoding) == (
        rate, plain.shape[1], 2, 0, encoding)


def test_mp3_by_either_backend(tmp_path):
    path = tmp_path / "a.mp3"
    x = _write_av(path, "libmp3lame")
    by_ffmpeg, _ = emberaudio.load(path, backend="ffmpeg")
    np.testing.assert_array_equal(by_ffmpeg.numpy(), _plain_decode(path))
    assert _best_lag_snr(by_ffmpeg.numpy(), x) > 15
    assert emberaudio.info(path, backend="ffmpeg").encoding == "MP3"


@pytest.mark.parametrize("subtype,ext,raw", [("PCM_16", "wav", ember.int16), ("PCM_32", "wav", ember.int32),
                                             ("PCM_U8", "wav", ember.uint8), ("FLOAT", "wav", None),
                                             ("PCM_16", "flac", None), ("PCM_24", "flac", None)])
def test_lossless_files_equal_soundfile(tmp_path, subtype, ext, raw):
    path = tmp_path / f"a.{ext}"
    sf.write(path, _signal(0.5).T, SR, subtype=subtype)
    wave, rate = emberaudio.load(path, backend="ffmpeg")
    ref = sf.read(path, dtype="float32", always_2d=True)[0].T
    np.testing.assert_allclose(wave.numpy(), ref, rtol=0, atol=1e-7)
    meta = emberaudio.info(path, backend="ffmpeg")
    assert meta.num_frames == ref.shape[1] and meta.num_channels == 2
    bits = {"PCM_16": 16, "PCM_24": 24, "PCM_32": 32, "PCM_U8": 8, "FLOAT": 32}[subtype]
    assert meta.bits_per_sample == bits
    if raw is not None:
        ints, _ = emberaudio.load(path, normalize=False, backend="ffmpeg")
        assert ints.dtype == raw
        np.testing.assert_array_equal(ints.numpy(), sf.read(path, dtype=str(raw).split(".")[-1]
                                                            if raw != ember.uint8 else "int16",
                                                            always_2d=True)[0].T if raw != ember.uint8 else
                                      ((sf.read(path, dtype="int16", always_2d=True)[0].T >> 8) + 128).astype(np.uint8))


@pytest.mark.parametrize("name,codec,fmt", [("a.wav", "pcm_s16le", None), ("a.m4a", "aac", None),
                                            ("a.mp3", "libmp3lame", None)])
def test_offsets_equal_slices_of_the_whole(tmp_path, name, codec, fmt):
    path = tmp_path / name
    _write_av(path, codec, fmt, seconds=3.0)
    whole, _ = emberaudio.load(path, backend="ffmpeg")
    for offset, count in [(0, 1000), (12345, 777), (30000, -1)]:
        part, _ = emberaudio.load(path, frame_offset=offset, num_frames=count, backend="ffmpeg")
        end = None if count == -1 else offset + count
        np.testing.assert_allclose(part.numpy(), whole.numpy()[:, offset:end], atol=2e-3 if codec != "pcm_s16le" else 0)
    past, _ = emberaudio.load(path, frame_offset=10 ** 6, backend="ffmpeg")
    assert tuple(past.shape) == (2, 0)
    last, _ = emberaudio.load(path, channels_first=False, num_frames=5, backend="ffmpeg")
    np.testing.assert_array_equal(last.numpy(), whole.numpy()[:, :5].T)


def test_audio_of_a_video_file_and_file_objects(tmp_path):
    path = tmp_path / "clip.mp4"
    _write_av(path, "aac", with_video=True)
    wave, rate = emberaudio.load(path)
    np.testing.assert_array_equal(wave.numpy(), _plain_decode(path))
    data = path.read_bytes()
    from_bytes, _ = emberaudio.load(io.BytesIO(data), format="mp4")
    np.testing.assert_array_equal(from_bytes.numpy(), wave.numpy())
    probed, _ = emberaudio.load(io.BytesIO(data))  # no format: libsndfile refuses, FFmpeg probes
    np.testing.assert_array_equal(probed.numpy(), wave.numpy())
    buffer = io.BytesIO(data)
    assert emberaudio.info(buffer, format="mp4").num_frames == wave.shape[1] and buffer.tell() == 0


def test_backends(tmp_path):
    assert emberaudio.list_audio_backends() == ["soundfile", "ffmpeg"]
    path = tmp_path / "a.wav"
    sf.write(path, _signal(0.25).T, SR, subtype="PCM_16")
    try:
        emberaudio.set_audio_backend("ffmpeg")
        assert emberaudio.get_audio_backend() == "ffmpeg"
        wave, _ = emberaudio.load(path)
        np.testing.assert_allclose(wave.numpy(), sf.read(path, dtype="float32", always_2d=True)[0].T, atol=1e-7)
    finally:
        emberaudio.set_audio_backend(None)
    assert emberaudio.get_audio_backend() == "soundfile"
    with pytest.raises(RuntimeError, match="not one of available backends"):
        emberaudio.set_audio_backend("sox_io")
    with pytest.raises(ValueError, match="not one of available backends"):
        emberaudio.load(path, backend="sox_io")


def test_corrupt_truncated_and_missing_files_raise_naming_the_file(tmp_path):
    bad = tmp_path / "bad.m4a"
    bad.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(RuntimeError, match="bad.m4a"):
        emberaudio.load(bad)
    with pytest.raises(RuntimeError, match="bad.m4a"):
        emberaudio.info(bad)
    good = tmp_path / "good.m4a"
    _write_av(good, "aac")
    truncated = tmp_path / "truncated.m4a"
    truncated.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])  # moov atom (at the end) lost
    with pytest.raises(RuntimeError, match="truncated.m4a"):
        emberaudio.load(truncated)
    with pytest.raises(RuntimeError, match="no audio stream"):
        silent = tmp_path / "silent.mp4"
        with av.open(str(silent), "w") as c:
            v = c.add_stream("mpeg4", rate=10)
            v.width, v.height, v.pix_fmt = 16, 16, "yuv420p"
            for p in v.encode(av.VideoFrame.from_ndarray(np.zeros((16, 16, 3), np.uint8), format="rgb24")):
                c.mux(p)
            for p in v.encode(None):
                c.mux(p)
        emberaudio.load(silent)
    with pytest.raises(FileNotFoundError, match="missing.m4a"):
        emberaudio.load(tmp_path / "missing.m4a")


def _concat(chunks):
    return np.concatenate([c[0].numpy() for c in chunks], axis=0)


def test_stream_reader_chunks_equal_the_whole(tmp_path):
    path = tmp_path / "long.wav"
    sf.write(path, _signal(3.0).T, SR, subtype="PCM_16")
    whole = sf.read(path, dtype="float32", always_2d=True)[0]
    reader = StreamReader(str(path))
    assert reader.num_src_streams == 1 and reader.default_audio_stream == 0
    info = reader.get_src_stream_info(0)
    assert (info.media_type, info.codec, info.sample_rate, info.num_channels) == ("audio", "pcm_s16le", SR, 2)
    reader.add_basic_audio_stream(frames_per_chunk=5000)
    chunks = list(reader.stream())
    assert [c[0].shape[0] for c in chunks] == [5000] * 9 + [3000]
    assert tuple(chunks[0][0].shape) == (5000, 2)
    np.testing.assert_allclose(_concat(chunks), whole, atol=1e-7)
    reader.seek(1.25)
    np.testing.assert_allclose(_concat(list(reader.stream())), whole[20000:], atol=1e-7)


def test_stream_reader_on_file_objects_of_compressed_audio_with_seek(tmp_path):
    path = tmp_path / "a.m4a"
    _write_av(path, "aac", seconds=3.0)
    whole, _ = emberaudio.load(path)
    with StreamReader(io.BytesIO(path.read_bytes()), format="m4a") as reader:
        reader.add_basic_audio_stream(frames_per_chunk=4096)
        np.testing.assert_array_equal(_concat(list(reader.stream())), whole.numpy().T)
        reader.seek(1.5)
        np.testing.assert_allclose(_concat(list(reader.stream())), whole.numpy().T[24000:], atol=2e-3)


def test_stream_reader_video_file_resampling_and_errors(tmp_path):
    path = tmp_path / "clip.mp4"
    _write_av(path, "aac", with_video=True)
    reader = StreamReader(str(path))
    assert reader.num_src_streams == 2
    audio_index = reader.default_audio_stream
    assert reader.get_src_stream_info(audio_index).codec == "aac"
    assert reader.get_src_stream_info(1 - audio_index).media_type == "video"
    with pytest.raises(RuntimeError, match="add_basic_audio_stream"):
        next(reader.stream())
    with pytest.raises(ValueError, match="not audio"):
        reader.add_basic_audio_stream(100, stream_index=1 - audio_index)
    with pytest.raises(ValueError, match="frames_per_chunk"):
        reader.add_basic_audio_stream(0)
    reader.add_basic_audio_stream(frames_per_chunk=2000, sample_rate=8000)
    out = _concat(list(reader.stream()))
    source_frames = emberaudio.info(path).num_frames
    assert abs(out.shape[0] - source_frames / 2) <= 64
    spectrum = np.abs(np.fft.rfft(out[2000:10000, 0]))
    assert abs(np.argmax(spectrum) * 8000 / 8000 - 440) <= 2  # the 440 Hz tone survives at 8 kHz
