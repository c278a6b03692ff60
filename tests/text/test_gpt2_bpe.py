"""GPT-2's byte-level BPE against Hugging Face tokenizers and tiktoken on the same vocabulary."""

import pytest
from text_samples import SAMPLE

import embertext
from embertext.transforms import GPT2BPETokenizer

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _byte_of_char():
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars, extra = list(printable), 0
    order = list(printable)
    for b in range(256):
        if b not in printable:
            order.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(order, chars)}


def texts(corpus):
    return [SAMPLE, "", " ", "a", "  \n", *corpus[:8]]


def test_ids_equal_hugging_face(gpt2_files, corpus):
    enc, merges, hf = gpt2_files
    tok = GPT2BPETokenizer(enc, merges)
    for text in texts(corpus):
        assert [int(i) for i in tok(text)] == hf.encode(text).ids


def test_ids_equal_tiktoken(gpt2_files, gpt2_encoder, corpus):
    tiktoken = pytest.importorskip("tiktoken")
    inverse = _byte_of_char()
    ranks = {bytes(inverse[c] for c in token): i for token, i in gpt2_encoder.items()}
    reference = tiktoken.Encoding("test-gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    tok = GPT2BPETokenizer(*gpt2_files[:2])
    for text in texts(corpus):
        assert tok.encode(text) == reference.encode(text, disallowed_special=())


def test_pretokenization_equals_gpt2_pattern():
    regex = pytest.importorskip("regex")
    for text in [SAMPLE, "a  b", "x \n y", "  ", "'ll 'LL''s 1a2", "end\n"]:
        assert embertext._C.GPT2BPEEncoder.pretokenize(text) == regex.findall(GPT2_PATTERN, text)


def test_tokens_batch_and_decode(gpt2_files, corpus):
    enc, merges, hf = gpt2_files
    tok = GPT2BPETokenizer(enc, merges, return_tokens=True)
    assert tok(SAMPLE) == hf.encode(SAMPLE).tokens
    batch = texts(corpus)
    ids = GPT2BPETokenizer(enc, merges)(batch)
    assert ids == [[str(i) for i in hf.encode(t).ids] for t in batch]
    assert [tok.decode(x) for x in ids] == batch


def test_bad_input_and_files(gpt2_files, tmp_path):
    enc, merges, _ = gpt2_files
    tok = GPT2BPETokenizer(enc, merges)
    with pytest.raises(TypeError, match="str or List\\[str\\]"):
        tok(3)
    with pytest.raises(FileNotFoundError, match="nope.json"):
        GPT2BPETokenizer(str(tmp_path / "nope.json"), merges)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        GPT2BPETokenizer(str(bad), merges)
    bad_merges = tmp_path / "merges.txt"
    bad_merges.write_text("#version: 0.2\na b c\n")
    with pytest.raises(ValueError, match="line 2"):
        GPT2BPETokenizer(enc, str(bad_merges))
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no UTF-8 form
        tok("a\ud800b")


def test_pickles(gpt2_files):
    import pickle

    tok = GPT2BPETokenizer(*gpt2_files[:2])
    assert pickle.loads(pickle.dumps(tok))(SAMPLE) == tok(SAMPLE)
