"""detect_pitch_frequency, spectral_centroid, sliding_window_cmn, loudness and vad (and their transforms)
against NumPy references written here, librosa, pyloudnorm (ITU-R BS.1770-4) and the sox command's vad."""
import math

import librosa
import numpy as np
import pyloudnorm
import pytest

import ember
import emberaudio.functional as F
import emberaudio.transforms as T

from _sox import requires_sox, sox_effect


def nccf_pitch_reference(x, sr, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400):
    """torchaudio's detect_pitch_frequency formulas, in NumPy, for one signal."""
    lags = math.ceil(sr / freq_low)
    size = math.ceil(sr * frame_time)
    frames = math.ceil(len(x) / size)
    x = np.pad(x, (0, lags + frames * size - len(x)))
    nccf = np.zeros((frames, lags))
    for lag in range(1, lags + 1):
        for f in range(frames):
            s1 = x[f * size:(f + 1) * size]
            s2 = x[f * size + lag:(f + 1) * size + lag]
            nccf[f, lag - 1] = (s1 @ s2) / (1e-9 + np.linalg.norm(s1)) ** 2 / (1e-9 + np.linalg.norm(s2)) ** 2
    lag_min = math.ceil(sr / freq_high)
    best = nccf[:, lag_min:].argmax(-1)
    half = nccf[:, lag_min:lags // 2].argmax(-1)
    rows = np.arange(frames)
    use_half = nccf[rows, lag_min + half] > 0.99 * nccf[rows, lag_min + best]
    indices = np.where(use_half, half, best) + lag_min + 1
    pad = (win_length - 1) // 2
    padded = np.concatenate([np.full(pad, indices[0]), indices])
    windows = np.lib.stride_tricks.sliding_window_view(padded, win_length)
    medians = np.sort(windows, axis=-1)[:, (win_length - 1) // 2]  # torch.median: the lower middle
    return sr / (1e-9 + medians)


def test_detect_pitch_frequency_matches_reference_and_finds_the_pitch():
    sr = 8000
    t = np.arange(sr) / sr
    x = np.stack([0.5 * np.sin(2 * np.pi * 200 * t),
                  0.4 * np.sin(2 * np.pi * 320 * t) + 0.05 * np.sin(2 * np.pi * 1000 * t)])
    result = F.detect_pitch_frequency(ember.tensor(x), sr).numpy()
    for row, signal in zip(result, x):
        np.testing.assert_allclose(row, nccf_pitch_reference(signal, sr), rtol=1e-5)
    assert abs(np.median(result[0]) - 200) < 5 and abs(np.median(result[1]) - 320) < 8


def test_spectral_centroid_matches_librosa():
    sr = 16000
    t = np.arange(sr) / sr
    x = np.stack([np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 3000 * t), np.sin(2 * np.pi * 1500 * t)])
    result = T.SpectralCentroid(sr, n_fft=400, hop_length=200).double()(ember.tensor(x)).numpy()
    expected = librosa.feature.spectral_centroid(y=x, sr=sr, n_fft=400, hop_length=200, pad_mode="reflect")[:, 0]
    np.testing.assert_allclose(result, expected, rtol=1e-6)


def cmn_reference(x, cmn_window, min_cmn_window, center, norm_vars):
    """Kaldi's sliding-window CMN, frame by frame, in NumPy ((time, feat))."""
    frames = len(x)
    out = np.zeros_like(x)
    for t in range(frames):
        if center:
            start = t - cmn_window // 2
            end = start + cmn_window
        else:
            start, end = t - cmn_window, t + 1
        if start < 0:
            end -= start
            start = 0
        if not center and end > t:
            end = max(t + 1, min_cmn_window)
        if end > frames:
            start = max(start - (end - frames), 0)
            end = frames
        window = x[start:end]
        out[t] = x[t] - window.mean(0)
        if norm_vars:
            out[t] = 0 if len(window) == 1 else out[t] / np.sqrt((window ** 2).mean(0) - window.mean(0) ** 2)
    return out


@pytest.mark.parametrize("cmn_window,min_cmn_window,center,norm_vars", [
    (600, 100, False, False), (20, 5, False, True), (21, 5, True, False), (10, 100, True, True), (50, 1, False, True)])
def test_sliding_window_cmn_matches_kaldi_rules(cmn_window, min_cmn_window, center, norm_vars):
    x = np.random.default_rng(0).standard_normal((2, 3, 130, 13)) + 5
    transform = T.SlidingWindowCmn(cmn_window, min_cmn_window, center, norm_vars)
    result = transform(ember.tensor(x)).numpy()
    for index in np.ndindex(2, 3):
        expected = cmn_reference(x[index], cmn_window, min_cmn_window, center, norm_vars)
        np.testing.assert_allclose(result[index], expected, atol=1e-9)


@pytest.mark.parametrize("cmn_window,min_cmn_window,center,windows", [
    # history only: the window ends at the frame itself and holds up to cmn_window + 1 frames
    (2, 1, False, [(0, 1), (0, 2), (0, 3), (1, 4), (2, 5)]),
    # centred: shifted (not shrunk) at both edges
    (3, 1, True, [(0, 3), (0, 3), (1, 4), (2, 5), (2, 5)]),
    # fewer frames than min_cmn_window: every frame uses them all
    (600, 100, False, [(0, 5)] * 5),
])
def test_sliding_window_cmn_windows_written_out(cmn_window, min_cmn_window, center, windows):
    """Kaldi's windows listed by hand for 5 frames, independent of the rule cmn_reference transcribes."""
    x = np.random.default_rng(1).standard_normal((5, 4))
    result = F.sliding_window_cmn(ember.tensor(x), cmn_window, min_cmn_window, center).numpy()
    expected = np.stack([x[t] - x[a:b].mean(0) for t, (a, b) in enumerate(windows)])
    np.testing.assert_allclose(result, expected, atol=1e-12)


def test_loudness_matches_pyloudnorm_and_bs1770_reference_values():
    sr = 48000
    t = np.arange(3 * sr) / sr
    full_scale = np.sin(2 * np.pi * 1000 * t)
    # BS.1770: a 0 dBFS 997 Hz / 1 kHz sine in one channel reads -3.01 LKFS (the K-weighting gains ~0.7 dB at 1 kHz)
    assert abs(float(F.loudness(ember.tensor(full_scale[None]), sr)) - pyloudnorm.Meter(sr).integrated_loudness(
        full_scale)) < 1e-6
    rng = np.random.default_rng(0)
    for channels in (1, 2, 5):
        x = rng.uniform(-0.3, 0.3, (channels, 3 * sr)) * np.linspace(0.05, 1, 3 * sr)
        expected = pyloudnorm.Meter(sr).integrated_loudness(x.T if channels > 1 else x[0])
        assert abs(float(T.Loudness(sr)(ember.tensor(x))) - expected) < 1e-6


def test_loudness_gates_out_silence_and_batches():
    sr = 16000
    t = np.arange(4 * sr) / sr
    tone = 0.25 * np.sin(2 * np.pi * 500 * t) * (t < 2)  # two seconds of tone, two of silence
    batch = np.stack([tone[None], 0.5 * tone[None]])
    result = F.loudness(ember.tensor(batch), sr).numpy()
    expected = [pyloudnorm.Meter(sr).integrated_loudness(b[0]) for b in batch]
    np.testing.assert_allclose(result, expected, atol=1e-6)
    assert abs(result[0] - result[1] - 20 * math.log10(0.5) * -1) < 1e-6
    with pytest.raises(ValueError, match="Only up to 5 channels"):
        F.loudness(ember.zeros(6, sr), sr)


def speech_like(sr, onset, channels=1, seconds=3.5, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(int(sr * seconds)) / sr
    voice = (t > onset) * (0.4 * np.sin(2 * np.pi * 220 * t) * (1 + 0.5 * np.sin(2 * np.pi * 3 * t))
                           + 0.2 * np.sin(2 * np.pi * 660 * t))
    return (0.003 * rng.standard_normal((channels, t.size)) + voice).astype(np.float32)


@requires_sox
@pytest.mark.parametrize("onset,channels,options,sox_args", [
    (1.3, 1, {}, []), (0.7, 2, {}, []), (2.2, 1, {}, []),
    (1.5, 1, {"trigger_level": 5.0, "pre_trigger_time": 0.2, "allowed_gap": 0.1},
     ["-t", 5.0, "-p", 0.2, "-g", 0.1])])
def test_vad_matches_sox(tmp_path, onset, channels, options, sox_args):
    sr = 16000
    x = speech_like(sr, onset, channels)
    expected, _ = sox_effect(tmp_path, x, sr, ["vad"] + sox_args)
    result = T.Vad(sr, **options)(ember.tensor(x)).numpy()
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, atol=1e-6)


def test_vad_keeps_the_leading_dims_and_checks_its_bands():
    x = ember.tensor(speech_like(8000, 1.0, channels=2)).reshape(1, 2, -1)
    out = F.vad(x, 8000)
    assert out.shape[:2] == (1, 2) and out.shape[-1] < x.shape[-1]
    with pytest.raises(ValueError, match="hp_filter_freq"):
        F.vad(x, 8000, hp_filter_freq=5000.0, lp_filter_freq=3000.0)
