"""Reference tokenizer files for embertext's tests, trained once per session with Hugging Face's
`tokenizers` on real text this machine has (the Python standard library's sources), since the published
GPT-2/BERT vocabularies cannot be downloaded here."""

import json

import pytest
from text_samples import stdlib_texts


@pytest.fixture(scope="session")
def corpus():
    return stdlib_texts()


@pytest.fixture(scope="session")
def gpt2_files(tmp_path_factory, corpus):
    """(encoder.json, vocab.bpe, the trained HF tokenizer) of a byte-level BPE of 2000 tokens."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    tok.train_from_iterator(corpus, vocab_size=2000, show_progress=False)
    d = tmp_path_factory.mktemp("gpt2")
    tok.save_model(str(d))
    return str(d / "vocab.json"), str(d / "merges.txt"), tok


@pytest.fixture(scope="session")
def gpt2_encoder(gpt2_files):
    with open(gpt2_files[0], encoding="utf-8") as f:
        return json.load(f)
