"""Vectors read from the word2vec/GloVe/fastText text formats written here, against the values written;
the binary cache, max_vectors, unk_init, CharNGram's n-gram mean, offline errors."""

import numpy as np
import pytest

import embertext.utils
from embertext.vocab import CharNGram, FastText, GloVe, Vectors

ROWS = {"the": [0.1, -0.2, 0.3], "cat": [1.0, 2.0, 3.0], "Café": [-1.5, 0.0, 2.25]}


def write(path, header=False, rows=ROWS):
    lines = [f"{len(rows)} 3"] if header else []
    lines += [w + " " + " ".join(repr(v) for v in vec) for w, vec in rows.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("header", [False, True])
def test_text_formats_and_lookup(tmp_path, header):
    v = Vectors(write(tmp_path / "vecs.txt", header), cache=str(tmp_path / "cache"))
    assert v.itos == list(ROWS) and v.dim == 3 and len(v) == 3
    np.testing.assert_allclose(v["cat"].numpy(), ROWS["cat"])
    np.testing.assert_array_equal(v["dog"].numpy(), np.zeros(3))
    got = v.get_vecs_by_tokens(["the", "CAT", "café"], lower_case_backup=True).numpy()
    np.testing.assert_allclose(got, [ROWS["the"], ROWS["cat"], [0, 0, 0]], rtol=1e-6)
    assert v.get_vecs_by_tokens("Café").shape == (3,)


def test_binary_cache_max_vectors_unk_init(tmp_path):
    path = write(tmp_path / "vecs.txt")
    Vectors(path, cache=str(tmp_path / "c"), max_vectors=2)
    assert (tmp_path / "c" / "vecs.txt_2.pt").exists()
    (tmp_path / "vecs.txt").write_text("garbage that would not parse\n")  # the cache is read, not the text
    cached = Vectors(path, cache=str(tmp_path / "c"), max_vectors=2, unk_init=lambda t: t.fill_(7.0))
    assert cached.itos == ["the", "cat"] and cached["zzz"].tolist() == [7.0, 7.0, 7.0]


def test_bad_files(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("a 1 2 3\nb 1 2\n")
    with pytest.raises(RuntimeError, match="line 2 has 2 dimensions"):
        Vectors(str(bad), cache=str(tmp_path / "c"))
    with pytest.raises(RuntimeError, match="no vectors found at"):
        Vectors("missing.txt", cache=str(tmp_path / "c"))
    bad.write_text("a 1 x 3\n")
    with pytest.raises(RuntimeError, match="not numbers"):
        Vectors(str(bad), cache=str(tmp_path / "d"))


def test_charngram_mean_of_ngrams(tmp_path):
    rows = {"2gram-#BEGIN#a": [1.0, 0.0], "2gram-ab": [0.0, 2.0], "3gram-#BEGIN#ab": [3.0, 3.0], "x": [9.0, 9.0]}
    (tmp_path / "charNgram.txt").write_text("\n".join(k + " " + " ".join(map(str, v)) for k, v in rows.items()))
    c = CharNGram(cache=str(tmp_path))
    np.testing.assert_allclose(c["ab"].numpy(), [[4 / 3, 5 / 3]])
    assert c["<unk>"].tolist() == [[0.0, 0.0]] and c["zz"].tolist() == [[0.0, 0.0]]


def test_factories_fail_clearly_offline(tmp_path, monkeypatch):
    def offline(url, dst, progress=True):
        from urllib.error import URLError

        raise URLError("Name or service not known")

    monkeypatch.setattr(embertext.utils, "download_url_to_file", offline)
    with pytest.raises(RuntimeError, match=r"could not download http://nlp.stanford.edu/data/glove.6B.zip"):
        GloVe(name="6B", dim=50, cache=str(tmp_path))
    with pytest.raises(RuntimeError, match="wiki.de.vec"):
        FastText(language="de", cache=str(tmp_path))
    with pytest.raises(ValueError, match="GloVe: name"):
        GloVe(name="7B")
