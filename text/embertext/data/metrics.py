import collections
import math
from typing import Counter, List, Sequence


def _ngram_counter(tokens: Sequence[str], max_n: int) -> Counter:
    counter: Counter = collections.Counter()
    for n in range(1, max_n + 1):
        for i in range(len(tokens) - n + 1):
            counter[tuple(tokens[i : i + n])] += 1
    return counter


def bleu_score(
    candidate_corpus: List[List[str]],
    references_corpus: List[List[List[str]]],
    max_n: int = 4,
    weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
) -> float:
    """Corpus-level BLEU (Papineni et al.): clipped n-gram precisions up to `max_n` combined with `weights`
    in log space, times the brevity penalty against the reference lengths closest to each candidate's
    (the shorter one on a tie, as NLTK's corpus_bleu). 0.0 when some order has no match. As torchtext's, a
    candidate shorter than n adds no n-grams to the order-n denominator (NLTK's counts at least one)."""
    if max_n != len(weights):
        raise ValueError(f"bleu_score: the length of weights ({len(weights)}) must equal max_n ({max_n})")
    if len(candidate_corpus) != len(references_corpus):
        raise ValueError(
            f"bleu_score: {len(candidate_corpus)} candidates but {len(references_corpus)} reference lists; "
            "they must be of the same length"
        )
    clipped = [0] * max_n
    totals = [0] * max_n
    candidate_len = 0
    refs_len = 0
    for candidate, refs in zip(candidate_corpus, references_corpus):
        if not refs:
            raise ValueError("bleu_score: every candidate needs at least one reference")
        length = len(candidate)
        candidate_len += length
        refs_len += min((len(r) for r in refs), key=lambda r: (abs(length - r), r))
        reference_counts: Counter = collections.Counter()
        for ref in refs:
            reference_counts |= _ngram_counter(ref, max_n)
        for ngram, count in (_ngram_counter(candidate, max_n) & reference_counts).items():
            clipped[len(ngram) - 1] += count
        for i in range(max_n):
            totals[i] += max(length - i, 0)
    if min(clipped) == 0:
        return 0.0
    log_precision = sum(w * math.log(c / t) for w, c, t in zip(weights, clipped, totals))
    brevity = math.exp(min(1 - refs_len / candidate_len, 0))
    return brevity * math.exp(log_precision)
