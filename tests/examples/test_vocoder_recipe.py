"""The vocoder recipe (examples/vocoder): the dB normalisation and its inverse, mu-law classes to the network's
[-1, 1] input and back to audio, torchaudio-style training windows (mel frames aligned with the samples they
cover), the log-mel distance, and a tiny espeak-ng run interrupted after one epoch and resumed, which must end with
the weights of an uninterrupted run."""
import math
import random

import numpy as np
import pytest

import ember
from espeak_recipes import assert_same_weights, espeak_recipe_module, needs_espeak, run_interrupted_and_resumed


def _module(name):
    return espeak_recipe_module("vocoder", name)


def test_db_normalisation_round_trip_and_floor():
    vd = _module("vocoder_data")
    mel = ember.tensor([1.0, 0.1, 1e-3, 1e-5, 1e-7])
    # 20 log10: 0, -20, -60, -100 dB, and -140 dB clipped to the -100 dB floor
    np.testing.assert_allclose(vd.normalize_db(mel).numpy(), [1.0, 0.8, 0.4, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(vd.denormalize_db(vd.normalize_db(mel[:4])).numpy(), mel[:4].numpy(), rtol=1e-4)
    a, b = ember.tensor([[0.5, 0.5]]), ember.tensor([[0.4, 0.7]])
    assert vd.log_mel_distance_db(a, b) == pytest.approx((10 + 20) / 2, abs=1e-4)  # mean |difference| in dB
    # the top 20 dB below the reference's peak (0.9 -> -10 dB): bins under -30 dB count as -30 dB
    ref, out = ember.tensor([[0.9, 0.5, 0.1]]), ember.tensor([[0.8, 0.6, 0.75]])
    assert vd.log_mel_distance_db(ref, out, top_db=20) == pytest.approx((10 + 0 + 5) / 3, abs=1e-4)
    assert vd.log_mel_distance_db(ref, out) == pytest.approx((10 + 10 + 65) / 3, abs=1e-4)


def test_classes_to_unit_and_waveform():
    vd = _module("vocoder_data")
    labels = ember.tensor([0, 127, 128, 255])
    np.testing.assert_allclose(vd.classes_to_unit(labels).numpy(), [-1.0, -1 / 255, 1 / 255, 1.0], atol=1e-6)
    wave = ember.tensor([-0.9, -0.2, 0.0, 0.05, 0.5, 0.99])
    from emberaudio import functional as AF
    back = vd.unit_to_waveform(vd.classes_to_unit(AF.mu_law_encoding(wave, 256)))
    np.testing.assert_allclose(back.numpy(), wave.numpy(), atol=0.03)  # within one 8-bit mu-law step


def test_training_windows_align_mel_frames_with_samples():
    vd = _module("vocoder_data")
    frames, pad = 3, 2
    n = 40
    mel = ember.arange(n, dtype=ember.float32).view(1, n).expand(vd.N_MELS, n)  # each frame holds its index
    labels = ember.arange(n * vd.HOP) % 256  # each sample's class is its index mod 256
    mels, inputs, targets = vd.training_batch([(mel, labels)], 4, frames, pad, random.Random(0))
    assert mels.shape == (4, 1, vd.N_MELS, frames + 2 * pad)
    assert inputs.shape == (4, 1, frames * vd.HOP) and targets.shape == (4, frames * vd.HOP)
    for i in range(4):
        first = int(mels[i, 0, 0, pad])  # the first frame the window predicts audio for
        start = first * vd.HOP  # frame t is centred on sample t * HOP
        expected = (ember.arange(start, start + frames * vd.HOP + 1) % 256)
        assert targets[i].tolist() == expected[1:].tolist()
        np.testing.assert_allclose(inputs[i, 0].numpy(), vd.classes_to_unit(expected[:-1]).numpy())


TINY = ["--per-voice", "2", "--test-per-voice", "1", "--epochs", "2", "--steps", "2", "--batch-size", "2",
        "--frames", "2", "--rnn", "16", "--fc", "16", "--res-blocks", "1", "--hidden", "8", "--test-seconds", "0.05",
        "--gl-iters", "2"]


@needs_espeak
def test_tiny_run_interrupted_and_resumed_equals_uninterrupted(tmp_path, monkeypatch):
    vd = _module("vocoder_data")
    train = _module("train")
    monkeypatch.setattr(train, "vd", vd)
    monkeypatch.setattr(vd, "TRAIN_VOICES", vd.TRAIN_VOICES[:2])
    monkeypatch.setattr(vd, "TEST_VOICES", vd.TEST_VOICES[:2])
    full = train.main(["--data", str(tmp_path / "a")] + TINY)
    assert len(full["history"]) == 2 and full["held_out_utterances"] == 2
    assert math.isfinite(full["wavernn_log_mel_distance_db"]) and full["griffinlim_log_mel_distance_db"] >= 0
    assert full["mulaw_original_full_range_log_mel_distance_db"] >= full["mulaw_original_log_mel_distance_db"]
    for name in ("original", "wavernn", "griffinlim"):
        assert (tmp_path / "a" / "sample" / f"{name}.wav").exists()
    again = train.main(["--data", str(tmp_path / "a"), "--eval-only"] + TINY)  # generation draws are seeded
    assert again["wavernn_log_mel_distance_db"] == pytest.approx(full["wavernn_log_mel_distance_db"], rel=1e-5)
    assert again["history"] == full["history"]
    with pytest.raises(FileNotFoundError, match="--eval-only needs a checkpoint"):
        train.main(["--data", str(tmp_path / "c"), "--eval-only"] + TINY)
    resumed = run_interrupted_and_resumed(train, tmp_path, TINY)
    assert [h["train_bits_per_sample"] for h in resumed["history"]] == pytest.approx(
        [h["train_bits_per_sample"] for h in full["history"]], rel=1e-5)
    assert_same_weights(tmp_path, "wavernn.ckpt")
