"""The speech recognition recipe (examples/speech_digits): word error counting against hand-worked cases, the
espeak-ng corpus (generated once, cached), and a tiny run interrupted after one epoch and resumed, which must end
with the weights of an uninterrupted run."""
import os
import shutil

import numpy as np
import pytest

import ember
from recipes import recipe_module

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed (make setup)")


def _module(name):
    return recipe_module("speech_digits", name)


def test_word_errors_hand_worked():
    word_errors = _module("report").word_errors
    assert word_errors("dial one two".split(), "dial one two".split()) == 0
    assert word_errors("dial one two".split(), "dial one three".split()) == 1  # substitution
    assert word_errors("dial one two".split(), "dial two".split()) == 1  # deletion
    assert word_errors("one two".split(), "one one two two".split()) == 2  # insertions
    assert word_errors([], "a b".split()) == 2 and word_errors("a b c".split(), []) == 3
    assert word_errors("a b c d".split(), "b c d a".split()) == 2


def test_tokens_round_trip():
    corpus = _module("corpus")
    assert corpus.TOKENS[0] == "-" and "seven" in corpus.TOKENS and "minutes" in corpus.TOKENS
    text = "set timer for seven minutes"
    assert corpus.decode(corpus.encode(text)) == text.split()


@needs_espeak
def test_corpus_generated_once_with_held_out_sentences(tmp_path, monkeypatch):
    corpus = _module("corpus")
    monkeypatch.setattr(corpus, "TRAIN_VOICES", corpus.TRAIN_VOICES[:3])
    rows = corpus.generate(str(tmp_path), per_voice=6, unseen=2, seed=1)
    assert len(rows) == 3 * 6 + 2
    assert {r[3] for r in rows if r[2] == corpus.UNSEEN_VOICE} == {"unseen"}
    train_texts = {r[1] for r in rows if r[3] == "train"}
    assert not train_texts & {r[1] for r in rows if r[3] == "test"}  # held-out sentences never trained on
    first = tmp_path / rows[0][0]
    stamp = os.path.getmtime(first)
    assert corpus.generate(str(tmp_path), per_voice=6, unseen=2, seed=1) == rows  # cached: nothing rewritten
    assert os.path.getmtime(first) == stamp
    import soundfile as sf
    info = sf.info(str(first))
    assert info.samplerate == corpus.SAMPLE_RATE and info.frames > 0.3 * info.samplerate


@needs_espeak
def test_interrupted_and_resumed_run_equals_uninterrupted(tmp_path, monkeypatch):
    train = _module("train")
    corpus = train.corpus  # the module train.py imported (by plain name), not a second copy
    monkeypatch.setattr(corpus, "TRAIN_VOICES", corpus.TRAIN_VOICES[:2])
    args = ["--per-voice", "4", "--epochs", "2", "--batch-size", "4", "--channels", "16", "--hidden", "32"]
    full = train.main(["--data", str(tmp_path / "a")] + args)
    assert len(full["history"]) == 2 and (tmp_path / "a" / "wer.svg").exists()
    assert 0 <= full["unseen_voice_wer_greedy"]
    shutil.copytree(tmp_path / "a" / "corpus", tmp_path / "b" / "corpus")  # same corpus and features
    first = train.main(["--data", str(tmp_path / "b"), "--stop-after", "1"] + args)
    assert len(first) == 1
    resumed = train.main(["--data", str(tmp_path / "b"), "--resume"] + args)
    assert [h["loss"] for h in resumed["history"]] == pytest.approx([h["loss"] for h in full["history"]], rel=1e-5)
    a = ember.load(tmp_path / "a" / "wav2letter.ckpt")["model"]
    b = ember.load(tmp_path / "b" / "wav2letter.ckpt")["model"]
    for key in a:
        np.testing.assert_allclose(a[key].numpy(), b[key].numpy(), rtol=1e-5, atol=1e-6, err_msg=key)
