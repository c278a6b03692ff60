from collections import Counter, OrderedDict
from typing import Dict, Iterable, List, Optional

from .. import _C
from ._vocab import Vocab


def vocab(
    ordered_dict: Dict, min_freq: int = 1, specials: Optional[List[str]] = None, special_first: bool = True
) -> Vocab:
    """A `Vocab` of `ordered_dict`'s tokens (token -> frequency) in its order, keeping those seen at least
    `min_freq` times, with `specials` put first (or last) whatever their frequency."""
    if min_freq < 1:
        raise ValueError(f"vocab: min_freq must be at least 1, got {min_freq}")
    specials = list(specials or [])
    ordered_dict = OrderedDict(ordered_dict)
    for token in specials:
        ordered_dict.pop(token, None)
    tokens = [token for token, freq in ordered_dict.items() if freq >= min_freq]
    tokens = specials + tokens if special_first else tokens + specials
    return Vocab(_C.Vocab(tokens))


def build_vocab_from_iterator(
    iterator: Iterable,
    min_freq: int = 1,
    specials: Optional[List[str]] = None,
    special_first: bool = True,
    max_tokens: Optional[int] = None,
) -> Vocab:
    """A `Vocab` of the tokens the iterator yields (lists of tokens), most frequent first and ties in
    lexicographic order (as torchtext's), at most `max_tokens` of them counting the specials."""
    counter: Counter = Counter()
    for tokens in iterator:
        counter.update(tokens)
    specials = list(specials or [])
    by_frequency = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    if max_tokens is not None:
        if len(specials) >= max_tokens:
            raise ValueError("len(specials) >= max_tokens, so the vocab will be entirely special tokens.")
        by_frequency = by_frequency[: max_tokens - len(specials)]
    return vocab(OrderedDict(by_frequency), min_freq=min_freq, specials=specials, special_first=special_first)
