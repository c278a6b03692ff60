"""CTC decoding: best-path (greedy) and prefix beam search over emissions (batch, frames, tokens) of
log-probabilities, optionally constrained to a word lexicon (every run of tokens between word separators must
spell a lexicon word). Scores are the log of the summed probability of all alignments of a hypothesis."""
import math
import os
from dataclasses import dataclass, field

import ember

from ._lexicon import read_lexicon

__all__ = ["CTCHypothesis", "CTCDecoder", "ctc_decoder", "ctc_greedy_decode"]


def _logaddexp(a, b):
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def _check_emissions(emissions, lengths):
    if not isinstance(emissions, ember.Tensor) or emissions.dim() != 3:
        raise ValueError("emissions must be a 3-D tensor (batch, frames, num_tokens)")
    if not emissions.is_floating_point():
        raise ValueError(f"emissions must be floating point, got {emissions.dtype}")
    batch, frames = emissions.shape[0], emissions.shape[1]
    if lengths is None:
        return [frames] * batch
    lengths = [int(n) for n in lengths.tolist()] if isinstance(lengths, ember.Tensor) else [int(n) for n in lengths]
    if len(lengths) != batch:
        raise ValueError(f"lengths has {len(lengths)} entries for a batch of {batch}")
    if any(n < 0 or n > frames for n in lengths):
        raise ValueError(f"lengths must lie in [0, {frames}], got {lengths}")
    return lengths


def ctc_greedy_decode(emissions, lengths=None, blank=0):
    """Best path: the most likely token per frame, repeats merged, blanks removed. Returns a list (one per batch
    item) of token id lists."""
    lengths = _check_emissions(emissions, lengths)
    best = emissions.argmax(dim=-1).tolist()
    out = []
    for row, n in zip(best, lengths):
        tokens, prev = [], None
        for tok in row[:n]:
            if tok != prev and tok != blank:
                tokens.append(tok)
            prev = tok
        out.append(tokens)
    return out


@dataclass
class CTCHypothesis:
    tokens: list  # token ids, repeats merged and blanks removed
    words: list  # the words between separators (lexicon decoding) or an empty list
    score: float  # log of the summed probability of the hypothesis' alignments
    timesteps: list = field(default_factory=list)  # frame where each token was first emitted on its best path


@dataclass
class _Beam:
    blank: float = -math.inf  # log prob of alignments of this prefix ending in blank
    nonblank: float = -math.inf  # ... ending in the prefix's last token
    node: object = None  # lexicon trie position inside the current word
    timesteps: tuple = ()
    best: float = -math.inf  # best single contribution seen, to pick timesteps

    @property
    def total(self):
        return _logaddexp(self.blank, self.nonblank)


