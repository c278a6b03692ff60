"""griffinlim, inverse_spectrogram, phase_vocoder and their transforms (GriffinLim, InverseSpectrogram,
TimeStretch), InverseMelScale and LFCC, against librosa, NumPy and SciPy."""
import math

import librosa
import numpy as np
import pytest
import scipy.fft

import ember
import emberaudio.functional as F
import emberaudio.transforms as T

SR = 16000


def chirp(seconds=1.0, sr=SR):
    t = np.arange(int(sr * seconds)) / sr
    return 0.5 * np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 1500 * t * (1 + 0.2 * t))


def test_griffinlim_matches_librosa_iterate_for_iterate():
    x = chirp()
    n_fft, hop = 512, 128
    S = np.abs(librosa.stft(x, n_fft=n_fft, hop_length=hop, window="hann", center=True, pad_mode="reflect"))
    expected = librosa.griffinlim(S, n_iter=16, hop_length=hop, win_length=n_fft, n_fft=n_fft, window="hann",
                                  center=True, length=len(x), pad_mode="reflect", momentum=0.99, init=None)
    window = ember.hann_window(n_fft, dtype=ember.float64)
    result = F.griffinlim(ember.tensor(S ** 2), window, n_fft, hop, n_fft, 2.0, 16, 0.99, len(x), False).numpy()
    np.testing.assert_allclose(result, expected, atol=1e-8)


def spectral_convergence(x, S, n_fft, hop):
    rebuilt = np.abs(librosa.stft(x, n_fft=n_fft, hop_length=hop, window="hann", center=True, pad_mode="reflect"))
    return np.linalg.norm(rebuilt - S) / np.linalg.norm(S)


def test_griffinlim_converges_like_librosa_from_random_phases():
    x = chirp()
    n_fft, hop = 400, 100
    S = np.abs(librosa.stft(x, n_fft=n_fft, hop_length=hop, window="hann", center=True, pad_mode="reflect"))
    ember.manual_seed(0)
    transform = T.GriffinLim(n_fft=n_fft, n_iter=48, hop_length=hop, power=1.0, length=len(x)).double()
    ours = spectral_convergence(transform(ember.tensor(S)).numpy(), S, n_fft, hop)
    theirs = spectral_convergence(librosa.griffinlim(S, n_iter=48, hop_length=hop, n_fft=n_fft, length=len(x),
                                                     pad_mode="reflect", random_state=0), S, n_fft, hop)
    start = spectral_convergence(np.zeros_like(x), S, n_fft, hop)
    assert ours < 0.2 * start and ours < 1.5 * theirs


def test_griffinlim_arguments():
    with pytest.raises(ValueError, match="momentum"):
        T.GriffinLim(momentum=1.0)
    with pytest.raises(ValueError, match="momentum"):
        F.griffinlim(ember.ones(201, 5), ember.hann_window(400), 400, 200, 400, 2.0, 2, -0.1, None, False)


@pytest.mark.parametrize("normalized,pad", [(False, 0), (True, 0), ("frame_length", 7), ("window", 3)])
def test_inverse_spectrogram_undoes_spectrogram(normalized, pad):
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 4000))
    spectrogram = T.Spectrogram(n_fft=256, hop_length=64, pad=pad, power=None, normalized=normalized).double()
    inverse = T.InverseSpectrogram(n_fft=256, hop_length=64, pad=pad, normalized=normalized).double()
    restored = inverse(spectrogram(ember.tensor(x)), length=4000).numpy()
    assert restored.shape == x.shape
    np.testing.assert_allclose(restored, x, atol=1e-10)


def test_inverse_spectrogram_needs_a_complex_input():
    with pytest.raises(ValueError, match="complex dtype"):
        F.inverse_spectrogram(ember.ones(201, 4), None, 0, ember.hann_window(400), 400, 200, 400, False)


