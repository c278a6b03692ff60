"""emberaudio.save through PyAV (AAC, M4A, Opus, and MP3 with backend="ffmpeg"): files read back by a plain PyAV
decode written here carry the codec asked for and, aligned past the encoder's priming samples, stay within codec
loss of the signal; compression= sets the bit rate; file objects; emberaudio.load reads them as PyAV does; bad
rates, dtypes and backends raise."""
import io

import av
import numpy as np
import pytest

import ember
import emberaudio

SR = 16000


def _signal(seconds=2.0, rate=SR):
    t = np.arange(int(seconds * rate)) / rate
    return np.stack([0.5 * np.sin(2 * np.pi * 440 * t), 0.3 * np.sin(2 * np.pi * 660 * t)]).astype(np.float32)


def _plain_decode(source):
    """(codec name, container rate, float (channels, samples)) of the first audio stream, by PyAV alone."""
    with av.open(source) as c:
        stream = c.streams.audio[0]
        parts = []
        for frame in c.decode(audio=0):
            a = frame.to_ndarray()
            if not frame.format.is_planar:
                a = a.reshape(-1, len(frame.layout.channels)).T
            parts.append(a.astype(np.float32))
        return stream.codec_context.name, stream.codec_context.sample_rate, np.concatenate(parts, axis=1)


def _snr_db_aligned(reference, decoded, max_lag=4096):
    """SNR of `decoded` against `reference` at the lag (encoder priming) that matches them best, over the middle of
    the signal (the codec's first and last frames fade in and out)."""
    best = -np.inf
    lo, hi = reference.shape[1] // 8, reference.shape[1] * 7 // 8
    ref = reference[:, lo:hi]
    for lag in range(0, max_lag + 1):
        seg = decoded[:, lo + lag:hi + lag]
        if seg.shape[1] < ref.shape[1]:
            break
        noise = np.sum((seg - ref) ** 2)
        best = max(best, 10 * np.log10(np.sum(ref ** 2) / max(noise, 1e-20)))
    return best


@pytest.mark.parametrize("ext, backend, codec", [("mp3", "ffmpeg", "mp3"), ("aac", None, "aac"), ("m4a", None, "aac")])
def test_round_trip_within_codec_loss(tmp_path, ext, backend, codec):
    x = _signal()
    path = tmp_path / f"tone.{ext}"
    emberaudio.save(path, ember.from_numpy(x), SR, backend=backend)
    name, rate, y = _plain_decode(str(path))
    assert name.startswith(codec) and rate == SR and y.shape[0] == 2
    assert x.shape[1] <= y.shape[1] <= x.shape[1] + 4096  # priming and padding to whole codec frames only
    assert _snr_db_aligned(x, y) > 20.0
    loaded, loaded_rate = emberaudio.load(path)
    assert loaded_rate == SR
    # aac/m4a load through the FFmpeg reader (what PyAV decodes); mp3 through libsndfile's mpg123 (float rounding)
    np.testing.assert_allclose(loaded.numpy(), y, atol=1e-5)


def test_opus_round_trip_and_its_48k_decoder(tmp_path):
    x = _signal(rate=48000)
    path = tmp_path / "tone.opus"
    emberaudio.save(path, ember.from_numpy(x), 48000)
    name, rate, y = _plain_decode(str(path))
    assert name in ("opus", "libopus") and rate == 48000
    assert _snr_db_aligned(x, y) > 20.0
    # Opus codes 16 kHz input too; FFmpeg's decoder gives it back at 48 kHz, same duration
    x16 = _signal()
    emberaudio.save(tmp_path / "low.opus", ember.from_numpy(x16), SR)
    _, rate16, y16 = _plain_decode(str(tmp_path / "low.opus"))
    assert rate16 == 48000 and abs(y16.shape[1] / 48000 - x16.shape[1] / SR) < 0.05


def test_compression_sets_the_bit_rate(tmp_path):
    x = _signal(seconds=4.0)
    sizes = {}
    for kbps in (32, 128):
        path = tmp_path / f"tone{kbps}.m4a"
        emberaudio.save(path, ember.from_numpy(x), SR, compression=kbps)
        sizes[kbps] = path.stat().st_size
        with av.open(str(path)) as c:
            measured = c.streams.audio[0].bit_rate / 1000
        assert 0.5 * kbps < measured < 1.5 * kbps
    assert sizes[128] > 2 * sizes[32]


def test_file_objects_channels_last_and_integer_samples():
    x = _signal()
    buf = io.BytesIO()
    emberaudio.save(buf, ember.from_numpy(np.ascontiguousarray(x.T)), SR, channels_first=False, format="aac")
    buf.seek(0)
    _, _, y = _plain_decode(buf)
    assert _snr_db_aligned(x, y) > 20.0
    ints = np.round(x * 32767).astype(np.int16)  # int16 samples are scaled by 1/32768 as soundfile does
    path = io.BytesIO()
    emberaudio.save(path, ember.from_numpy(ints), SR, format="m4a")
    path.seek(0)
    _, _, y = _plain_decode(path)
    assert _snr_db_aligned(ints / 32768.0, y) > 20.0


def test_bad_arguments_raise(tmp_path):
    x = ember.from_numpy(_signal())
    with pytest.raises(ValueError, match="opus supports sample rates"):
        emberaudio.save(tmp_path / "a.opus", x, 44100)
    with pytest.raises(ValueError, match="cannot be encoded"):
        emberaudio.save(tmp_path / "a.m4a", ember.ones(1, 100, dtype=ember.int64), SR)
    with pytest.raises(ValueError, match="is not one of available backends"):
        emberaudio.save(tmp_path / "a.m4a", x, SR, backend="sox")
    with pytest.raises(RuntimeError, match="cannot be inferred"):
        emberaudio.save(io.BytesIO(), x, SR)
