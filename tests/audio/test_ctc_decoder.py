"""CTC decoding against brute force written here: every alignment of a short emission enumerated, collapsed
(repeats merged, blanks dropped) and its probability summed per label sequence; the beam search with a wide
beam must return exactly the most probable sequences and their log-probabilities, with a lexicon the most
probable sequences whose every word is in it."""
import itertools
import math

import numpy as np
import pytest

import ember
from emberaudio.models.decoder import ctc_decoder, ctc_greedy_decode

TOKENS = ["-", "|", "a", "b"]  # blank, word separator, letters


def _emissions(frames, seed, batch=1, sharp=1.0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(batch, frames, len(TOKENS))) * sharp
    return logits - np.log(np.exp(logits).sum(-1, keepdims=True))


def _collapse(path, blank=0):
    out, prev = [], None
    for tok in path:
        if tok != prev and tok != blank:
            out.append(tok)
        prev = tok
    return tuple(out)


def _brute_force(logp):
    totals = {}
    for path in itertools.product(range(logp.shape[1]), repeat=logp.shape[0]):
        score = sum(logp[t, k] for t, k in enumerate(path))
        key = _collapse(path)
        totals[key] = np.logaddexp(totals.get(key, -np.inf), score)
    return totals


def _words_of(seq):
    text = "".join(TOKENS[t] for t in seq)
    return [w for w in text.split("|") if w]


def test_greedy_is_the_collapsed_best_path():
    logp = _emissions(9, 0, batch=3)
    got = ctc_greedy_decode(ember.from_numpy(logp), lengths=ember.tensor([9, 6, 0]))
    for b, n in enumerate([9, 6, 0]):
        assert got[b] == list(_collapse(logp[b, :n].argmax(-1)))
    assert ctc_greedy_decode(ember.from_numpy(logp[:, :2]), blank=2)[0] == [
        t for t in _collapse(logp[0, :2].argmax(-1), blank=2)]


@pytest.mark.parametrize("seed", range(4))
def test_beam_search_equals_brute_force(seed):
    logp = _emissions(6, seed, sharp=1.5)
    truth = sorted(_brute_force(logp[0]).items(), key=lambda kv: -kv[1])
    decoder = ctc_decoder(None, TOKENS, nbest=5, beam_size=10_000)
    hyps = decoder(ember.from_numpy(logp))[0]
    assert len(hyps) == 5
    for hyp, (seq, score) in zip(hyps, truth[:5]):
        assert tuple(hyp.tokens) == seq
        assert hyp.score == pytest.approx(score, abs=1e-9)
        assert len(hyp.timesteps) == len(hyp.tokens) and hyp.timesteps == sorted(hyp.timesteps)


@pytest.mark.parametrize("seed", range(4))
def test_lexicon_beam_search_equals_filtered_brute_force(seed):
    lexicon = {"ab": "ab", "b": "b", "aab": ["a", "a", "b"]}
    logp = _emissions(7, 10 + seed, sharp=1.5)
    allowed = {"ab", "b", "aab"}
    truth = [(seq, s) for seq, s in _brute_force(logp[0]).items() if all(w in allowed for w in _words_of(seq))]
    truth.sort(key=lambda kv: -kv[1])
    hyps = ctc_decoder(lexicon, TOKENS, nbest=4, beam_size=10_000)(ember.from_numpy(logp))[0]
    assert [tuple(h.tokens) for h in hyps] == [seq for seq, _ in truth[:4]]
    for hyp, (seq, score) in zip(hyps, truth):
        assert hyp.score == pytest.approx(score, abs=1e-9)
        assert hyp.words == _words_of(seq)


def test_lexicon_file_tokens_file_and_batch_lengths(tmp_path):
    (tmp_path / "lexicon.txt").write_text("ab a b |\nb b |\n\nab a a b |\n")  # a word's first spelling wins
    (tmp_path / "tokens.txt").write_text("\n".join(TOKENS) + "\n")
    decoder = ctc_decoder(str(tmp_path / "lexicon.txt"), str(tmp_path / "tokens.txt"), nbest=1, beam_size=10_000)
    # a confident "a b | b": frames a, b, |, b
    logp = np.full((2, 5, 4), math.log(0.01 / 3))
    for t, k in enumerate([2, 3, 1, 3, 0]):
        logp[:, t, k] = math.log(0.99)
    hyps = decoder(ember.from_numpy(logp), lengths=ember.tensor([5, 2]))
    assert hyps[0][0].words == ["ab", "b"]
    assert decoder.idxs_to_tokens(hyps[0][0].tokens) == ["a", "b", "|", "b"]
    assert hyps[1][0].words == ["ab"]


def test_decoder_argument_errors():
    with pytest.raises(ValueError, match="blank token"):
        ctc_decoder(None, ["a", "b"])
    with pytest.raises(ValueError, match="word separator"):
        ctc_decoder({"a": "a"}, ["-", "a"])
    with pytest.raises(ValueError, match="not in the token set"):
        ctc_decoder({"c": "c"}, TOKENS)
    decoder = ctc_decoder(None, TOKENS)
    with pytest.raises(ValueError, match="3-D"):
        decoder(ember.zeros(5, 4))
    with pytest.raises(ValueError, match="emissions have 3 tokens"):
        decoder(ember.zeros(1, 5, 3))
    with pytest.raises(ValueError, match="lengths must lie"):
        decoder(ember.zeros(1, 5, 4), lengths=[6])
