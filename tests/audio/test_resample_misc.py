"""resample against a direct windowed-sinc reference written here in NumPy (each output sample
as the sum over input samples), and a tone keeping its frequency; mu-law, deltas, fades, volume
and masks against plain formulas."""
import math

import librosa
import numpy as np
import pytest

import ember
import emberaudio.functional as F
import emberaudio.transforms as T


def _reference_resample(x, orig, new, width=6, rolloff=0.99, window="hann", beta=14.769656459379492):
    """y[i] = sum_j x[j] * h(i/new - j/orig) with h a band-limited (cutoff rolloff*min/2) windowed sinc,
    the window reaching zero `width` zero-crossings out, as torchaudio defines it."""
    g = math.gcd(orig, new)
    o, n = orig // g, new // g
    base = min(o, n) * rolloff
    out_len = math.ceil(n * len(x) / o)
    j = np.arange(len(x))
    y = np.empty(out_len)
    for i in range(out_len):
        t = np.clip((i / n - j / o) * base, -width, width)
        w = np.cos(t * np.pi / width / 2) ** 2 if window == "hann" else \
            np.i0(beta * np.sqrt(1 - (t / width) ** 2)) / np.i0(beta)
        y[i] = np.sum(x * np.sinc(t) * w) * base / o
    return y


@pytest.mark.parametrize("orig,new", [(16000, 8000), (8000, 16000), (44100, 16000), (16000, 22050)])
@pytest.mark.parametrize("method", ["sinc_interp_hann", "sinc_interp_kaiser"])
def test_resample_matches_the_direct_sum(orig, new, method):
    x = np.random.default_rng(0).standard_normal(300)
    ours = F.resample(ember.from_numpy(x), orig, new, resampling_method=method).numpy()
    ref = _reference_resample(x, orig, new, window="hann" if method == "sinc_interp_hann" else "kaiser")
    assert ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, atol=1e-10)


def test_resampled_tone_keeps_its_frequency_and_batches():
    sr, f = 44100, 440.0
    tone = np.sin(2 * np.pi * f * np.arange(sr) / sr).astype(np.float32)
    out = F.resample(ember.from_numpy(tone), sr, 16000).numpy()
    assert out.shape == (16000,)
    np.testing.assert_allclose(out[1000:-1000], np.sin(2 * np.pi * f * np.arange(16000) / 16000)[1000:-1000],
                               atol=2e-3)
    batch = ember.from_numpy(np.stack([tone, -tone, 0.5 * tone]).reshape(3, 1, sr))
    resampler = T.Resample(sr, 16000)
    got = resampler(batch)
    assert got.shape == (3, 1, 16000)
    np.testing.assert_allclose(got[1, 0].numpy(), -out, atol=1e-5)
    np.testing.assert_allclose(got[2, 0].numpy(), 0.5 * out, atol=1e-5)


def test_resample_errors():
    x = ember.randn(100)
    with pytest.raises(ValueError, match="positive"):
        F.resample(x, 0, 16000)
    with pytest.raises(ValueError, match="Invalid resampling method"):
        F.resample(x, 16000, 8000, resampling_method="linear")
    with pytest.raises(TypeError, match="floating point"):
        F.resample(ember.ones(10, dtype=ember.int32), 16000, 8000)
    with pytest.raises(Exception, match="integer type"):
        F.resample(x, 44100, 5512.5)
    assert F.resample(x, 8000, 8000) is x


def test_mu_law_round_trip_and_formula():
    x = np.linspace(-1, 1, 101)
    mu = 255.0
    codes = F.mu_law_encoding(ember.from_numpy(x), 256).numpy()
    expected = ((np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu) + 1) / 2 * mu + 0.5).astype(np.int64)
    np.testing.assert_array_equal(codes, expected)
    back = F.mu_law_decoding(ember.from_numpy(codes), 256).numpy()
    y = codes / mu * 2 - 1
    np.testing.assert_allclose(back, np.sign(y) * np.expm1(np.abs(y) * np.log1p(mu)) / mu, rtol=1e-5, atol=1e-7)
    assert np.abs(back - x).max() <= 0.0201  # 256 levels: at most the widest step near +-1
    np.testing.assert_array_equal(T.MuLawEncoding()(ember.from_numpy(x)).numpy(), codes)


