"""emberaudio.sox_effects (apply_effects_tensor / apply_effects_file, no libsox) against the `sox` command on
generated signals: each effect with SoX's own argument syntax, the chain's sample-rate bookkeeping, layouts,
integer inputs and errors."""
import numpy as np
import pytest
import soundfile

import ember
from emberaudio.sox_effects import apply_effects_file, apply_effects_tensor, effect_names

from _sox import requires_sox, sox_effect, whitenoise


def tones(sample_rate, seconds=1.0, channels=1):
    """Three sines well inside the band (the resampling effects are compared on band-limited audio)."""
    t = np.arange(int(sample_rate * seconds)) / sample_rate
    return np.stack([0.3 * np.sin(2 * np.pi * 440 * t + c) + 0.2 * np.sin(2 * np.pi * 1234 * t)
                     + 0.1 * np.sin(2 * np.pi * 2500 * t) for c in range(channels)]).astype(np.float32)


def noise(sample_rate, channels=1):
    return whitenoise(sample_rate, seconds=1.0, channels=channels, scale=0.5)


# (id, signal, sample rate, chain for apply_effects_tensor, sox's effect arguments, sox's output options)
EXACT = [
    ("lowpass_k_suffix", noise, 8000, [["lowpass", "3k"]], ["lowpass", "3k"], ()),
    ("lowpass_one_pole", noise, 8000, [["lowpass", "-1", "1k"]], ["lowpass", "-1", "1k"], ()),
    ("highpass_one_pole", noise, 8000, [["highpass", "-1", "1k"]], ["highpass", "-1", "1k"], ()),
    ("highpass_octaves", noise, 8000, [["highpass", "500", "1.2o"]], ["highpass", "500", "1.2o"], ()),
    ("bandpass_hz", noise, 8000, [["bandpass", "1k", "200h"]], ["bandpass", "1k", "200h"], ()),
    ("bandpass_csg_default_hz", noise, 8000, [["bandpass", "-c", "1k", "300"]], ["bandpass", "-c", "1k", "300"], ()),
    ("bandreject", noise, 8000, [["bandreject", "1200", "2q"]], ["bandreject", "1200", "2q"], ()),
    ("allpass", noise, 8000, [["allpass", "1000", "0.5o"]], ["allpass", "1000", "0.5o"], ()),
    ("band_default_width", noise, 8000, [["band", "1k"]], ["band", "1k"], ()),
    ("band_noise", noise, 8000, [["band", "-n", "1k", "100"]], ["band", "-n", "1k", "100"], ()),
    ("bass_default_slope", noise, 8000, [["bass", "6"]], ["bass", "6"], ()),
    ("treble_octaves", noise, 8000, [["treble", "-6", "2k", "1o"]], ["treble", "-6", "2k", "1o"], ()),
    ("equalizer_octaves", noise, 8000, [["equalizer", "1k", "1.5o", "-4"]], ["equalizer", "1k", "1.5o", "-4"], ()),
    ("deemph", lambda sr: noise(sr), 44100, [["deemph"]], ["deemph"], ()),
    ("riaa", lambda sr: noise(sr), 48000, [["riaa"]], ["riaa"], ()),
    ("biquad", noise, 8000, [["biquad", "0.4", "0.2", "0.9", "0.7", "0.2", "0.6"]],
     ["biquad", 0.4, 0.2, 0.9, 0.7, 0.2, 0.6], ()),
    ("contrast_default", noise, 8000, [["contrast"]], ["contrast"], ()),
    ("dcshift", noise, 8000, [["dcshift", "0.3", "0.05"]], ["dcshift", 0.3, 0.05], ()),
    ("overdrive", noise, 8000, [["overdrive", "10"]], ["overdrive", 10], ()),
    ("phaser_triangle", noise, 8000, [["phaser", "0.6", "0.66", "3", "0.6", "2", "-t"]],
     ["phaser", 0.6, 0.66, 3, 0.6, 2, "-t"], ()),
    ("flanger_defaults", lambda sr: noise(sr, 2), 8000, [["flanger"]], ["flanger"], ()),
    ("tempo_slower", tones, 16000, [["tempo", "0.9"]], ["tempo", 0.9], ()),
    ("tempo_quick_speech", tones, 16000, [["tempo", "-q", "-s", "1.2"]], ["tempo", "-q", "-s", 1.2], ()),
    ("tempo_stereo_explicit", lambda sr: tones(sr, channels=2), 16000, [["tempo", "1.5", "40", "10", "8"]],
     ["tempo", 1.5, 40, 10, 8], ()),
    ("reverb_stereo", lambda sr: noise(sr, 2), 8000, [["reverb"]], ["reverb"], ()),
    ("reverb_mono_to_stereo", noise, 8000, [["reverb", "-w", "70", "30", "80", "50", "20", "3"]],
     ["reverb", "-w", 70, 30, 80, 50, 20, 3], ("-c", 2)),
    ("reverb_three_channels", lambda sr: noise(sr, 3), 8000, [["reverb", "40"]], ["reverb", 40], ()),
    ("trim", tones, 16000, [["trim", "0.1", "0.5"]], ["trim", 0.1, 0.5], ()),
    ("trim_positions", tones, 16000, [["trim", "100s", "=0.2", "0.1", "-0.3"]], ["trim", "100s", "=0.2", "0.1", "-0.3"],
     ()),
    ("pad", tones, 16000, [["pad", "0.1", "0.2"]], ["pad", 0.1, 0.2], ()),
    ("pad_at_position", tones, 16000, [["pad", "0.1@0.3", "50s"]], ["pad", "0.1@0.3", "50s"], ()),
    ("channels_down", lambda sr: noise(sr, 3), 8000, [["channels", "1"]], ["channels", 1], ()),
    ("channels_3_to_2", lambda sr: noise(sr, 3), 8000, [["channels", "2"]], ["channels", 2], ("-c", 2)),
    ("channels_up", noise, 8000, [["channels", "3"]], ["channels", 3], ("-c", 3)),
    ("remix_automatic", lambda sr: noise(sr, 3), 8000, [["remix", "1,2", "3v0.5,1p-3", "-"]],
     ["remix", "1,2", "3v0.5,1p-3", "-"], ("-c", 3)),
    ("remix_manual_power", lambda sr: noise(sr, 3), 8000, [["remix", "-p", "1-2", "0", "3i1,2"]],
     ["remix", "-p", "1-2", "0", "3i1,2"], ("-c", 3)),
    ("remix_manual", lambda sr: noise(sr, 3), 8000, [["remix", "-m", "1,2,3"]], ["remix", "-m", "1,2,3"], ("-c", 1)),
    ("gain_normalise", lambda sr: noise(sr, 3), 8000, [["gain", "-n", "-3"]], ["gain", "-n", "-3"], ()),
    ("gain_equalise_peaks", lambda sr: noise(sr, 3) * np.array([[1.0], [0.5], [0.2]], np.float32), 8000,
     [["gain", "-e"]], ["gain", "-e"], ()),
    ("gain_balance", lambda sr: noise(sr, 2) * np.array([[1.0], [0.3]], np.float32), 8000, [["gain", "-B"]],
     ["gain", "-B"], ()),
    ("gain_db", noise, 8000, [["gain", "-4.5"]], ["gain", "-4.5"], ()),
    ("vol_power", noise, 8000, [["vol", "0.5", "power"]], ["vol", 0.5, "power"], ()),
    ("vol_db_suffix", noise, 8000, [["vol", "-6dB"]], ["vol", "-6dB"], ()),
    ("chain", noise, 8000, [["lowpass", "3k"], ["reverb", "60"], ["channels", "1"], ["gain", "-n"]],
     ["lowpass", "3k", "reverb", 60, "channels", 1, "gain", "-n"], ()),
]


