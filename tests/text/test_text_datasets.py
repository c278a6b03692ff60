"""embertext.datasets on small files written in each dataset's real on-disk layout (no network here):
parsing, splits, len(), re-iteration; fetching through a local server; the offline error."""

import csv
import gzip
import hashlib
import http.server
import io
import json
import os
import pathlib
import tarfile
import threading
import zipfile
from urllib.error import URLError

import pytest

import embertext.utils
from embertext import datasets
from embertext.datasets import _common


@pytest.fixture
def trust(monkeypatch):
    """trust(published_digest, path): accept the test's own file at `path` in place of the published file
    with that digest (the tests' files are small stand-ins written in the real format)."""
    accepted = {}
    real = embertext.utils.validate_file

    def validate(f, hash_value, hash_type="sha256"):
        return real(f, accepted.get(hash_value, hash_value), hash_type)

    monkeypatch.setattr(embertext.utils, "validate_file", validate)

    def add(published, path, hash_type="md5"):
        accepted[published] = hashlib.new(hash_type, pathlib.Path(path).read_bytes()).hexdigest()

    return add


def write_csv(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)


ROWS = [["3", "Wall St. Bears", 'Short-sellers, "quoted", see green again.'], ["1", "Title", "multi\nline body"]]
EXPECTED = [(3, 'Wall St. Bears Short-sellers, "quoted", see green again.'), (1, "Title multi\nline body")]


@pytest.mark.parametrize(
    "name,folder",
    [
        ("AmazonReviewFull", "amazon_review_full_csv"),
        ("AmazonReviewPolarity", "amazon_review_polarity_csv"),
        ("DBpedia", "dbpedia_csv"),
        ("SogouNews", "sogou_news_csv"),
        ("YahooAnswers", "yahoo_answers_csv"),
        ("YelpReviewFull", "yelp_review_full_csv"),
        ("YelpReviewPolarity", "yelp_review_polarity_csv"),
    ],
)
def test_csv_collections(tmp_path, name, folder):
    for split in ("train", "test"):
        write_csv(tmp_path / name / folder / f"{split}.csv", ROWS)
    train, test = datasets.DATASETS[name](root=str(tmp_path))
    assert list(train) == EXPECTED and list(train) == EXPECTED and len(test) == 2
    assert str(train) == f"{name} train"


def test_ag_news_and_split_errors(tmp_path):
    write_csv(tmp_path / "AG_NEWS" / "test.csv", ROWS)
    # the file is there but is not the published one: its MD5 is checked before use
    with pytest.raises(RuntimeError, match="does not match"):
        datasets.AG_NEWS(root=str(tmp_path), split="test")
    with pytest.raises(ValueError, match="not supported"):
        datasets.AG_NEWS(root=str(tmp_path), split="valid")


def test_ag_news_rows(tmp_path, trust):
    write_csv(tmp_path / "AG_NEWS" / "test.csv", ROWS)
    trust("d52ea96a97a2d943681189a97654912d", tmp_path / "AG_NEWS" / "test.csv")
    assert list(datasets.AG_NEWS(root=str(tmp_path), split="test")) == EXPECTED


def test_imdb(tmp_path):
    for split in ("train", "test"):
        for label, texts in (("neg", ["bad film", "awful"]), ("pos", ["great <br />film"])):
            d = tmp_path / "IMDB" / "aclImdb" / split / label
            d.mkdir(parents=True)
            for i, t in enumerate(texts):
                (d / f"{i}_{i + 1}.txt").write_text(t, encoding="utf-8")
    train = datasets.IMDB(root=str(tmp_path), split="train")
    assert list(train) == [("neg", "bad film"), ("neg", "awful"), ("pos", "great <br />film")] and len(train) == 3


def test_sst2(tmp_path):
    d = tmp_path / "SST2" / "SST-2"
    d.mkdir(parents=True)
    (d / "train.tsv").write_text("sentence\tlabel\nhide new secretions \t0\ngood fun \t1\n")
    (d / "dev.tsv").write_text("sentence\tlabel\nit 's fine \t1\n")
    (d / "test.tsv").write_text("index\tsentence\n0\tuneasy mishmash \n")
    train, dev, test = datasets.SST2(root=str(tmp_path))
    assert list(train) == [("hide new secretions", 0), ("good fun", 1)]
    assert list(dev) == [("it 's fine", 1)] and list(test) == [("uneasy mishmash",)]


