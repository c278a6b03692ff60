"""The text recipes, shrunk: the language-identification classifiers learn far above chance, an
interrupted-then-resumed run ends with the weights of an uninterrupted one, and the word language models
beat a unigram model on held-out text."""
import glob

import pytest
from recipes import recipe_module

import ember

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not glob.glob("/usr/share/locale/de/LC_MESSAGES/*.mo"),
                                                  reason="no gettext catalogs installed")]


def _classify(tmp_path, *extra):
    train = recipe_module("text_classification", "train", tag="_t")
    args = ["--max-per-language", "1000", "--checkpoint", str(tmp_path / "c.ckpt"), *extra]
    return train, train.train(train.parse_args(args))


def test_embeddingbag_learns_and_resumes_exactly(tmp_path):
    train, (model, accuracy) = _classify(tmp_path, "--epochs", "3")
    assert accuracy > 0.5  # 8 languages: chance is 0.125 (the full recipe reaches 94%)
    _, (_, none) = _classify(tmp_path / "r", "--epochs", "3", "--stop-after", "1")
    assert none is None
    _, (resumed, again) = _classify(tmp_path / "r", "--epochs", "3", "--resume")
    assert again == accuracy
    for a, b in zip(model.state_dict().values(), resumed.state_dict().values()):
        assert ember.equal(a, b)


def test_transformer_classifier_learns(tmp_path):
    _, (_, accuracy) = _classify(tmp_path, "--model", "transformer", "--epochs", "2")
    assert accuracy > 0.4  # chance is 0.125 (the full recipe reaches 92%)


@pytest.mark.parametrize("kind", ["lstm", "transformer"])
def test_language_models_beat_unigram(tmp_path, kind, capsys):
    train = recipe_module("language_model", "train", tag="_t")
    args = train.parse_args(["--model", kind, "--epochs", "2", "--max-train-words", "30000",
                             "--checkpoint", str(tmp_path / "lm.ckpt")])
    _, perplexity = train.train(args)
    out = capsys.readouterr().out
    unigram = float(out.split("a unigram model: ")[1].split(")")[0])
    assert perplexity < unigram