@requires_sox
@pytest.mark.parametrize("name,signal,rate,chain,sox_args,options", EXACT, ids=[c[0] for c in EXACT])
def test_effect_matches_sox(tmp_path, name, signal, rate, chain, sox_args, options):
    x = signal(rate)
    expected, expected_rate = sox_effect(tmp_path, x, rate, sox_args, output_options=options)
    result, result_rate = apply_effects_tensor(ember.tensor(x), rate, chain)
    assert result.dtype == ember.float32 and result_rate == expected_rate
    assert tuple(result.shape) == expected.shape
    np.testing.assert_allclose(result.numpy(), expected, atol=1e-5, rtol=1e-5)


# Resampling: SoX's filter design is its own, so the interior agrees to 1e-4 and the edges (where each treats
# the signal's ends differently) to 5e-3. Lengths and rates agree exactly.
RESAMPLING = [
    ("rate_down", 16000, [["rate", "8000"]], ["rate", 8000], ("-r", 8000)),
    ("rate_up_fractional_ratio", 16000, [["rate", "44100"]], ["rate", 44100], ("-r", 44100)),
    ("rate_44k1_to_16k", 44100, [["rate", "-v", "16k"]], ["rate", "-v", "16k"], ("-r", 16000)),
    ("speed_then_rate", 16000, [["speed", "1.1"], ["rate", "16000"]], ["speed", 1.1], ()),
    ("speed_cents", 16000, [["speed", "-200c"], ["rate", "16000"]], ["speed", "-200c"], ()),
    ("pitch_then_rate", 16000, [["pitch", "100"], ["rate", "16000"]], ["pitch", 100], ()),
    ("pitch_down_quick", 16000, [["pitch", "-q", "-300"], ["rate", "16000"]], ["pitch", "-q", -300], ()),
]


