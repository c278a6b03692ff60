"""BERT's tokenizer against Hugging Face's BertWordPieceTokenizer on the same vocabulary, for each
lowercase/strip_accents setting."""

import pytest
from text_samples import SAMPLE

from embertext.transforms import BERTTokenizer

tokenizers = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module", params=[(True, None), (True, False), (False, None), (False, True)])
def trained(request, corpus, tmp_path_factory):
    lower, strip = request.param
    hf = tokenizers.BertWordPieceTokenizer(lowercase=lower, strip_accents=strip)
    hf.train_from_iterator(corpus + [SAMPLE], vocab_size=3000, show_progress=False)
    d = tmp_path_factory.mktemp("bert")
    hf.save_model(str(d))
    return str(d / "vocab.txt"), lower, strip, hf


def test_ids_and_tokens_equal_hugging_face(trained, corpus):
    path, lower, strip, hf = trained
    ids = BERTTokenizer(path, do_lower_case=lower, strip_accents=strip)
    tokens = BERTTokenizer(path, do_lower_case=lower, strip_accents=strip, return_tokens=True)
    for text in [SAMPLE, "", "   ", "a" * 150 + " b", *corpus[:6]]:
        expected = hf.encode(text, add_special_tokens=False)
        assert [int(i) for i in ids(text)] == expected.ids
        assert tokens(text) == expected.tokens


def test_batch_equals_one_by_one(trained, corpus):
    path, lower, strip, _ = trained
    tok = BERTTokenizer(path, do_lower_case=lower, strip_accents=strip)
    batch = [SAMPLE, *corpus[:6], ""]
    assert tok(batch) == [tok(t) for t in batch]


def test_never_split_and_unknown(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "hello", "##lo", "hel", ",", "world"]) + "\n")
    tok = BERTTokenizer(str(vocab), return_tokens=True, never_split=["[CLS]"])
    assert tok("[CLS] Hello, WORLD zzz") == ["[CLS]", "hello", ",", "world", "[UNK]"]
    assert BERTTokenizer(str(vocab), return_tokens=True)("[CLS]") == ["[UNK]", "[UNK]", "[UNK]"]


def test_bad_input(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    with pytest.raises(ValueError, match="\\[UNK\\]"):
        BERTTokenizer(str(vocab))
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        BERTTokenizer(str(tmp_path / "missing.txt"))
    vocab.write_text("[UNK]\na\n")
    with pytest.raises(TypeError, match="str or List\\[str\\]"):
        BERTTokenizer(str(vocab))([1, 2])
