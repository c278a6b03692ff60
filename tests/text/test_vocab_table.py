"""Vocab's hash table (text/csrc/token_table.h) and its batched Python lookup, against a dict built in the
test: tokens around the 15 bytes a slot holds inline, tokens that differ only past them or only in length,
non-ASCII text, growth by append_token across table sizes, insert_token shifting indices, batches longer
than a lookup block, and errors raised in the order of the tokens."""
import random

import pytest

from embertext.vocab import vocab as make_vocab

SLOT_BYTES = 15  # token_table.h's kHead


def _tricky_tokens():
    base = "x" * SLOT_BYTES
    tokens = ["", "a", "ab", "ab\0", "\0", base, base + "y", base + "z", base + "yy", "q" + base, base[:-1],
              "é", "e\u0301", "日本語", "日本語テキスト" * 3, "🙂", "a" * 255, "a" * 256, "a" * 300]
    tokens += [f"{base}{i:04d}" for i in range(50)]  # equal slot heads, different tails
    return list(dict.fromkeys(tokens))


def test_lookups_match_a_dict_on_tricky_tokens():
    tokens = _tricky_tokens()
    v = make_vocab({t: 1 for t in tokens})
    stoi = {t: i for i, t in enumerate(tokens)}
    for t in tokens:
        assert v[t] == stoi[t] and t in v
    absent = ["abc", "x" * (SLOT_BYTES + 1), "x" * SLOT_BYTES + "w", "a" * 254, "a" * 257, "ab\0\0", "e", "日本"]
    for t in absent:
        assert t not in v
    v.set_default_index(1)
    query = tokens + absent
    random.Random(0).shuffle(query)
    assert v(query) == [stoi.get(t, 1) for t in query]
    assert v.lookup_indices(tuple(query)) == [stoi.get(t, 1) for t in query]


def test_fresh_str_objects_are_found():
    tokens = [f"word{i}" for i in range(1000)]
    v = make_vocab({t: 1 for t in tokens})
    rebuilt = ["".join(list(t)) for t in tokens]  # equal strs that are other objects, hash not yet computed
    assert v(rebuilt) == list(range(1000))


def test_append_grows_the_table_between_lookups():
    v = make_vocab({"<unk>": 1})
    v.set_default_index(0)
    expected = {"<unk>": 0}
    rng = random.Random(1)
    for i in range(3000):  # several doublings of the table, with lookups (and their cached ints) in between
        token = f"t{rng.randrange(10**9)}-{i}"
        v.append_token(token)
        expected[token] = i + 1
        if i % 97 == 0:
            query = rng.sample(list(expected), min(50, len(expected))) + ["missing"]
            assert v(query) == [expected.get(t, 0) for t in query]
    assert v(list(expected)) == list(expected.values())
    assert len(v) == 3001 and v.get_itos() == list(expected)


def test_insert_shifts_later_indices():
    v = make_vocab({t: 1 for t in ["a", "b", "c", "d"]})
    assert v(["a", "b", "c", "d"]) == [0, 1, 2, 3]
    v.insert_token("z" * 40, 1)
    assert v(["a", "z" * 40, "b", "c", "d"]) == [0, 1, 2, 3, 4]
    v.append_token("e")
    assert v(["e", "d", "a"]) == [5, 4, 0]
    assert v.get_stoi() == {"a": 0, "z" * 40: 1, "b": 2, "c": 3, "d": 4, "e": 5}


def test_long_batches_with_a_default_index():
    words = [f"w{i}" for i in range(5000)]
    v = make_vocab({w: 1 for w in words})
    v.set_default_index(7)
    rng = random.Random(2)
    query = [rng.choice(words) if rng.random() < 0.9 else f"oov{i}" for i in range(10_007)]
    index = {w: i for i, w in enumerate(words)}
    assert v(query) == [index.get(t, 7) for t in query]


def test_errors_follow_the_order_of_the_tokens():
    v = make_vocab({t: 1 for t in ["a", "b"]})
    prefix = ["a"] * 40  # past one lookup block
    with pytest.raises(RuntimeError, match="Token cow not found and default index is not set"):
        v(prefix + ["b", "cow", 5, "a"])
    with pytest.raises(TypeError, match="int"):
        v(prefix + ["b", 5, "cow"])
    with pytest.raises(UnicodeEncodeError):
        v(prefix + ["\ud800", "cow"])
    with pytest.raises(RuntimeError, match="Token cow not found"):
        v(["cow", "\ud800"])
    v.set_default_index(0)
    assert v(prefix + ["cow"]) == [0] * 41
    with pytest.raises(TypeError):
        v(prefix + [None])


def test_str_subclass_and_non_list_sequences():
    class Word(str):
        pass

    class Tokens:  # a sequence that is neither a list nor a tuple
        def __init__(self, items):
            self.items = items

        def __len__(self):
            return len(self.items)

        def __getitem__(self, i):
            return self.items[i]

    v = make_vocab({t: 1 for t in ["a", "b", "c"]})
    assert v([Word("c"), Word("a")]) == [2, 0]
    assert v.lookup_indices(Tokens(["b", "c", "a"])) == [1, 2, 0]
    assert v(["c"] * 100) == [2] * 100