def test_penn_treebank_lines(tmp_path, trust):
    ptb = tmp_path / "PennTreebank"
    ptb.mkdir()
    (ptb / "ptb.valid.txt").write_text(" aer banknote <unk> \n pierre N years old \n")
    trust("aa0affc06ff7c36e977d7cd49e3839bf", ptb / "ptb.valid.txt")
    assert list(datasets.PennTreebank(root=str(tmp_path), split="valid")) == [
        "aer banknote <unk> ",
        "pierre N years old ",
    ]


def test_language_modeling(tmp_path):
    for name, folder in (("WikiText2", "wikitext-2"), ("WikiText103", "wikitext-103")):
        d = tmp_path / name / folder
        d.mkdir(parents=True)
        for split in ("train", "valid", "test"):
            (d / f"wiki.{split}.tokens").write_text(" \n = Valkyria = \n \n text @-@ here \n", encoding="utf-8")
        assert list(datasets.DATASETS[name](root=str(tmp_path), split="valid")) == [
            " \n",
            " = Valkyria = \n",
            " \n",
            " text @-@ here \n",
        ]
    ptb = tmp_path / "PennTreebank"
    ptb.mkdir()
    (ptb / "ptb.train.txt").write_text(" aer banknote <unk> \n pierre N years old \n")
    with pytest.raises(RuntimeError, match="does not match"):  # a file that is not the published one
        list(datasets.PennTreebank(root=str(tmp_path), split="train"))
    enwik = tmp_path / "EnWik9"
    enwik.mkdir()
    (enwik / "enwik9").write_text("<mediawiki>\n  <page>\n")
    assert list(datasets.EnWik9(root=str(tmp_path), split="train")) == ["<mediawiki>", "  <page>"]


def test_squad(tmp_path):
    data = {
        "version": "v2.0",
        "data": [
            {
                "title": "T",
                "paragraphs": [
                    {
                        "context": "Ember is fast.",
                        "qas": [
                            {"question": "What is fast?", "id": "1", "answers": [{"text": "Ember", "answer_start": 0}]},
                            {"question": "What is slow?", "id": "2", "answers": [], "is_impossible": True},
                        ],
                    }
                ],
            }
        ],
    }
    (tmp_path / "SQuAD2").mkdir()
    path = tmp_path / "SQuAD2" / "dev-v2.0.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RuntimeError, match="does not match"):
        datasets.SQuAD2(root=str(tmp_path), split="dev")


def test_squad_rows(tmp_path, trust):
    data = {
        "version": "v2.0",
        "data": [
            {
                "title": "T",
                "paragraphs": [
                    {
                        "context": "Ember is fast.",
                        "qas": [
                            {"question": "What is fast?", "id": "1", "answers": [{"text": "Ember", "answer_start": 0}]},
                            {"question": "What is slow?", "id": "2", "answers": [], "is_impossible": True},
                        ],
                    }
                ],
            }
        ],
    }
    (tmp_path / "SQuAD2").mkdir()
    path = tmp_path / "SQuAD2" / "dev-v2.0.json"
    path.write_text(json.dumps(data))
    trust("246adae8b7002f8679c027697b0b7cf8", path)
    assert list(datasets.SQuAD2(root=str(tmp_path), split="dev")) == [
        ("Ember is fast.", "What is fast?", ["Ember"], [0]),
        ("Ember is fast.", "What is slow?", [""], [-1]),
    ]


def test_sequence_tagging(tmp_path):
    d = tmp_path / "CoNLL2000Chunking"
    d.mkdir()
    (d / "train.txt").write_text("Confidence NN B-NP\nin IN B-PP\n\nChancellor NNP O\n\n")
    assert list(datasets.CoNLL2000Chunking(root=str(tmp_path), split="train")) == [
        [["Confidence", "in"], ["NN", "IN"], ["B-NP", "B-PP"]],
        [["Chancellor"], ["NNP"], ["O"]],
    ]
    u = tmp_path / "UDPOS" / "en-ud-v2"
    u.mkdir(parents=True)
    (u / "en-ud-tag.v2.dev.txt").write_text("Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\nZaman\tPROPN\tNNP\n")
    (tmp_path / "UDPOS" / "en-ud-v2.zip").write_bytes(b"stale")
    with pytest.raises(RuntimeError, match="does not match"):
        datasets.UDPOS(root=str(tmp_path), split="valid")


def test_udpos_from_its_zip(tmp_path, trust):
    (tmp_path / "UDPOS").mkdir()
    archive = tmp_path / "UDPOS" / "en-ud-v2.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("en-ud-v2/en-ud-tag.v2.test.txt", "Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\nZaman\tPROPN\tNNP\n")
    trust("bdcac7c52d934656bae1699541424545", archive)
    assert list(datasets.UDPOS(root=str(tmp_path), split="test")) == [
        [["Al", "-"], ["PROPN", "PUNCT"], ["NNP", "HYPH"]],
        [["Zaman"], ["PROPN"], ["NNP"]],
    ]


