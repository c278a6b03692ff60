from collections import Counter, OrderedDict
from typing import Dict, Iterable, List, Optional

from .. import _C
from ._vocab import Vocab


def vocab(
    ordered_dict: Dict, min_freq: int = 1, specials: Optional[List[str]] = None, special_first: bool = True
) -> Vocab:
    """A `Vocab` of `ordered_dict`'s tokens (token -> frequency) in its insertion order, keeping those seen at
    least `min_freq` times, with `specials` put first (or last) whatever their frequency. As torchtext's, the
    specials are popped from `ordered_dict` itself. For "most frequent first, ties in order of first appearance",
    pass `OrderedDict(Counter(tokens).most_common())` (most_common keeps insertion order among equal counts)."""
    specials = list(specials or [])
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
    lexicographic order (as torchtext's, not in order of first appearance), the `max_tokens - len(specials)`
    most frequent ones when `max_tokens` is given (cut before the specials and `min_freq` are applied)."""
    counter: Counter = Counter()
    for tokens in iterator:
        counter.update(tokens)
    specials = list(specials or [])
    by_frequency = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    if max_tokens is not None:
        if len(specials) >= max_tokens:  # torchtext asserts this
            raise AssertionError("len(specials) >= max_tokens, so the vocab will be entirely special tokens.")
        by_frequency = by_frequency[: max_tokens - len(specials)]
    return vocab(OrderedDict(by_frequency), min_freq=min_freq, specials=specials, special_first=special_first)
