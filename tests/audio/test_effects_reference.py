"""The effects' formulas against plain NumPy references written here (torchaudio 0.9's definitions), their
argument checks, and batched equal to per-item."""
import numpy as np
import pytest
import scipy.signal

import ember
import emberaudio.functional as F


def test_dither_tpdf_is_a_bartlett_window_then_16_bit_rounding():
    x = np.random.default_rng(1).uniform(-0.5, 0.5, (2, 300))
    periodic_bartlett = np.bartlett(301)[:300]  # torch.bartlett_window's default (periodic=True)
    expected = np.round(x * (2 ** 15 - 2) + periodic_bartlett) / 2 ** 15
    np.testing.assert_allclose(F.dither(ember.tensor(x)).numpy(), expected, atol=1e-12)
    shaped = expected + np.pad((expected - x)[:, :-1], ((0, 0), (1, 0)))
    np.testing.assert_allclose(F.dither(ember.tensor(x), noise_shaping=True).numpy(), shaped, atol=1e-12)


def test_dither_rpdf_and_gpdf_add_one_offset_before_rounding():
    x = np.random.default_rng(2).uniform(-0.5, 0.5, (3, 200))
    for kind in ("RPDF", "GPDF"):
        out = F.dither(ember.tensor(x), density_function=kind).numpy()
        offset = out * 2 ** 15 - x * (2 ** 15 - 2)
        assert np.all(np.abs(offset - np.median(offset)) <= 1.0 + 1e-9)  # one shared offset, then round()
    with pytest.raises(ValueError, match="density_function"):
        F.dither(ember.tensor(x), density_function="XPDF")


def test_overdrive_is_soft_clip_then_dc_blocker():
    x = np.random.default_rng(3).uniform(-1, 1, (2, 500))
    gain, colour = 10.0, 30.0
    t = x * 10 ** (gain / 20) + colour / 200
    t = np.where(t < -1, -2 / 3, np.where(t > 1, 2 / 3, t - t ** 3 / 3))
    blocked = scipy.signal.lfilter([1.0, -1.0], [1.0, -0.995], t, axis=-1)
    expected = np.clip(x * 0.5 + blocked * 0.75, -1, 1)
    np.testing.assert_allclose(F.overdrive(ember.tensor(x), gain, colour).numpy(), expected, atol=1e-10)


def test_contrast_and_dcshift_formulas():
    x = np.random.default_rng(4).uniform(-1, 1, 400)
    expected = np.sin(x * np.pi / 2 + 80 / 750 * np.sin(x * 2 * np.pi))
    np.testing.assert_allclose(F.contrast(ember.tensor(x), 80.0).numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(F.dcshift(ember.tensor(x), 0.3).numpy(), np.clip(x + 0.3, -1, 1), atol=1e-12)
    with pytest.raises(ValueError, match="0-100"):
        F.contrast(ember.tensor(x), 120.0)


def test_dcshift_does_not_modify_its_input():
    x = ember.tensor([0.9, -0.9, 0.1])
    F.dcshift(x, 0.5, 0.05)
    assert x.tolist() == pytest.approx([0.9, -0.9, 0.1])


def test_phaser_recursion_reference():
    """temp[i] = gain_in x[i] + decay * temp[i - d_i], d_i = buf_len + 1 - mod[i] (SoX's ring buffer unrolled)."""
    sr, delay_ms, speed = 8000, 2.0, 2.0
    x = np.random.default_rng(5).uniform(-0.5, 0.5, 3000)
    buf_len = int(delay_ms * 0.001 * sr + 0.5)
    mod_len = int(sr / speed + 0.5)
    offset = int(np.pi / 2 / np.pi / 2 * mod_len + 0.5)
    point = (np.arange(mod_len) + offset) % mod_len
    mod = (np.sin(point / mod_len * 2 * np.pi) + 1) / 2 * (buf_len - 1.0) + 1.0
    mod = np.trunc(np.where(mod < 0, mod - 0.5, mod + 0.5)).astype(np.int64)
    temp = np.zeros_like(x)
    for i in range(len(x)):
        j = i - (buf_len + 1 - mod[i % mod_len])
        temp[i] = 0.5 * x[i] + (0.4 * temp[j] if j >= 0 else 0.0)
    expected = np.clip(temp * 0.8, -1, 1)
    result = F.phaser(ember.tensor(x), sr, 0.5, 0.8, delay_ms, 0.4, speed, True).numpy()
    np.testing.assert_allclose(result, expected, atol=1e-12)


def test_flanger_checks_its_arguments():
    x = ember.zeros(5, 100)
    with pytest.raises(ValueError, match="Max 4 channels"):
        F.flanger(x, 8000)
    with pytest.raises(ValueError, match="modulation"):
        F.flanger(x[:2], 8000, modulation="square")
    with pytest.raises(ValueError, match="interpolation"):
        F.flanger(x[:2], 8000, interpolation="cubic")


@pytest.mark.parametrize("effect", [
    lambda x: F.phaser(x, 8000), lambda x: F.flanger(x, 8000, phase=50.0), lambda x: F.overdrive(x),
    lambda x: F.lowpass_biquad(x, 8000, 1000), lambda x: F.riaa_biquad(x, 44100), lambda x: F.contrast(x)])
def test_batched_equals_per_item(effect):
    x = ember.tensor(np.random.default_rng(6).uniform(-0.8, 0.8, (3, 2, 800)).astype(np.float32))
    batched = effect(x)
    for i in range(3):
        np.testing.assert_allclose(batched[i].numpy(), effect(x[i]).numpy(), atol=1e-6)
