"""SentencePiece models trained with generate_sp_model: pieces and ids equal the sentencepiece library's."""

import io

import pytest
import sentencepiece as spm
from text_samples import SAMPLE

from embertext.data import (
    generate_sp_model,
    load_sp_model,
    sentencepiece_numericalizer,
    sentencepiece_tokenizer,
)
from embertext.transforms import SentencePieceTokenizer


@pytest.fixture(scope="module")
def sp_model(tmp_path_factory, corpus):
    d = tmp_path_factory.mktemp("sp")
    text = d / "train.txt"
    text.write_text("\n".join(line for t in corpus[:10] for line in t.splitlines() if line.strip()), encoding="utf-8")
    prefix = str(d / "m")
    generate_sp_model(str(text), vocab_size=500, model_type="bpe", model_prefix=prefix)
    return prefix + ".model"


def test_pieces_and_ids_equal_the_library(sp_model, corpus):
    reference = spm.SentencePieceProcessor(model_file=sp_model)
    lines = [SAMPLE, "plain words here", *corpus[0].splitlines()[:30]]
    assert list(sentencepiece_tokenizer(load_sp_model(sp_model))(lines)) == [
        reference.encode(x, out_type=str) for x in lines
    ]
    with open(sp_model, "rb") as f:
        from_file = load_sp_model(io.BytesIO(f.read()))
    assert list(sentencepiece_numericalizer(from_file)(lines)) == [reference.encode(x) for x in lines]
    tok = SentencePieceTokenizer(sp_model)
    assert tok(lines[1]) == reference.encode(lines[1], out_type=str)
    assert tok(lines) == [reference.encode(x, out_type=str) for x in lines]
    assert tok.decode(tok(lines[1])) == lines[1]


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="absent.txt"):
        generate_sp_model(str(tmp_path / "absent.txt"))
    (tmp_path / "t.txt").write_text("x\n")
    with pytest.raises(ValueError, match="model_type"):
        generate_sp_model(str(tmp_path / "t.txt"), model_type="wordpiece")
    with pytest.raises(FileNotFoundError, match="absent.model"):
        load_sp_model(str(tmp_path / "absent.model"))
    with pytest.raises(TypeError, match="binary"):
        load_sp_model(io.StringIO("x"))
