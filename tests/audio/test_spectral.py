"""emberaudio's spectral functions against librosa (the reference torchaudio's own tests use) and
SciPy: spectrograms, mel filterbanks (HTK and Slaney), MelSpectrogram, decibels, the DCT, MFCC."""
import librosa
import numpy as np
import pytest
import scipy.fft

import ember
import emberaudio.functional as F
import emberaudio.transforms as T

SR = 16000


def _speechlike(n=SR, seed=0):
    """A chirp plus harmonics plus a little noise: energy spread over the spectrum."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / SR
    y = 0.5 * np.sin(2 * np.pi * (200 + 1800 * t) * t) + 0.2 * np.sin(2 * np.pi * 3100 * t)
    return (y + 0.01 * rng.standard_normal(n)).astype(np.float32)


@pytest.mark.parametrize("power", [1.0, 2.0])
@pytest.mark.parametrize("n_fft,hop", [(400, 200), (512, 128)])
def test_spectrogram_matches_librosa(power, n_fft, hop):
    y = _speechlike()
    ours = F.spectrogram(ember.from_numpy(y), 0, ember.hann_window(n_fft), n_fft, hop, n_fft, power, False).numpy()
    ref = np.abs(librosa.stft(y, n_fft=n_fft, hop_length=hop, win_length=n_fft, window="hann", center=True,
                              pad_mode="reflect")) ** power
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-4 * ref.max())


def test_complex_and_normalized_spectrogram():
    y = _speechlike(4000)
    window = ember.hann_window(256)
    spec = F.spectrogram(ember.from_numpy(y), 0, window, 256, 64, 256, None, True)
    ref = librosa.stft(y, n_fft=256, hop_length=64, window="hann", pad_mode="reflect")
    ref = ref / np.sqrt((window.numpy() ** 2).sum())
    assert spec.dtype == ember.complex64
    np.testing.assert_allclose(spec.numpy(), ref, atol=1e-4)
    with pytest.raises(ValueError, match="normalized"):
        F.spectrogram(ember.from_numpy(y), 0, window, 256, 64, 256, 2.0, "bogus")


@pytest.mark.parametrize("mel_scale,norm", [("htk", None), ("slaney", None), ("slaney", "slaney"), ("htk", "slaney")])
def test_mel_filterbanks_match_librosa(mel_scale, norm):
    fb = F.melscale_fbanks(201, 0.0, 8000.0, 40, SR, norm=norm, mel_scale=mel_scale).numpy()
    ref = librosa.filters.mel(sr=SR, n_fft=400, n_mels=40, fmin=0.0, fmax=8000.0, htk=mel_scale == "htk",
                              norm=norm).T
    np.testing.assert_allclose(fb, ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max())


def test_mel_filterbank_errors_and_warning():
    with pytest.raises(ValueError, match="mel_scale"):
        F.melscale_fbanks(201, 0.0, 8000.0, 40, SR, mel_scale="bark")
    with pytest.raises(ValueError, match="norm"):
        F.melscale_fbanks(201, 0.0, 8000.0, 40, SR, norm="l2")
    with pytest.warns(UserWarning, match="all zero values"):
        F.melscale_fbanks(33, 0.0, 8000.0, 128, SR)


def test_mel_spectrogram_matches_librosa_and_batches():
    y = _speechlike()
    mel = T.MelSpectrogram(sample_rate=SR, n_fft=512, hop_length=160, n_mels=64, f_min=20.0, f_max=7600.0)
    ours = mel(ember.from_numpy(y)).numpy()
    ref = librosa.feature.melspectrogram(y=y, sr=SR, n_fft=512, hop_length=160, n_mels=64, fmin=20.0, fmax=7600.0,
                                         htk=True, norm=None, pad_mode="reflect", power=2.0)
    np.testing.assert_allclose(ours, ref, rtol=1e-3, atol=1e-5 * ref.max())
    batch = ember.stack([ember.from_numpy(_speechlike(seed=s)) for s in range(3)]).reshape(3, 1, SR)
    out = mel(batch)
    assert out.shape == (3, 1, 64, 101)
    for i in range(3):
        np.testing.assert_allclose(out[i, 0].numpy(), mel(batch[i, 0]).numpy(), rtol=1e-5, atol=1e-6)


def test_amplitude_to_db_matches_librosa():
    spec = np.abs(librosa.stft(_speechlike(), n_fft=512)) ** 2
    for top_db in (None, 80.0):
        ours = T.AmplitudeToDB("power", top_db=top_db)(ember.from_numpy(spec)).numpy()
        ref = librosa.power_to_db(spec, ref=1.0, amin=1e-10, top_db=top_db)
        np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-3)
    mag = np.sqrt(spec)
    np.testing.assert_allclose(T.AmplitudeToDB("magnitude")(ember.from_numpy(mag)).numpy(),
                               librosa.amplitude_to_db(mag, ref=1.0, amin=1e-5, top_db=None), rtol=1e-4, atol=2e-2)
    db = ember.tensor([-20.0, 0.0, 10.0])
    np.testing.assert_allclose(F.DB_to_amplitude(db, 1.0, 1.0).numpy(), [0.01, 1.0, 10.0], rtol=1e-6)
    with pytest.raises(ValueError, match="top_db must be positive"):
        T.AmplitudeToDB(top_db=-1.0)


def test_top_db_floors_each_item_of_a_batch_on_its_own_maximum():
    # (batch, channel, freq, time): each item's channels share one floor, top_db below their maximum
    a = ember.tensor([[[[1.0, 1e-12]], [[1e-12, 1e-12]]]])
    b = ember.tensor([[[[100.0, 1e-12]], [[1e-12, 1.0]]]])
    out = F.amplitude_to_DB(ember.cat([a, b]), 10.0, 1e-10, 0.0, top_db=30.0)
    np.testing.assert_allclose(out.numpy().ravel(), [0.0, -30.0, -30.0, -30.0, 20.0, -10.0, -10.0, 0.0], rtol=1e-6)
    # a 3-D input is one (channel, freq, time) spectrogram: one floor for all of it
    out = F.amplitude_to_DB(ember.cat([a[0], b[0]]), 10.0, 1e-10, 0.0, top_db=30.0)
    np.testing.assert_allclose(out.numpy().ravel(), [0.0, -10.0, -10.0, -10.0, 20.0, -10.0, -10.0, 0.0], rtol=1e-6)


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_matrix_is_scipys_dct2(norm):
    mat = F.create_dct(13, 40, norm).numpy()
    x = np.random.default_rng(1).standard_normal((5, 40))
    np.testing.assert_allclose(x @ mat, scipy.fft.dct(x, type=2, norm=norm, axis=-1)[:, :13], rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="ortho"):
        F.create_dct(13, 40, "backward")


def test_mfcc_matches_librosa():
    y = _speechlike()
    mfcc = T.MFCC(sample_rate=SR, n_mfcc=20, melkwargs={"n_fft": 512, "hop_length": 160, "n_mels": 40})
    ours = mfcc(ember.from_numpy(y)).numpy()
    mel = librosa.feature.melspectrogram(y=y, sr=SR, n_fft=512, hop_length=160, n_mels=40, htk=True, norm=None,
                                         pad_mode="reflect")
    ref = librosa.feature.mfcc(S=librosa.power_to_db(mel, top_db=80.0), n_mfcc=20, dct_type=2, norm="ortho")
    np.testing.assert_allclose(ours, ref, rtol=1e-3, atol=2e-2)
    with pytest.raises(ValueError, match="more MFCC coefficients"):
        T.MFCC(n_mfcc=50, melkwargs={"n_mels": 40})
    with pytest.raises(ValueError, match="DCT type"):
        T.MFCC(dct_type=3)
