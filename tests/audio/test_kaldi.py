"""emberaudio.compliance.kaldi against kaldi-native-fbank (Kaldi's feature code, for fbank and mfcc) and a
NumPy implementation of Kaldi's spectrogram formulas written here."""
import math

import kaldi_native_fbank as knf
import numpy as np
import pytest

import ember
from emberaudio.compliance import kaldi

SR = 16000
SIGNAL = (np.random.default_rng(0).uniform(-1, 1, SR) * 20000).astype(np.float32)  # Kaldi's int16 scale


def knf_features(computer, options, x=SIGNAL, sr=SR):
    c = computer(options)
    c.accept_waveform(sr, x.tolist())
    c.input_finished()
    return np.stack([np.array(c.get_frame(i)) for i in range(c.num_frames_ready)])


def frame_options(options, kw):
    options.frame_opts.dither = 0.0
    options.frame_opts.samp_freq = kw.get("sample_frequency", SR)
    for ours, theirs in (("snip_edges", "snip_edges"), ("window_type", "window_type"),
                         ("frame_length", "frame_length_ms"), ("frame_shift", "frame_shift_ms"),
                         ("preemphasis_coefficient", "preemph_coeff"), ("remove_dc_offset", "remove_dc_offset"),
                         ("round_to_power_of_two", "round_to_power_of_two"), ("blackman_coeff", "blackman_coeff")):
        if ours in kw:
            setattr(options.frame_opts, theirs, kw[ours])
    for ours, theirs in (("num_mel_bins", "num_bins"), ("low_freq", "low_freq"), ("high_freq", "high_freq")):
        if ours in kw:
            setattr(options.mel_opts, theirs, kw[ours])
    for name in ("use_energy", "raw_energy", "htk_compat", "energy_floor", "use_log_fbank", "use_power", "num_ceps",
                 "cepstral_lifter"):
        if name in kw:
            setattr(options, name, kw[name])
    return options


FBANK_OPTIONS = [
    {}, {"snip_edges": False}, {"use_energy": True, "window_type": "hamming", "num_mel_bins": 40},
    {"use_energy": True, "htk_compat": True, "raw_energy": False}, {"window_type": "hanning", "low_freq": 100.0,
                                                                   "high_freq": -400.0},
    {"window_type": "rectangular", "round_to_power_of_two": False, "frame_length": 20.0, "frame_shift": 5.0},
    {"window_type": "blackman", "preemphasis_coefficient": 0.0, "remove_dc_offset": False},
    {"use_power": False, "use_log_fbank": False, "energy_floor": 0.0},
]


@pytest.mark.parametrize("kw", FBANK_OPTIONS)
def test_fbank_matches_kaldi(kw):
    expected = knf_features(knf.OnlineFbank, frame_options(knf.FbankOptions(), kw))
    result = kaldi.fbank(ember.tensor(SIGNAL[None]), **kw).numpy()
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-4)


MFCC_OPTIONS = [
    {"use_energy": False}, {"use_energy": True}, {"use_energy": True, "htk_compat": True},
    {"use_energy": False, "htk_compat": True}, {"use_energy": True, "cepstral_lifter": 0.0, "num_ceps": 20},
    {"use_energy": False, "num_mel_bins": 30, "num_ceps": 30, "snip_edges": False},
]


@pytest.mark.parametrize("kw", MFCC_OPTIONS)
def test_mfcc_matches_kaldi(kw):
    expected = knf_features(knf.OnlineMfcc, frame_options(knf.MfccOptions(), kw))
    result = kaldi.mfcc(ember.tensor(SIGNAL[None]), **kw).numpy()
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-3)  # float32 DCT of values near 100, liftered


def kaldi_spectrogram_reference(x, frame_length=25.0, frame_shift=10.0, preemph=0.97, energy_floor=1.0):
    """compute-spectrogram-feats' formulas (povey window, snip_edges, raw energy), in NumPy float64."""
    size, shift = int(SR * frame_length / 1000), int(SR * frame_shift / 1000)
    padded = 1 << (size - 1).bit_length()
    count = 1 + (len(x) - size) // shift
    n = np.arange(size)
    window = (0.5 - 0.5 * np.cos(2 * np.pi * n / (size - 1))) ** 0.85
    rows = []
    for f in range(count):
        frame = x[f * shift:f * shift + size].astype(np.float64)
        frame = frame - frame.mean()
        energy = max(math.log(max((frame ** 2).sum(), np.finfo(np.float32).eps)), math.log(energy_floor))
        frame = frame - preemph * np.concatenate([frame[:1], frame[:-1]])
        power = np.abs(np.fft.rfft(frame * window, n=padded)) ** 2
        row = np.log(np.maximum(power, np.finfo(np.float32).eps))
        row[0] = energy
        rows.append(row)
    return np.stack(rows)


@pytest.mark.parametrize("subtract_mean", [False, True])
def test_spectrogram_matches_kaldi_formulas(subtract_mean):
    expected = kaldi_spectrogram_reference(SIGNAL)
    if subtract_mean:
        expected = expected - expected.mean(0)
    result = kaldi.spectrogram(ember.tensor(SIGNAL[None].astype(np.float64)), subtract_mean=subtract_mean).numpy()
    np.testing.assert_allclose(result, expected, atol=1e-8)


def test_mel_banks_and_vtln():
    banks, centers = kaldi.get_mel_banks(23, 512, 16000.0, 20.0, 0.0, 100.0, -500.0, 1.0)
    assert tuple(banks.shape) == (23, 256) and tuple(centers.shape) == (23,)
    mel_low, mel_high = kaldi.mel_scale_scalar(20.0), kaldi.mel_scale_scalar(8000.0)
    step = (mel_high - mel_low) / 24
    expected_centers = [kaldi.inverse_mel_scale_scalar(mel_low + (i + 1) * step) for i in range(23)]
    np.testing.assert_allclose(centers.numpy(), expected_centers, rtol=1e-5)
    assert abs(kaldi.inverse_mel_scale_scalar(kaldi.mel_scale_scalar(1234.5)) - 1234.5) < 1e-9
    warped, _ = kaldi.get_mel_banks(23, 512, 16000.0, 20.0, 0.0, 100.0, -500.0, 1.1)
    assert not np.allclose(warped.numpy(), banks.numpy()) and warped.min() >= 0
    freq = ember.tensor([10.0, 50.0, 1000.0, 7000.0, 7900.0], dtype=ember.float64)
    out = kaldi.vtln_warp_freq(100.0, 7500.0, 20.0, 8000.0, 1.2, freq).numpy()
    assert out[0] == 10.0 and abs(out[2] - 1000.0 / 1.2) < 1e-9  # below low_freq unchanged; linear middle


def test_kaldi_errors():
    x = ember.tensor(SIGNAL[None])
    with pytest.raises(ValueError, match="Invalid channel 3"):
        kaldi.fbank(x, channel=3)
    with pytest.raises(ValueError, match="num_ceps cannot be larger"):
        kaldi.mfcc(x, num_ceps=30)
    with pytest.raises(ValueError, match="window size"):
        kaldi.fbank(x[:, :100])
    with pytest.raises(ValueError, match="Invalid window type"):
        kaldi.spectrogram(x, window_type="kaiser")
    with pytest.raises(ValueError, match="Must have at least 3 mel bins"):
        kaldi.fbank(x, num_mel_bins=3)
    assert kaldi.fbank(x, min_duration=2.0).numel() == 0
