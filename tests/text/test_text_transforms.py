"""embertext.transforms and embertext.functional on single inputs, batches and bad input."""

import numpy as np
import pytest

import ember
from embertext import functional as F
from embertext import transforms as T
from embertext.vocab import build_vocab_from_iterator


def test_to_tensor():
    assert ember.equal(F.to_tensor([1, 2, 3]), ember.tensor([1, 2, 3]))
    assert F.to_tensor([]).dtype == ember.long and F.to_tensor([]).shape == (0,)
    padded = T.ToTensor(padding_value=-1)([[1, 2, 3], [4]])
    np.testing.assert_array_equal(padded.numpy(), [[1, 2, 3], [4, -1, -1]])
    assert T.ToTensor(dtype=ember.int32)([[1], [2]]).dtype == ember.int32
    with pytest.raises(ValueError, match="padding_value"):
        F.to_tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="List\\[int\\]"):
        F.to_tensor(["a"])


def test_truncate_add_token_str_to_int():
    assert T.Truncate(2)([1, 2, 3]) == [1, 2] and T.Truncate(2)([["a", "b", "c"], ["d"]]) == [["a", "b"], ["d"]]
    assert T.AddToken(0)([5, 6]) == [0, 5, 6] and T.AddToken("</s>", begin=False)([["a"], []]) == [
        ["a", "</s>"],
        ["</s>"],
    ]
    assert T.StrToIntTransform()(["1", "22"]) == [1, 22] and F.str_to_int([["3"], ["4", "5"]]) == [[3], [4, 5]]
    with pytest.raises(TypeError, match="add_token"):
        F.add_token([1, 2], "x")
    with pytest.raises(ValueError, match="non-negative"):
        F.truncate([1], -1)
    with pytest.raises(TypeError, match="truncate"):
        F.truncate("abc", 2)


def test_pad_transform():
    x = ember.tensor([[1, 2], [3, 4]])
    np.testing.assert_array_equal(T.PadTransform(4, 0)(x).numpy(), [[1, 2, 0, 0], [3, 4, 0, 0]])
    assert T.PadTransform(1, 0)(x).shape == (2, 2)


def test_vocab_transform_and_label_to_index(tmp_path):
    v = build_vocab_from_iterator([["a", "b", "b"]], specials=["<unk>"])
    v.set_default_index(0)
    vt = T.VocabTransform(v)
    assert vt(["b", "a", "zz"]) == [1, 2, 0] and vt([["a"], ["b"]]) == [[2], [1]]
    with pytest.raises(TypeError, match="Vocab"):
        T.VocabTransform({"a": 1})
    labels = T.LabelToIndex(["pos", "neg"], sort_names=True)
    assert labels("pos") == 1 and labels(["neg", "pos"]) == [0, 1] and labels.label_names == ["neg", "pos"]
    path = tmp_path / "labels.txt"
    path.write_text("x\ny\n")
    assert T.LabelToIndex(label_path=str(path))("y") == 1
    with pytest.raises(ValueError, match="mutually exclusive"):
        T.LabelToIndex(["a"], str(path))
    with pytest.raises(ValueError, match="required"):
        T.LabelToIndex()
    with pytest.raises(RuntimeError, match="not found"):
        labels("maybe")


def test_sequential_pipeline_and_regex_tokenizer():
    v = build_vocab_from_iterator([["hello", "world", "hello"]], specials=["<pad>", "<unk>"])
    v.set_default_index(1)
    pipeline = T.Sequential(
        T.RegexTokenizer([(r"[!?.]", " "), (r"\s+", " ")]),
        T.VocabTransform(v),
        T.Truncate(3),
        T.AddToken(0, begin=False),
        T.ToTensor(),
    )
    assert pipeline("Hello! world? hello.".lower()).tolist() == [2, 3, 2, 0]
    assert T.RegexTokenizer([("a", "b")])("a  cat") == ["b", "cbt"]