def test_multi30k(tmp_path):
    d = tmp_path / "Multi30k"
    d.mkdir()
    (d / "val.de").write_text("Eine Gruppe.\nZwei Hunde.\n", encoding="utf-8")
    (d / "val.en").write_text("A group.\nTwo dogs.\n", encoding="utf-8")
    assert list(datasets.Multi30k(root=str(tmp_path), split="valid")) == [
        ("Eine Gruppe.", "A group."),
        ("Zwei Hunde.", "Two dogs."),
    ]
    assert list(datasets.Multi30k(root=str(tmp_path), split="valid", language_pair=("en", "de")))[1] == (
        "Two dogs.",
        "Zwei Hunde.",
    )
    with pytest.raises(ValueError, match="language_pair"):
        datasets.Multi30k(root=str(tmp_path), split="valid", language_pair=("fr", "en"))


def _iwslt_archive(tmp_path):
    """2016-01.tgz holding texts/de/en/de-en.tgz with a tags training file and XML dev/test sets."""
    inner = io.BytesIO()
    files = {
        "de-en/train.tags.de-en.de": "<url>http://x</url>\n<talkid>1</talkid>\n Hallo Welt. \nZweiter Satz.\n",
        "de-en/train.tags.de-en.en": "<url>http://x</url>\n<talkid>1</talkid>\n Hello world. \nSecond sentence.\n",
    }
    for lang, text in (("de", "Guten Tag."), ("en", "Good day.")):
        for s in ("tst2013", "tst2014"):
            files[f"de-en/IWSLT16.TED.{s}.de-en.{lang}.xml"] = (
                f'<?xml version="1.0" encoding="UTF-8"?><mteval><srcset><doc docid="1"><seg id="1"> {text} </seg>'
                f'<seg id="2">{s}</seg></doc></srcset></mteval>'
            )
    with tarfile.open(fileobj=inner, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    outer_path = tmp_path / "IWSLT2016" / "2016-01.tgz"
    outer_path.parent.mkdir(parents=True)
    with tarfile.open(outer_path, "w:gz") as tar:
        data = inner.getvalue()
        info = tarfile.TarInfo("2016-01/texts/de/en/de-en.tgz")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return outer_path


def test_iwslt2016_from_its_archives(tmp_path, trust):
    trust("c393ed3fc2a1b0f004b3331043f615ae", _iwslt_archive(tmp_path))
    train, valid, test = datasets.IWSLT2016(root=str(tmp_path))
    assert list(train) == [("Hallo Welt.\n", "Hello world.\n"), ("Zweiter Satz.\n", "Second sentence.\n")]
    assert list(valid) == [("Guten Tag.\n", "Good day.\n"), ("tst2013\n", "tst2013\n")]
    assert list(test)[1] == ("tst2014\n", "tst2014\n") and len(test) == 2
    with pytest.raises(ValueError, match="tgt_language 'fr'"):
        datasets.IWSLT2016(root=str(tmp_path), language_pair=("de", "fr"))
    with pytest.raises(ValueError, match="test_set 'tst2014'"):
        datasets.IWSLT2016(root=str(tmp_path), language_pair=("cs", "en"))


def test_fetch_downloads_checks_and_extracts(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("SST-2/train.tsv", "sentence\tlabel\nok \t1\n")
    body = buf.getvalue()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/SST-2.zip"
        _common.fetch(str(tmp_path), url, "SST-2.zip", hashlib.md5(body).hexdigest(), needed=["SST-2/train.tsv"])
    finally:
        httpd.shutdown()
    assert (tmp_path / "SST-2" / "train.tsv").read_text().startswith("sentence")


def test_offline_error_names_the_file(tmp_path, monkeypatch):
    def offline(url, dst, progress=True):
        raise URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(embertext.utils, "download_url_to_file", offline)
    with pytest.raises(RuntimeError, match=r"could not download .*ptb\.test\.txt.*put the file at"):
        datasets.PennTreebank(root=str(tmp_path), split="test")


def test_conll_from_its_gzip(tmp_path, trust):
    d = tmp_path / "CoNLL2000Chunking"
    d.mkdir()
    (d / "test.txt.gz").write_bytes(gzip.compress(b"He PRP B-NP\nran VBD B-VP\n"))
    trust("a916e1c2d83eb3004b38fc6fcd628939", d / "test.txt.gz")
    assert list(datasets.CoNLL2000Chunking(root=str(tmp_path), split="test")) == [
        [["He", "ran"], ["PRP", "VBD"], ["B-NP", "B-VP"]]
    ]
