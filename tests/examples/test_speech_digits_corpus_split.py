"""The speech recipe's held-out split (examples/speech_digits/corpus.py): held-out sentences are new combinations
of trained words, so every word of a test sentence is still spoken in training, fixed commands are never held
out, and the split holds out about an eighth of the digit sentences. Pure Python: no espeak-ng needed."""
import random
from collections import Counter

from recipes import recipe_module


def _jobs(corpus, per_voice, seed):
    rng = random.Random(seed)
    return [(voice, corpus._sentence(rng)) for voice in corpus.TRAIN_VOICES for _ in range(per_voice)]


def test_every_held_out_word_is_spoken_in_training():
    corpus = recipe_module("speech_digits", "corpus")
    for per_voice, seed in ((3, 0), (6, 1), (100, 2)):
        jobs = _jobs(corpus, per_voice, seed)
        held = corpus._held_out_sentences(jobs, random.Random(seed))
        assert held
        trained_words = {w for _, t in jobs if t not in held for w in t.split()}
        for text in held:
            assert set(text.split()) <= trained_words, text
            assert any(w in corpus.DIGITS for w in text.split())  # "open the door" and the like stay in training


def test_held_out_fraction_is_about_an_eighth_of_digit_sentences():
    corpus = recipe_module("speech_digits", "corpus")
    jobs = _jobs(corpus, 100, 0)
    held = corpus._held_out_sentences(jobs, random.Random(0))
    digit_texts = {t for _, t in jobs if any(w in corpus.DIGITS for w in t.split())}
    assert len(held) == len(digit_texts) // 8
    assert sum(Counter(t for _, t in jobs)[t] for t in held) < len(jobs) // 4  # no sentence dominates the test set
