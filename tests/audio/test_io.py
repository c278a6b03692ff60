"""emberaudio.load/save/info against soundfile (libsndfile), which writes the files these tests read
and reads back the files emberaudio writes: every PCM width, float, FLAC, Ogg Vorbis; offsets,
channel order, file objects; broken and missing files raising clearly."""
import io

import numpy as np
import pytest
import soundfile as sf

import ember
import emberaudio

SR = 8000


def _signal(frames=800, channels=2, seed=0):
    rng = np.random.default_rng(seed)
    return (0.8 * rng.uniform(-1, 1, (frames, channels))).astype(np.float32)


@pytest.mark.parametrize("subtype,dtype,bits,encoding", [
    ("PCM_16", "int16", 16, "PCM_S"), ("PCM_24", "int32", 24, "PCM_S"), ("PCM_32", "int32", 32, "PCM_S"),
    ("PCM_U8", "uint8", 8, "PCM_U"), ("FLOAT", "float32", 32, "PCM_F"), ("DOUBLE", "float64", 64, "PCM_F"),
    ("ULAW", None, 8, "ULAW"), ("ALAW", None, 8, "ALAW")])
def test_wav_load_info_and_raw_samples(tmp_path, subtype, dtype, bits, encoding):
    path = tmp_path / "a.wav"
    sf.write(path, _signal(), SR, subtype=subtype)
    wave, rate = emberaudio.load(path)
    assert rate == SR and wave.dtype == ember.float32 and wave.shape == (2, 800)
    np.testing.assert_array_equal(wave.numpy(), sf.read(path, dtype="float32", always_2d=True)[0].T)
    meta = emberaudio.info(str(path))
    assert (meta.sample_rate, meta.num_frames, meta.num_channels, meta.bits_per_sample, meta.encoding) == \
        (SR, 800, 2, bits, encoding)
    raw, _ = emberaudio.load(path, normalize=False)
    if dtype is None:  # companded formats have no integer form: float, as torchaudio gives
        assert raw.dtype == ember.float32
    elif dtype == "uint8":
        expected = (sf.read(path, dtype="int16", always_2d=True)[0].T.astype(np.int32) >> 8) + 128
        assert raw.dtype == ember.uint8
        np.testing.assert_array_equal(raw.numpy(), expected)
    else:
        assert str(raw.dtype) == f"ember.{dtype}"
        np.testing.assert_array_equal(raw.numpy(), sf.read(path, dtype=dtype, always_2d=True)[0].T)


def test_flac_and_vorbis(tmp_path):
    sig = _signal()
    sf.write(tmp_path / "a.flac", sig, SR, subtype="PCM_24")
    wave, _ = emberaudio.load(tmp_path / "a.flac", normalize=False)  # only WAV has integer loads
    assert wave.dtype == ember.float32
    np.testing.assert_array_equal(wave.numpy(), sf.read(tmp_path / "a.flac", dtype="float32")[0].T)
    meta = emberaudio.info(tmp_path / "a.flac")
    assert (meta.encoding, meta.bits_per_sample) == ("FLAC", 24)
    sf.write(tmp_path / "a.ogg", sig, SR, format="OGG", subtype="VORBIS")
    meta = emberaudio.info(tmp_path / "a.ogg")
    assert (meta.encoding, meta.bits_per_sample, meta.num_channels) == ("VORBIS", 0, 2)
    wave, rate = emberaudio.load(tmp_path / "a.ogg")
    np.testing.assert_array_equal(wave.numpy(), sf.read(tmp_path / "a.ogg", dtype="float32")[0].T)


def test_offsets_channels_last_and_file_objects(tmp_path):
    sig = _signal(1000, 3)
    path = tmp_path / "b.wav"
    sf.write(path, sig, SR, subtype="FLOAT")
    part, _ = emberaudio.load(path, frame_offset=100, num_frames=250)
    np.testing.assert_array_equal(part.numpy(), sig[100:350].T)
    tail, _ = emberaudio.load(path, frame_offset=900)
    assert tail.shape == (3, 100)
    last, _ = emberaudio.load(path, channels_first=False)
    np.testing.assert_array_equal(last.numpy(), sig)
    with open(path, "rb") as f:
        from_file, rate = emberaudio.load(f)
    np.testing.assert_array_equal(from_file.numpy(), sig.T)
    buf = io.BytesIO(path.read_bytes())
    assert emberaudio.info(buf).num_frames == 1000
    assert emberaudio.load(buf)[0].shape == (3, 1000)


