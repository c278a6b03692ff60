"""Vocab ordering as torchtext defines it, with the expected orders written out: build_vocab_from_iterator
sorts by descending frequency and breaks ties lexicographically (by code point); vocab() keeps the dict's
insertion order, so vocab(OrderedDict(Counter(tokens).most_common())) gives "frequency, then first
appearance"; specials, min_freq and max_tokens act where torchtext's do."""

from collections import Counter, OrderedDict

import pytest

from embertext.vocab import build_vocab_from_iterator, vocab

# b and a twice (b first), then Z, c and the special-looking <unk> once each, in this order of appearance
TOKENS = ["b", "a", "Z", "b", "c", "a", "<unk>"]


def test_build_vocab_ties_are_lexicographic_not_first_appearance():
    assert build_vocab_from_iterator([TOKENS]).get_itos() == ["a", "b", "<unk>", "Z", "c"]
    assert build_vocab_from_iterator([TOKENS[:3], TOKENS[3:]]).get_itos() == ["a", "b", "<unk>", "Z", "c"]


def test_most_common_gives_frequency_then_first_appearance():
    v = vocab(OrderedDict(Counter(TOKENS).most_common()))
    assert v.get_itos() == ["b", "a", "Z", "c", "<unk>"]
    v = vocab(OrderedDict(Counter(TOKENS).most_common()), specials=["<pad>", "<unk>"])
    assert v.get_itos() == ["<pad>", "<unk>", "b", "a", "Z", "c"]


def test_vocab_keeps_insertion_order_and_applies_min_freq():
    counts = {"z": 1, "y": 3, "x": 2, "w": 0}
    assert vocab(dict(counts)).get_itos() == ["z", "y", "x"]
    assert vocab(dict(counts), min_freq=2).get_itos() == ["y", "x"]
    assert vocab(dict(counts), min_freq=0).get_itos() == ["z", "y", "x", "w"]  # torchtext keeps freq >= min_freq
    assert vocab(dict(counts), specials=["<s>"], special_first=False).get_itos() == ["z", "y", "x", "<s>"]


def test_vocab_pops_the_specials_from_the_dict_as_torchtext():
    d = OrderedDict([("a", 2), ("<unk>", 5), ("b", 1)])
    assert vocab(d, specials=["<unk>"]).get_itos() == ["<unk>", "a", "b"]
    assert list(d) == ["a", "b"]


def test_specials_and_max_tokens():
    v = build_vocab_from_iterator([TOKENS], specials=["<unk>", "<pad>"])
    assert v.get_itos() == ["<unk>", "<pad>", "a", "b", "Z", "c"]  # <unk> counted once, placed as a special
    v = build_vocab_from_iterator([TOKENS], specials=["<pad>"], special_first=False, max_tokens=3)
    assert v.get_itos() == ["a", "b", "<pad>"]
    # max_tokens cuts the sorted counts before specials are removed: <unk> takes the third slot, then goes
    v = build_vocab_from_iterator([TOKENS], specials=["<unk>"], max_tokens=4)
    assert v.get_itos() == ["<unk>", "a", "b"]
    v = build_vocab_from_iterator([TOKENS], min_freq=2, max_tokens=4)
    assert v.get_itos() == ["a", "b"]
    with pytest.raises(AssertionError, match="entirely special tokens"):
        build_vocab_from_iterator([TOKENS], specials=["<unk>"], max_tokens=1)
    with pytest.raises(RuntimeError, match="Duplicate token found in tokens list: <unk>"):
        build_vocab_from_iterator([TOKENS], specials=["<unk>", "<unk>"])