@pytest.mark.parametrize("rate", [0.7, 1.0, 1.3, 2.0])
def test_phase_vocoder_matches_librosa(rate):
    x = chirp()
    hop = 128
    D = librosa.stft(x, n_fft=512, hop_length=hop)
    expected = librosa.phase_vocoder(D, rate=rate, hop_length=hop)
    stretch = T.TimeStretch(hop_length=hop, n_freq=257, fixed_rate=rate).double()
    result = stretch(ember.tensor(np.stack([D, D]))).numpy()
    assert result.shape == (2,) + expected.shape
    np.testing.assert_allclose(result[1], expected, atol=1e-9)


def test_time_stretch_needs_a_rate():
    with pytest.raises(ValueError, match="fixed_rate"):
        T.TimeStretch(n_freq=257)(ember.ones(257, 4, dtype=ember.complex64))
    out = T.TimeStretch(n_freq=257)(ember.ones(257, 10, dtype=ember.complex64), 2.0)
    assert tuple(out.shape) == (257, 5)


def test_inverse_mel_scale_is_the_clipped_least_squares_solution():
    n_stft, n_mels = 201, 32
    mel = np.abs(np.random.default_rng(1).standard_normal((3, n_mels, 20)))
    transform = T.InverseMelScale(n_stft=n_stft, n_mels=n_mels, sample_rate=SR).double()
    fb = transform.fb.numpy()
    expected = np.stack([np.maximum(np.linalg.lstsq(fb.T, m, rcond=None)[0], 0) for m in mel])
    np.testing.assert_allclose(transform(ember.tensor(mel)).numpy(), expected, atol=1e-8)
    with pytest.raises(ValueError, match="Expected an input with 32 mel bins"):
        transform(ember.ones(3, 31, 20, dtype=ember.float64))


def test_inverse_mel_scale_gelsd_takes_the_minimum_norm_solution_of_a_rank_deficient_bank():
    with pytest.warns(UserWarning, match="all zero values"):
        transform = T.InverseMelScale(n_stft=201, n_mels=128, sample_rate=SR, driver="gelsd").double()
    mel = np.abs(np.random.default_rng(2).standard_normal((128, 6)))
    expected = np.maximum(np.linalg.lstsq(transform.fb.numpy().T, mel, rcond=None)[0], 0)
    np.testing.assert_allclose(transform(ember.tensor(mel)).numpy(), expected, atol=1e-8)


@pytest.mark.parametrize("log_lf", [False, True])
def test_lfcc_matches_a_numpy_reference(log_lf):
    x = chirp(0.5)
    n_fft, hop, n_filter, n_lfcc = 512, 160, 64, 20
    transform = T.LFCC(sample_rate=SR, n_filter=n_filter, n_lfcc=n_lfcc, log_lf=log_lf,
                       speckwargs={"n_fft": n_fft, "hop_length": hop}).double()
    power = np.abs(librosa.stft(x, n_fft=n_fft, hop_length=hop, window="hann", center=True, pad_mode="reflect")) ** 2
    freqs = np.linspace(0, SR // 2, n_fft // 2 + 1)
    points = np.linspace(0, SR // 2, n_filter + 2)
    fb = np.maximum(0, np.minimum((freqs[:, None] - points[None, :-2]) / (points[1:-1] - points[:-2]),
                                  (points[None, 2:] - freqs[:, None]) / (points[2:] - points[1:-1])))
    filtered = fb.T @ power
    if log_lf:
        scaled = np.log(filtered + 1e-6)
    else:
        db = 10 * np.log10(np.maximum(filtered, 1e-10))
        scaled = np.maximum(db, db.max() - 80.0)
    expected = scipy.fft.dct(scaled, type=2, norm="ortho", axis=0)[:n_lfcc]
    np.testing.assert_allclose(transform(ember.tensor(x)).numpy(), expected, atol=1e-4)  # float32-built filters


def test_lfcc_arguments():
    with pytest.raises(ValueError, match="DCT type not supported: 3"):
        T.LFCC(dct_type=3)
    with pytest.raises(ValueError, match="more LFCC coefficients"):
        T.LFCC(n_lfcc=500, speckwargs={"n_fft": 400})
    assert math.isclose(T.LFCC(sample_rate=8000).f_max, 4000.0)
