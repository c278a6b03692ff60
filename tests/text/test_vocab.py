"""Vocab semantics written out as torchtext documents them: frequency order with lexicographic ties,
specials, min_freq, max_tokens, default index, OOV errors, insertion and pickling."""

import pickle
from collections import OrderedDict

import pytest

import ember
from embertext.vocab import Vocab, build_vocab_from_iterator, vocab

LINES = [["the", "cat", "sat"], ["the", "dog", "sat", "on", "the", "mat"], ["a", "cat"]]


def test_build_orders_by_frequency_then_token():
    v = build_vocab_from_iterator(LINES)
    assert v.get_itos() == ["the", "cat", "sat", "a", "dog", "mat", "on"]
    assert v.get_stoi() == {t: i for i, t in enumerate(v.get_itos())}
    assert len(v) == 7 and "dog" in v and "cow" not in v


def test_specials_min_freq_max_tokens():
    v = build_vocab_from_iterator(LINES, specials=["<unk>", "<pad>"], min_freq=2)
    assert v.get_itos() == ["<unk>", "<pad>", "the", "cat", "sat"]
    v = build_vocab_from_iterator(LINES, specials=["<unk>"], special_first=False, max_tokens=3)
    assert v.get_itos() == ["the", "cat", "<unk>"]
    with pytest.raises(AssertionError, match="max_tokens"):
        build_vocab_from_iterator(LINES, specials=["<unk>", "<pad>"], max_tokens=2)


def test_vocab_keeps_dict_order_and_pops_specials():
    v = vocab(OrderedDict([("z", 3), ("<unk>", 9), ("y", 1), ("x", 5)]), min_freq=2, specials=["<unk>"])
    assert v.get_itos() == ["<unk>", "z", "x"]
    with pytest.raises(RuntimeError, match="Duplicate token"):
        Vocab(__import__("embertext")._C.Vocab(["a", "a"]))


def test_lookup_default_index_and_errors():
    v = build_vocab_from_iterator(LINES, specials=["<unk>"])
    with pytest.raises(RuntimeError, match="Token cow not found and default index is not set"):
        v["cow"]
    with pytest.raises(RuntimeError, match="not found"):
        v(["the", "cow"])
    assert v.get_default_index() is None
    v.set_default_index(v["<unk>"])
    assert v.get_default_index() == 0
    assert v(["the", "cow"]) == [1, 0] and v.lookup_indices(["cat"]) == [2]
    assert v.lookup_token(1) == "the" and v.lookup_tokens([1, 2]) == ["the", "cat"]
    with pytest.raises(RuntimeError, match="Specified index 99 is out of bounds"):
        v.lookup_token(99)
    with pytest.raises(TypeError):
        v.set_default_index("0")
    with pytest.raises(TypeError, match="list of tokens, got a str"):
        v("the")


def test_insert_and_append():
    v = build_vocab_from_iterator(LINES)
    v.insert_token("<bos>", 0)
    assert v.get_itos()[:2] == ["<bos>", "the"] and v["the"] == 1 and v["on"] == 7
    v.append_token("zebra")
    assert v["zebra"] == len(v) - 1
    with pytest.raises(RuntimeError, match="already exists"):
        v.append_token("the")
    with pytest.raises(RuntimeError, match="out of bounds"):
        v.insert_token("q", 100)


def test_pickle_and_save(tmp_path):
    v = build_vocab_from_iterator(LINES, specials=["<unk>"])
    v.set_default_index(0)
    w = pickle.loads(pickle.dumps(v))
    assert w.get_itos() == v.get_itos() and w["nope"] == 0
    ember.save(v, tmp_path / "v.pt")
    u = ember.load(tmp_path / "v.pt", weights_only=False)
    assert u.get_itos() == v.get_itos() and u.get_default_index() == 0
