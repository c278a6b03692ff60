"""Reference tokenizer files for embertext's tests, trained once per session with Hugging Face's
`tokenizers` on real text this machine has (the Python standard library's sources), since the published
GPT-2/BERT vocabularies cannot be downloaded here."""

import glob
import json
import os
import sysconfig

import pytest

# Varied text: accents, apostrophes, numbers, punctuation runs, CJK, emoji, every kind of white space,
# combining marks, control characters.
SAMPLE = (
    "Héllo wörld! It's 12,345.67 — naïve café's 'quoted' ΣΊΣΥΦΟΣ İstanbul\t\ttabs\n\n  spaces   \r\nend "
    "漢字かな 😀 \u00a0nbsp \u2028ls x\u0301y \x00ctl\x07 \ufffd Ǆ ﬁ ½ don't we'll they've I'd ''s"
    "  trailing   "
)


def stdlib_texts(count=40):
    files = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py")))[:count]
    texts = []
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            texts.append(fh.read())
    return texts


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
