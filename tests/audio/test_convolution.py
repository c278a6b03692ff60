"""convolve / fftconvolve, add_noise, preemphasis / deemphasis, speed and pitch_shift (and their transforms)
against SciPy, NumPy and the definitions written out here."""
import math

import numpy as np
import pytest
import scipy.signal

import ember
import emberaudio.functional as F
import emberaudio.transforms as T


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize("x_shape,y_shape", [((3, 50), (3, 11)), ((2, 1, 40), (1, 4, 64)), ((7,), (30,))])
def test_convolve_and_fftconvolve_match_scipy(mode, x_shape, y_shape):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    lead = np.broadcast_shapes(x_shape[:-1], y_shape[:-1])
    xb = np.broadcast_to(x, lead + x_shape[-1:]).reshape(-1, x_shape[-1])
    yb = np.broadcast_to(y, lead + y_shape[-1:]).reshape(-1, y_shape[-1])
    longer_first = x_shape[-1] >= y_shape[-1]
    expected = np.stack([scipy.signal.convolve(a, b, mode=mode) if longer_first or mode == "full"
                         else scipy.signal.convolve(b, a, mode=mode) for a, b in zip(xb, yb)])
    expected = expected.reshape(lead + expected.shape[-1:])
    direct = T.Convolve(mode)(ember.tensor(x), ember.tensor(y)).numpy()
    np.testing.assert_allclose(direct, expected, atol=1e-10)
    if longer_first:  # fftconvolve keeps x's length for "same" (torchaudio's rule), as scipy does
        fft = T.FFTConvolve(mode)(ember.tensor(x), ember.tensor(y)).numpy()
        np.testing.assert_allclose(fft, expected, atol=1e-10)


def test_convolve_errors():
    with pytest.raises(ValueError, match="Unrecognized mode value 'circular'"):
        F.convolve(ember.ones(3), ember.ones(3), mode="circular")
    with pytest.raises(ValueError, match="same dimension"):
        F.fftconvolve(ember.ones(2, 3), ember.ones(3))
    with pytest.raises(ValueError, match="not broadcastable"):
        F.convolve(ember.ones(2, 3), ember.ones(3, 3))


def test_add_noise_reaches_the_requested_snr():
    rng = np.random.default_rng(1)
    signal, noise = rng.standard_normal((2, 3, 1000)), rng.standard_normal((2, 3, 1000))
    snr = np.array([[0.0, 10.0, -5.0], [20.0, 3.0, 7.5]])
    out = T.AddNoise()(ember.tensor(signal), ember.tensor(noise), ember.tensor(snr)).numpy()
    added = out - signal
    measured = 10 * np.log10((signal ** 2).sum(-1) / (added ** 2).sum(-1))
    np.testing.assert_allclose(measured, snr, atol=1e-9)
    np.testing.assert_allclose(added / noise, np.broadcast_to((added / noise)[..., :1], added.shape), rtol=1e-9)
    lengths = np.array([[500, 1000, 10], [999, 1, 700]])
    out = F.add_noise(ember.tensor(signal), ember.tensor(noise), ember.tensor(snr), ember.tensor(lengths)).numpy()
    for i, j in np.ndindex(2, 3):
        n = lengths[i, j]
        added = out[i, j] - signal[i, j]
        measured = 10 * np.log10((signal[i, j, :n] ** 2).sum() / (added[:n] ** 2).sum())
        assert abs(measured - snr[i, j]) < 1e-9
    with pytest.raises(ValueError, match="leading dimensions"):
        F.add_noise(ember.tensor(signal), ember.tensor(noise), ember.tensor(snr[0]))
    with pytest.raises(ValueError, match="Length dimensions"):
        F.add_noise(ember.tensor(signal), ember.tensor(noise[..., :999]), ember.tensor(snr))


def test_preemphasis_and_deemphasis():
    x = np.random.default_rng(2).uniform(-0.5, 0.5, (2, 400))
    pre = T.Preemphasis(0.9)(ember.tensor(x)).numpy()
    np.testing.assert_allclose(pre, scipy.signal.lfilter([1.0, -0.9], [1.0], x), atol=1e-12)
    de = T.Deemphasis(0.9)(ember.tensor(pre)).numpy()
    np.testing.assert_allclose(de, np.clip(scipy.signal.lfilter([1.0], [1.0, -0.9], pre), -1, 1), atol=1e-12)
    np.testing.assert_allclose(de, x, atol=1e-12)


def dominant_frequency(x, sr):
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return np.argmax(spectrum) * sr / len(x)


@pytest.mark.parametrize("factor", [0.9, 1.1, 1.5])
def test_speed_resamples_by_the_factor(factor):
    sr = 16000
    t = np.arange(sr) / sr
    x = np.stack([np.sin(2 * np.pi * 500 * t), np.sin(2 * np.pi * 800 * t)])
    out, lengths = T.Speed(sr, factor)(ember.tensor(x), ember.tensor([16000, 8000]))
    source, target = int(factor * sr), sr
    g = math.gcd(source, target)
    np.testing.assert_allclose(out.numpy(), F.resample(ember.tensor(x), source // g, target // g).numpy())
    assert out.shape[-1] == math.ceil(sr * target / source)
    assert lengths.tolist() == [math.ceil(16000 / factor), math.ceil(8000 / factor)]
    assert abs(dominant_frequency(out.numpy()[0], sr) - 500 * factor) < 3


def test_speed_perturbation_draws_one_of_its_factors():
    x = ember.randn(1, 8000)
    lengths = {F.speed(x, 8000, f)[0].shape[-1] for f in (0.9, 1.0, 1.1)}
    perturb = T.SpeedPerturbation(8000, [0.9, 1.0, 1.1])
    seen = {perturb(x)[0].shape[-1] for _ in range(30)}
    assert seen <= lengths and len(seen) > 1


@pytest.mark.parametrize("n_steps", [-5, 4, 12])
def test_pitch_shift_moves_the_pitch_and_keeps_the_length(n_steps):
    sr = 16000
    t = np.arange(sr) / sr
    x = 0.5 * np.sin(2 * np.pi * 440 * t)
    out = T.PitchShift(sr, n_steps).double()(ember.tensor(x[None])).numpy()[0]
    assert out.shape == x.shape
    body = out[2000:-2000]
    expected = 440 * 2 ** (n_steps / 12)
    assert abs(dominant_frequency(body, sr) - expected) < expected * 0.01
    assert 0.2 < np.sqrt(2 * np.mean(body ** 2)) < 0.7  # the amplitude survives (phase-vocoder phasiness aside)


def test_pitch_shift_stretch_step_is_phase_vocoder_then_istft():
    sr, n_fft, hop = 8000, 256, 64
    x = np.random.default_rng(3).uniform(-0.5, 0.5, 4000)
    window = ember.hann_window(n_fft, dtype=ember.float64)
    spec = ember.stft(ember.tensor(x[None]), n_fft, hop, n_fft, window, return_complex=True)
    rate = 2.0 ** (-3 / 12)
    advance = ember.linspace(0, math.pi * hop, n_fft // 2 + 1, dtype=ember.float64)[..., None]
    stretched = ember.istft(F.phase_vocoder(spec, rate, advance), n_fft, hop, n_fft, window,
                            length=int(round(4000 / rate)))
    expected = F.resample(stretched, int(sr / rate), sr)[..., :4000]
    result = F.pitch_shift(ember.tensor(x[None]), sr, 3, n_fft=n_fft, hop_length=hop)
    np.testing.assert_allclose(result.numpy(), expected.numpy(), atol=1e-12)