@requires_sox
@pytest.mark.parametrize("name,rate,chain,sox_args,options", RESAMPLING, ids=[c[0] for c in RESAMPLING])
def test_resampling_effect_matches_sox(tmp_path, name, rate, chain, sox_args, options):
    x = tones(rate)
    expected, expected_rate = sox_effect(tmp_path, x, rate, sox_args, output_options=options)
    result, result_rate = apply_effects_tensor(ember.tensor(x), rate, chain)
    assert result_rate == expected_rate and tuple(result.shape) == expected.shape
    edge = expected_rate // 25
    np.testing.assert_allclose(result.numpy()[:, edge:-edge], expected[:, edge:-edge], atol=1e-4)
    np.testing.assert_allclose(result.numpy(), expected, atol=5e-3)


def test_speed_and_pitch_relabel_the_rate():
    x = ember.tensor(tones(8000))
    out, rate = apply_effects_tensor(x, 8000, [["speed", "0.8"]])
    assert rate == 6400 and ember.equal(out, x)
    _, rate = apply_effects_tensor(x, 8000, [["pitch", "1200"], ["rate", "8000"]])
    assert rate == 8000


@requires_sox
def test_apply_effects_file_reads_any_soundfile_format(tmp_path):
    x = noise(8000, 2)
    path = tmp_path / "in.flac"
    soundfile.write(str(path), x.T, 8000, subtype="PCM_16")
    quantised, _ = soundfile.read(str(path), dtype="float32", always_2d=True)
    expected, _ = sox_effect(tmp_path, np.ascontiguousarray(quantised.T), 8000, ["lowpass", "2k", "gain", "-2"])
    out, rate = apply_effects_file(str(path), [["lowpass", "2k"], ["gain", "-2"]])
    assert rate == 8000
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-5)
    ints, _ = apply_effects_file(str(path), [["gain", "-2"]], normalize=False, channels_first=False)
    assert ints.dtype == ember.int16 and tuple(ints.shape) == (8000, 2)
    np.testing.assert_allclose(ints.numpy() / 32768, (quantised * 10 ** (-2 / 20)), atol=1 / 32768)


def test_layouts_and_integer_inputs():
    x = noise(8000, 2)
    first, _ = apply_effects_tensor(ember.tensor(x), 8000, [["vol", "0.5"]])
    last, _ = apply_effects_tensor(ember.tensor(x.T.copy()), 8000, [["vol", "0.5"]], channels_first=False)
    np.testing.assert_allclose(last.numpy().T, first.numpy())
    as_int = (x * 32767).astype(np.int16)
    out, _ = apply_effects_tensor(ember.tensor(as_int), 8000, [["vol", "1"]])
    np.testing.assert_allclose(out.numpy(), as_int / 32768, atol=1e-7)


def test_effect_names_and_errors():
    assert {"rate", "tempo", "pitch", "reverb", "remix", "lowpass", "flanger"} <= set(effect_names())
    x = ember.zeros(1, 100)
    with pytest.raises(RuntimeError, match="Unsupported effect: chorus"):
        apply_effects_tensor(x, 8000, [["chorus", "0.7"]])
    with pytest.raises(ValueError, match="lowpass: frequency must be positive"):
        apply_effects_tensor(x, 8000, [["lowpass", "5000"]])
    with pytest.raises(ValueError, match="bandpass: missing width"):
        apply_effects_tensor(x, 8000, [["bandpass", "1000"]])
    with pytest.raises(ValueError, match="width unit 'x'"):
        apply_effects_tensor(x, 8000, [["bandpass", "1000", "3x"]])
    with pytest.raises(ValueError, match="unexpected argument"):
        apply_effects_tensor(x, 8000, [["deemph", "1"]])
    with pytest.raises(ValueError, match="input channel 4 is out of range"):
        apply_effects_tensor(x, 8000, [["remix", "4"]])
    with pytest.raises(ValueError, match="factor must be in"):
        apply_effects_tensor(x, 8000, [["tempo", "0.01"]])
    with pytest.raises(ValueError, match="expected a 2D tensor"):
        apply_effects_tensor(ember.zeros(100), 8000, [["vol", "1"]])
    with pytest.raises(ValueError, match="invalid position"):
        apply_effects_tensor(x, 8000, [["trim", "abc"]])