class CTCDecoder:
    """Prefix beam search; see `ctc_decoder` for the arguments."""

    def __init__(self, tokens, lexicon, nbest, beam_size, beam_size_token, blank_token, sil_token):
        self.tokens = list(tokens)
        index = {t: i for i, t in enumerate(self.tokens)}
        if blank_token not in index:
            raise ValueError(f"blank token {blank_token!r} is not among the tokens")
        self.blank = index[blank_token]
        self.sil = index.get(sil_token)
        if lexicon is not None and self.sil is None:
            raise ValueError(f"lexicon decoding needs the word separator {sil_token!r} among the tokens")
        self.trie = read_lexicon(lexicon, index, sil_token) if lexicon is not None else None
        if nbest < 1 or beam_size < 1:
            raise ValueError(f"nbest and beam_size must be positive, got {nbest} and {beam_size}")
        self.nbest, self.beam_size = nbest, beam_size
        self.beam_size_token = beam_size_token

    def _advance(self, node, token):
        """The trie position after `token`, or False if the lexicon forbids it."""
        if self.trie is None:
            return None
        if token == self.sil:
            return self.trie.root if node is self.trie.root or node.word is not None else False
        return node.children.get(token, False)

    def _extend(self, beams, prefix, token, t, lp, new):
        node = self._advance(beams[prefix].node, token)
        if node is False:
            return
        old = beams[prefix]
        if prefix and prefix[-1] == token:
            via = old.blank + lp  # a repeat needs a blank in between to count as a new token
        else:
            via = old.total + lp
        key = prefix + (token,)
        beam = new.setdefault(key, _Beam(node=node))
        beam.nonblank = _logaddexp(beam.nonblank, via)
        if via > beam.best:
            beam.best = via
            beam.timesteps = old.timesteps + (t,)

    def _decode_one(self, emission):
        root = self.trie.root if self.trie is not None else None
        beams = {(): _Beam(blank=0.0, node=root, best=0.0)}
        num_tokens = emission.shape[1]
        for t, row in enumerate(emission.tolist()):
            candidates = range(num_tokens)
            if self.beam_size_token is not None and self.beam_size_token < num_tokens:
                candidates = sorted(candidates, key=lambda k: -row[k])[: self.beam_size_token]
            new = {}
            for prefix, old in beams.items():
                stay = new.setdefault(prefix, _Beam(node=old.node))
                stay.blank = _logaddexp(stay.blank, old.total + row[self.blank])
                if prefix:  # the last token held for another frame
                    stay.nonblank = _logaddexp(stay.nonblank, old.nonblank + row[prefix[-1]])
                if old.best > stay.best:
                    stay.best, stay.timesteps = old.best, old.timesteps
                for token in candidates:
                    if token != self.blank:
                        self._extend(beams, prefix, token, t, row[token], new)
            beams = dict(sorted(new.items(), key=lambda kv: -kv[1].total)[: self.beam_size])
        return self._finish(beams)

    def _finish(self, beams):
        done = []
        for prefix, beam in beams.items():
            words = []
            if self.trie is not None:
                if not (beam.node is self.trie.root or beam.node.word is not None):
                    continue  # ends inside a word
                words = self._words(prefix)
            done.append(CTCHypothesis(list(prefix), words, beam.total, list(beam.timesteps)))
        done.sort(key=lambda h: -h.score)
        return done[: self.nbest]

    def _words(self, prefix):
        words, node = [], self.trie.root
        for token in prefix + (self.sil,):
            if token == self.sil:
                if node is not self.trie.root:
                    words.append(node.word)
                node = self.trie.root
            else:
                node = node.children[token]
        return words

    def __call__(self, emissions, lengths=None):
        """emissions (batch, frames, num_tokens) log-probabilities -> for each item, its nbest hypotheses."""
        lengths = _check_emissions(emissions, lengths)
        if emissions.shape[2] != len(self.tokens):
            raise ValueError(f"emissions have {emissions.shape[2]} tokens, the decoder {len(self.tokens)}")
        data = emissions.detach().to(ember.float64)
        return [self._decode_one(data[b, : lengths[b]]) for b in range(emissions.shape[0])]

    def idxs_to_tokens(self, idxs):
        return [self.tokens[int(i)] for i in idxs]


def _read_tokens(tokens):
    if isinstance(tokens, (str, os.PathLike)):
        with open(tokens, encoding="utf-8") as f:
            return [line.split()[0] for line in f if line.strip()]
    return list(tokens)


def ctc_decoder(lexicon, tokens, nbest=1, beam_size=50, beam_size_token=None, blank_token="-", sil_token="|"):
    """A CTC prefix beam-search decoder. lexicon: None (any token sequence), a dict word -> spelling or a
    lexicon file ("word t1 t2 ..." lines); tokens: the token strings in emission order (or a file, one per
    line); beam_size: prefixes kept per frame; beam_size_token: tokens tried per frame (None: all)."""
    return CTCDecoder(_read_tokens(tokens), lexicon, nbest, beam_size, beam_size_token, blank_token, sil_token)
