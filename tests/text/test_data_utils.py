"""get_tokenizer, ngrams_iterator, to_map_style_dataset, custom_replace, numericalize; bleu_score
against NLTK's corpus_bleu."""

import math

import pytest

from embertext.data import (
    bleu_score,
    custom_replace,
    get_tokenizer,
    ngrams_iterator,
    numericalize_tokens_from_iterator,
    simple_space_split,
    to_map_style_dataset,
)
from embertext.vocab import build_vocab_from_iterator


def test_basic_english_written_out():
    tok = get_tokenizer("basic_english")
    assert tok('You can\'t "stop" it.<br />Really,(no)! Why? a;b:c') == [
        "you",
        "can",
        "'",
        "t",
        "stop",
        "it",
        ".",
        "really",
        ",",
        "(",
        "no",
        ")",
        "!",
        "why",
        "?",
        "a",
        "b",
        "c",
    ]
    assert get_tokenizer(None)(" a  b\tc ") == ["a", "b", "c"]
    assert get_tokenizer(str.upper) is str.upper
    with pytest.raises(ValueError, match="English"):
        get_tokenizer("basic_english", language="de")
    with pytest.raises(ValueError, match="valid choices"):
        get_tokenizer("nonsense")


def test_toktok_through_nltk():
    pytest.importorskip("nltk")
    from nltk.tokenize.toktok import ToktokTokenizer

    text = "Hello, world! It costs $3.50."
    assert get_tokenizer("toktok")(text) == ToktokTokenizer().tokenize(text)


def test_ngrams_and_iterators():
    assert list(ngrams_iterator(["a", "b", "c"], 3)) == ["a", "b", "c", "a b", "b c", "a b c"]
    assert list(ngrams_iterator(["a"], 2)) == ["a"]
    with pytest.raises(ValueError):
        list(ngrams_iterator(["a"], 0))
    assert list(custom_replace([(r"\d", "#"), ("#+", "N")])(["a12b", "c"])) == ["aNb", "c"]
    assert list(simple_space_split(["a b  c"])) == [["a", "b", "c"]]
    v = build_vocab_from_iterator([["x", "y", "y"]])
    assert [list(ids) for ids in numericalize_tokens_from_iterator(v, [["y", "x", "y"]], removed_tokens=["x"])] == [
        [0, 0]
    ]
    ds = to_map_style_dataset(iter([(1, "a"), (2, "b")]))
    assert len(ds) == 2 and ds[1] == (2, "b")


# Candidates of at least max_n tokens: NLTK counts at least one n-gram in a shorter candidate's
# denominator where torchtext counts none (see test_bleu_torchtext_documented_example).
CASES = [
    (
        [["the", "cat", "is", "on", "the", "mat"]],
        [[["the", "cat", "is", "on", "the", "mat", "today"], ["there", "is", "a", "cat", "on", "the", "mat"]]],
    ),
    (
        [["a", "b", "c", "d", "e", "f", "g"], ["x", "y", "z", "w"]],
        [[["a", "b", "c", "d", "e", "f", "g", "h"]], [["x", "y", "z", "w", "v"], ["x", "y", "z"]]],
    ),
]


@pytest.mark.parametrize("candidates,references", CASES)
def test_bleu_equals_nltk(candidates, references):
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
    expected = nltk_bleu.corpus_bleu(references, candidates)
    assert math.isclose(bleu_score(candidates, references), expected, rel_tol=1e-9, abs_tol=1e-12)
    weights = (0.5, 0.5)
    assert math.isclose(
        bleu_score(candidates, references, max_n=2, weights=weights),
        nltk_bleu.corpus_bleu(references, candidates, weights=weights),
        rel_tol=1e-9,
        abs_tol=1e-12,
    )


def test_bleu_torchtext_documented_example():
    candidates = [["My", "full", "pytorch", "test"], ["Another", "Sentence"]]
    references = [[["My", "full", "pytorch", "test"], ["Completely", "Different"]], [["No", "Match"]]]
    assert math.isclose(bleu_score(candidates, references), 0.8408964152537145, rel_tol=1e-12)  # 2 ** -0.25


def test_bleu_errors():
    with pytest.raises(ValueError, match="max_n"):
        bleu_score([["a"]], [[["a"]]], max_n=2)
    with pytest.raises(ValueError, match="same length"):
        bleu_score([["a"]], [])
