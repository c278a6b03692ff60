"""bleu_score against NLTK's corpus_bleu on many random corpora (issue 26's audit: the suite had two
cases): repeated words (clipped counts), one to three references of other lengths (the closest length
sets the brevity penalty), max_n 1-4. Candidates have at least 4 tokens, where NLTK and torchtext count
the same n-grams (see test_data_utils.py for the shorter ones)."""
import math
import random
import warnings

import pytest

from embertext.data import bleu_score


def test_bleu_equals_nltk_on_random_corpora():
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
    rng = random.Random(0)
    words = "a b c d e f".split()
    for _ in range(150):
        n = rng.randint(1, 5)
        candidates = [[rng.choice(words) for _ in range(rng.randint(4, 12))] for _ in range(n)]
        references = [[[rng.choice(words) for _ in range(rng.randint(2, 14))] for _ in range(rng.randint(1, 3))]
                      for _ in range(n)]
        for max_n in (1, 2, 3, 4):
            weights = [1.0 / max_n] * max_n
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # NLTK warns when some order has no overlap (the score is 0)
                expected = nltk_bleu.corpus_bleu(references, candidates, weights=weights)
            got = bleu_score(candidates, references, max_n=max_n, weights=weights)
            assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12), (candidates, references, max_n)