def test_compute_deltas_matches_librosa():
    spec = np.random.default_rng(2).standard_normal((2, 20, 30)).astype(np.float32)
    for width in (3, 5, 9):
        ours = F.compute_deltas(ember.from_numpy(spec), win_length=width).numpy()
        ref = librosa.feature.delta(spec, width=width, order=1, axis=-1, mode="nearest")
        np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="greater than or equal to 3"):
        F.compute_deltas(ember.from_numpy(spec), win_length=2)


@pytest.mark.parametrize("shape", ["linear", "exponential", "logarithmic", "quarter_sine", "half_sine"])
def test_fade_shapes(shape):
    n, fin, fout = 50, 10, 20
    up = np.linspace(0, 1, fin)
    down = np.linspace(0, 1, fout)
    rise = {"linear": up, "exponential": 2 ** ((up - 1) * 5), "logarithmic": np.log10(0.1 + up) + 1,
            "quarter_sine": np.sin(up * np.pi / 2), "half_sine": np.sin(up * np.pi - np.pi / 2) / 2 + 0.5}[shape]
    fall = {"linear": 1 - down, "exponential": 2 ** (-down * 5), "logarithmic": np.log10(1.1 - down) + 1,
            "quarter_sine": np.sin(down * np.pi / 2 + np.pi / 2),
            "half_sine": np.sin(down * np.pi + np.pi / 2) / 2 + 0.5}[shape]
    envelope = np.clip(np.concatenate([rise, np.ones(n - fin)]), 0, 1) * \
        np.clip(np.concatenate([np.ones(n - fout), fall]), 0, 1)
    out = T.Fade(fin, fout, shape)(ember.ones(2, n)).numpy()
    np.testing.assert_allclose(out, np.broadcast_to(envelope, (2, n)), atol=1e-6)
    with pytest.raises(ValueError, match="fade_shape"):
        T.Fade(1, 1, "cubic")


def test_vol():
    x = ember.tensor([0.1, -0.5, 0.9])
    np.testing.assert_allclose(T.Vol(2.0)(x).numpy(), [0.2, -1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(T.Vol(6.0, "db")(x).numpy(), np.clip(np.array([0.1, -0.5, 0.9]) * 10 ** 0.3, -1, 1),
                               rtol=1e-6)
    np.testing.assert_allclose(T.Vol(4.0, "power")(x).numpy(), np.clip(np.array([0.1, -0.5, 0.9]) * 2.0, -1, 1),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="gain must be positive"):
        T.Vol(-1.0)


@pytest.mark.parametrize("transform,axis", [(T.FrequencyMasking(8), -2), (T.TimeMasking(10), -1)])
def test_masking_sets_one_band_shared_across_channels(transform, axis):
    ember.manual_seed(0)
    spec = ember.ones(2, 16, 40)
    for _ in range(20):
        out = transform(spec, mask_value=-3.0).numpy()
        masked = (out == -3.0)
        band = masked.any(axis=(0, 1) if axis == -1 else (0, 2))
        if band.any():
            idx = np.nonzero(band)[0]
            assert idx[-1] - idx[0] + 1 == len(idx) < transform.mask_param  # one contiguous band, narrower
            assert (masked[0] == masked[1]).all()  # the same band in every channel
        assert set(np.unique(out)) <= {1.0, -3.0}


def test_iid_masks_differ_per_example():
    ember.manual_seed(1)
    out = T.TimeMasking(30, iid_masks=True)(ember.ones(8, 1, 4, 100)).numpy()
    patterns = {tuple(row) for row in (out[:, 0, 0] == 0)}
    assert len(patterns) > 1
    with pytest.raises(ValueError, match="p must be between"):
        T.TimeMasking(10, p=1.5)