@pytest.mark.parametrize("dtype,kwargs,subtype", [
    (ember.float32, {}, "FLOAT"), (ember.int16, {}, "PCM_16"), (ember.int32, {}, "PCM_32"), (ember.uint8, {}, "PCM_U8"),
    (ember.float32, {"encoding": "PCM_S", "bits_per_sample": 16}, "PCM_16"),
    (ember.float32, {"encoding": "PCM_S", "bits_per_sample": 24}, "PCM_24"),
    (ember.float32, {"encoding": "ULAW"}, "ULAW"), (ember.float32, {"encoding": "PCM_F", "bits_per_sample": 64},
                                                     "DOUBLE")])
def test_save_wav_is_read_back_by_soundfile(tmp_path, dtype, kwargs, subtype):
    sig = _signal()
    if dtype == ember.float32:
        src = ember.from_numpy(sig.T.copy())
    elif dtype == ember.uint8:
        src = ember.from_numpy((sig.T * 127 + 128).astype(np.uint8))
    else:
        info = np.iinfo(np.int16 if dtype == ember.int16 else np.int32)
        src = ember.from_numpy((sig.T * info.max).astype(info.dtype))
    path = tmp_path / "out.wav"
    emberaudio.save(path, src, SR, **kwargs)
    assert sf.info(path).subtype == subtype and sf.info(path).samplerate == SR
    if subtype in ("FLOAT", "DOUBLE", "PCM_16", "PCM_32") and not kwargs:
        read = sf.read(path, dtype={"FLOAT": "float32", "DOUBLE": "float64", "PCM_16": "int16",
                                    "PCM_32": "int32"}[subtype], always_2d=True)[0].T
        np.testing.assert_array_equal(read, src.numpy())  # exact round trip
    elif subtype == "PCM_U8":
        np.testing.assert_array_equal(emberaudio.load(path, normalize=False)[0].numpy(), src.numpy())
    else:
        back = sf.read(path, dtype="float32", always_2d=True)[0].T
        tolerance = {"PCM_16": 2 ** -15, "PCM_24": 2 ** -23, "ULAW": 0.04}.get(subtype, 1e-7)
        np.testing.assert_allclose(back, sig.T, atol=tolerance)


def test_save_flac_and_channels_last(tmp_path):
    sig = _signal()
    emberaudio.save(tmp_path / "x.flac", ember.from_numpy(sig), SR, channels_first=False, bits_per_sample=24)
    assert sf.info(tmp_path / "x.flac").subtype == "PCM_24"
    np.testing.assert_allclose(sf.read(tmp_path / "x.flac", dtype="float32")[0], sig, atol=2 ** -23)
    buf = io.BytesIO()
    emberaudio.save(buf, ember.from_numpy(sig.T.copy()), SR, format="wav")
    buf.seek(0)
    np.testing.assert_array_equal(sf.read(buf, dtype="float32")[0], sig)


def test_bad_files_and_arguments(tmp_path):
    with pytest.raises((FileNotFoundError, RuntimeError), match="missing.wav"):
        emberaudio.load(tmp_path / "missing.wav")
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"RIFF\x00\x00\x00\x00WAVEnot really a wave file")
    with pytest.raises(RuntimeError, match="junk.wav"):
        emberaudio.load(junk)
    with pytest.raises(RuntimeError, match="junk.wav"):
        emberaudio.info(junk)
    good = tmp_path / "good.wav"
    sf.write(good, _signal(), SR)
    truncated = tmp_path / "truncated.wav"
    truncated.write_bytes(good.read_bytes()[:30])
    with pytest.raises(RuntimeError, match="truncated.wav"):
        emberaudio.load(truncated)
    with pytest.raises(ValueError, match="2D"):
        emberaudio.save(tmp_path / "x.wav", ember.zeros(10), SR)
    with pytest.raises(ValueError, match="8-bit signed"):
        emberaudio.save(tmp_path / "x.wav", ember.zeros(1, 10), SR, encoding="PCM_S", bits_per_sample=8)
    with pytest.raises(ValueError, match="wav does not support"):
        emberaudio.save(tmp_path / "x.wav", ember.zeros(1, 10), SR, encoding="VORBIS")
    with pytest.raises(ValueError, match="num_frames"):
        emberaudio.load(good, num_frames=0)
    assert emberaudio.list_audio_backends()[0] == "soundfile"  # ffmpeg follows when PyAV is importable
    with pytest.raises(RuntimeError, match="not one of available backends"):
        emberaudio.set_audio_backend("sox_io")
