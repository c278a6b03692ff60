"""The separation recipe (examples/speech_separation): SI-SDR against hand-computed cases, permutation-invariant
scoring, the mixing (lengths, levels, two different voices), and a tiny espeak-ng run interrupted after one epoch
and resumed, which must end with the weights of an uninterrupted run."""
import math
import random

import numpy as np
import pytest

import ember
from espeak_recipes import assert_same_weights, espeak_recipe_module, needs_espeak, run_interrupted_and_resumed


def _module(name):
    return espeak_recipe_module("speech_separation", name)


def test_si_sdr_hand_computed():
    metrics = _module("separation_metrics")
    s = ember.tensor([1.0, -1.0, 1.0, -1.0])
    n = ember.tensor([1.0, 1.0, -1.0, -1.0])  # zero-mean, orthogonal to s
    # estimate 2s + n: alpha = <2s + n, s> / <s, s> = 8 / 4 = 2, target 2s (energy 16), noise n (energy 4)
    expected = 10 * math.log10(16 / 4)
    assert metrics.si_sdr(2 * s + n, s).item() == pytest.approx(expected, abs=1e-5)
    # invariant to the estimate's scale and to a constant offset (both signals are made zero-mean)
    assert metrics.si_sdr(5 * (2 * s + n) + 3, s).item() == pytest.approx(expected, abs=1e-5)
    # a batch over leading dimensions: a clean estimate scores far higher than one that is mostly noise
    batch = metrics.si_sdr(ember.stack([s + 0.1 * n, 0.1 * s + n]), ember.stack([s, s]))
    assert batch.shape == (2,)
    assert batch[0].item() == pytest.approx(20.0, abs=1e-4) and batch[1].item() == pytest.approx(-20.0, abs=1e-4)


def test_si_sdr_matches_a_numpy_reference_on_random_signals():
    metrics = _module("separation_metrics")
    rng = np.random.default_rng(0)
    est, ref = rng.standard_normal((3, 2, 200)), rng.standard_normal((3, 2, 200))
    e, r = est - est.mean(-1, keepdims=True), ref - ref.mean(-1, keepdims=True)
    target = (e * r).sum(-1, keepdims=True) / (r**2).sum(-1, keepdims=True) * r
    expected = 10 * np.log10((target**2).sum(-1) / ((e - target) ** 2).sum(-1))
    got = metrics.si_sdr(ember.tensor(est, dtype=ember.float64), ember.tensor(ref, dtype=ember.float64)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_permutation_invariance_and_improvement():
    metrics = _module("separation_metrics")
    s1 = ember.tensor([1.0, -1.0, 1.0, -1.0])
    s2 = ember.tensor([1.0, 1.0, -1.0, -1.0])  # orthogonal to s1, same energy
    refs = ember.stack([s1, s2]).unsqueeze(0)
    est = ember.stack([s2 + 0.5 * s1, s1 + 0.5 * s2]).unsqueeze(0)  # swapped: estimate 0 is source 2
    best, perm = metrics.permutation_invariant_si_sdr(est, refs)
    assert perm.tolist() == [[1, 0]]
    assert best.item() == pytest.approx(10 * math.log10(4 / 1), abs=1e-5)  # each: energy 4 over 0.25 * 4
    assert metrics.pit_loss(est, refs).item() == pytest.approx(-best.item(), abs=1e-6)
    # the mixture s1 + s2 scores 0 dB for each source (target s_k, noise the other): improvement 6.02 dB
    improvement, estimate_score, mixture_score = metrics.si_sdr_improvement(est, refs, (s1 + s2).view(1, 1, 4))
    assert mixture_score.item() == pytest.approx(0.0, abs=1e-5)
    assert improvement.item() == pytest.approx(10 * math.log10(4), abs=1e-5)


def test_mixing_levels_lengths_and_voices():
    mixtures = _module("mixtures")
    rng = random.Random(0)
    a, b = np.sin(np.arange(3000) * 0.05).astype(np.float32), np.ones(500, dtype=np.float32)
    mixed, sources = mixtures.mix(a, b, 1000, rng)
    assert mixed.shape == (1000,) and sources.shape == (2, 1000)
    np.testing.assert_allclose(mixed, sources.sum(0), atol=1e-6)
    assert abs(mixed).max() == pytest.approx(0.9, abs=1e-5)
    assert np.count_nonzero(sources[1]) == 500  # the short source sits whole among zeros
    rms = np.sqrt((sources**2).mean(1))
    assert abs(20 * np.log10(rms[0] / rms[1])) <= 5 + 1e-3
    utterances = [("v1", a), ("v1", a), ("v2", b)]
    for x, y in mixtures.pairs(utterances, 20, rng):
        assert len(x) != len(y)  # always one utterance of each voice
    jobs = mixtures.corpus_jobs(2, 1, seed=3)
    train = {j["text"] for j in jobs if j["split"] == "train"}
    test = [j for j in jobs if j["split"] == "test"]
    assert len(test) == len(mixtures.TEST_VOICES) and not train & {j["text"] for j in test}
    assert not set(mixtures.TRAIN_VOICES) & {j["voice"] for j in test}


def test_tied_decoder_reconstructs_the_encoders_input():
    train = _module("train")
    metrics = _module("separation_metrics")
    ember.manual_seed(0)
    model = train.build_model(train.parse_args(["--enc-kernel", "8", "--enc-feats", "32"]))
    x = ember.randn(2, 1, 2000)
    with ember.no_grad():
        untied = metrics.si_sdr(model.decoder(model.encoder(x)), x)
        train.tie_decoder_to_encoder(model)
        tied = model.decoder(model.encoder(x))
    assert (untied < 0).all()  # independent random filters: not the input
    assert (metrics.si_sdr(tied, x) > 5).all()  # tied: about the input (about 11 dB for 32 filters of 8 samples)
    assert 0.5 < (tied.pow(2).mean() / x.pow(2).mean()).item() < 2.0  # and at about its level


TINY = ["--per-voice", "2", "--test-per-voice", "1", "--epochs", "2", "--steps", "2", "--batch-size", "2",
        "--seconds", "0.5", "--test-mixtures", "2", "--test-seconds", "0.5", "--enc-feats", "16", "--feats", "8",
        "--hidden", "16", "--layers", "2", "--stacks", "1"]


@needs_espeak
def test_tiny_run_interrupted_and_resumed_equals_uninterrupted(tmp_path, monkeypatch):
    mixtures = _module("mixtures")
    train = _module("train")
    monkeypatch.setattr(train, "mixtures", mixtures)
    monkeypatch.setattr(mixtures, "TRAIN_VOICES", mixtures.TRAIN_VOICES[:3])
    monkeypatch.setattr(mixtures, "TEST_VOICES", mixtures.TEST_VOICES[:2])
    full = train.main(["--data", str(tmp_path / "a")] + TINY)
    assert len(full["history"]) == 2 and full["test_mixtures"] == 2
    assert math.isfinite(full["test_si_sdri_db"])
    assert (tmp_path / "a" / "results.json").exists() and (tmp_path / "a" / "sample" / "estimate2.wav").exists()
    resumed = run_interrupted_and_resumed(train, tmp_path, TINY)
    assert resumed["test_si_sdri_db"] == pytest.approx(full["test_si_sdri_db"], abs=1e-4)
    assert_same_weights(tmp_path, "convtasnet.ckpt")
