"""emberaudio's SoX-compatible filters and effects against the `sox` command on the same white noise, within
torchaudio's tolerances (its sox_compatibility_test: atol 1e-4, 1.5e-4 for lowpass/highpass/bass)."""
import numpy as np
import pytest

import ember
import emberaudio.functional as F

from _sox import requires_sox, sox_effect, whitenoise

pytestmark = requires_sox


def lfilter_biquad(x, sr):
    return F.lfilter(x, ember.tensor([0.7, 0.2, 0.6]), ember.tensor([0.4, 0.2, 0.9]))


# (name, ours(waveform, sample_rate), sox's effect and arguments, sample rate, channels, atol)
CASES = [
    ("lowpass", lambda x, sr: F.lowpass_biquad(x, sr, 3000), ["lowpass", 3000], 8000, 1, 1.5e-4),
    ("highpass", lambda x, sr: F.highpass_biquad(x, sr, 2000), ["highpass", 2000], 8000, 1, 1.5e-4),
    ("allpass", lambda x, sr: F.allpass_biquad(x, sr, 1000, 0.707), ["allpass", 1000, "0.707q"], 8000, 1, 1e-4),
    ("bandpass_csg", lambda x, sr: F.bandpass_biquad(x, sr, 1000, 0.707, True), ["bandpass", "-c", 1000, "0.707q"],
     8000, 1, 1e-4),
    ("bandpass", lambda x, sr: F.bandpass_biquad(x, sr, 1000, 0.707), ["bandpass", 1000, "0.707q"], 8000, 1, 1e-4),
    ("bandreject", lambda x, sr: F.bandreject_biquad(x, sr, 1000, 0.707), ["bandreject", 1000, "0.707q"], 8000, 1,
     1e-4),
    ("band_noise", lambda x, sr: F.band_biquad(x, sr, 1000, 0.707, True), ["band", "-n", 1000, "0.707q"], 8000, 1,
     1e-4),
    ("band", lambda x, sr: F.band_biquad(x, sr, 1000, 0.707), ["band", 1000, "0.707q"], 8000, 1, 1e-4),
    ("treble", lambda x, sr: F.treble_biquad(x, sr, 40, 1000, 0.707), ["treble", 40, 1000, "0.707q"], 8000, 1, 1e-4),
    ("bass", lambda x, sr: F.bass_biquad(x, sr, 40, 1000, 0.707), ["bass", 40, 1000, "0.707q"], 8000, 1, 1.5e-4),
    ("deemph", lambda x, sr: F.deemph_biquad(x, sr), ["deemph"], 44100, 1, 1e-4),
    ("riaa", lambda x, sr: F.riaa_biquad(x, sr), ["riaa"], 44100, 1, 1e-4),
    ("equalizer", lambda x, sr: F.equalizer_biquad(x, sr, 300, 1, 0.707), ["equalizer", 300, 0.707, 1], 8000, 1, 1e-4),
    ("biquad", lfilter_biquad, ["biquad", 0.4, 0.2, 0.9, 0.7, 0.2, 0.6], 8000, 1, 1e-4),
    ("contrast", lambda x, sr: F.contrast(x, 80.0), ["contrast", 80.0], 8000, 1, 1e-4),
    ("dcshift_limiter", lambda x, sr: F.dcshift(x, 0.5, 0.05), ["dcshift", 0.5, 0.05], 8000, 1, 1e-4),
    ("dcshift_limiter_negative", lambda x, sr: F.dcshift(x, -0.5, 0.05), ["dcshift", -0.5, 0.05], 8000, 1, 1e-4),
    ("dcshift", lambda x, sr: F.dcshift(x, 0.6), ["dcshift", 0.6], 8000, 1, 1e-4),
    ("overdrive", lambda x, sr: F.overdrive(x, 30, 40), ["overdrive", 30, 40], 8000, 1, 1e-4),
    ("phaser_sine", lambda x, sr: F.phaser(x, sr, 0.5, 0.8, 2.0, 0.4, 0.5, True),
     ["phaser", 0.5, 0.8, 2.0, 0.4, 0.5, "-s"], 8000, 1, 1e-4),
    ("phaser_triangle", lambda x, sr: F.phaser(x, sr, 0.5, 0.8, 2.0, 0.4, 0.5, False),
     ["phaser", 0.5, 0.8, 2.0, 0.4, 0.5, "-t"], 8000, 2, 1e-4),
    ("flanger_triangle_linear", lambda x, sr: F.flanger(x, sr, 0.6, 0.87, 3.0, 0.9, 0.5, 30, "triangular", "linear"),
     ["flanger", 0.6, 0.87, 3.0, 0.9, 0.5, "triangle", 30, "linear"], 8000, 1, 1e-4),
    ("flanger_triangle_quadratic",
     lambda x, sr: F.flanger(x, sr, 0.8, 0.88, 3.0, 0.4, 0.5, 40, "triangular", "quadratic"),
     ["flanger", 0.8, 0.88, 3.0, 0.4, 0.5, "triangle", 40, "quadratic"], 8000, 1, 1e-4),
    ("flanger_sine_linear", lambda x, sr: F.flanger(x, sr, 0.8, 0.88, 3.0, 0.23, 1.3, 60, "sinusoidal", "linear"),
     ["flanger", 0.8, 0.88, 3.0, 0.23, 1.3, "sine", 60, "linear"], 8000, 1, 1e-4),
    ("flanger_sine_quadratic_stereo",
     lambda x, sr: F.flanger(x, sr, 0.9, 0.9, 4.0, 0.23, 1.3, 25, "sinusoidal", "quadratic"),
     ["flanger", 0.9, 0.9, 4.0, 0.23, 1.3, "sine", 25, "quadratic"], 8000, 2, 1e-4),
    ("gain", lambda x, sr: F.gain(x, -3), ["gain", -3], 8000, 1, 1e-4),
]


@pytest.mark.parametrize("name,ours,effect,sample_rate,channels,atol", CASES, ids=[c[0] for c in CASES])
def test_effect_matches_sox(tmp_path, name, ours, effect, sample_rate, channels, atol):
    x = whitenoise(sample_rate, channels=channels)
    expected, rate = sox_effect(tmp_path, x, sample_rate, effect)
    result = ours(ember.tensor(x), sample_rate).numpy()
    assert rate == sample_rate and result.shape == expected.shape
    np.testing.assert_allclose(result, expected, atol=atol, rtol=1e-5)


@pytest.mark.parametrize("noise_shaping,effect,atol", [(False, ["dither"], 1e-4), (True, ["dither", "-s"], 1.5e-4)])
def test_dither_matches_sox_on_16_bit_audio(tmp_path, noise_shaping, effect, atol):
    x = np.round(whitenoise(8000, scale=0.5) * 32768) / 32768
    expected, _ = sox_effect(tmp_path, x, 8000, effect, subtype="PCM_16")
    result = F.dither(ember.tensor(x), noise_shaping=noise_shaping).numpy()
    np.testing.assert_allclose(result, expected, atol=atol, rtol=0)
