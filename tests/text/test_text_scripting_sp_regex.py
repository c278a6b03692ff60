"""SentencePiece and RegexTokenizer under ember.jit (C++ classes on Google's sentencepiece library and RE2):
ids and pieces equal the sentencepiece Python library's for the same model, RegexTokenizer equals Python's
re.sub then a split at spaces, every transform in embertext.transforms scripts (an enumeration that fails
when a new one is added without a case), and scripted pipelines load in a fresh process."""

import re
import subprocess
import sys

import pytest
import sentencepiece as spm
from text_samples import SAMPLE

import ember
from embertext import transforms as T
from embertext.data import generate_sp_model, load_sp_model
from embertext.vocab import build_vocab_from_iterator

LINES = [SAMPLE, "plain words here", "", "  leading and trailing  ", "a\x00b nul", "tabs\tand\nnewlines"]


@pytest.fixture(scope="module")
def sp_model(tmp_path_factory, corpus):
    d = tmp_path_factory.mktemp("spscript")
    text = d / "train.txt"
    text.write_text("\n".join(line for t in corpus[:8] for line in t.splitlines() if line.strip()), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(text), model_prefix=str(d / "uni"), vocab_size=400,
                                   model_type="unigram", minloglevel=2)
    generate_sp_model(str(text), vocab_size=300, model_type="bpe", model_prefix=str(d / "bpe"))
    return str(d / "uni.model"), str(d / "bpe.model")


class _Ids(ember.nn.Module):
    """A module holding load_sp_model's object, as torchtext users write them."""

    def __init__(self, path):
        super().__init__()
        self.sp = load_sp_model(path)

    def forward(self, text: str):
        return self.sp.EncodeAsIds(text)


def test_scripted_sentencepiece_equals_the_library(sp_model, corpus):
    lines = LINES + corpus[1].splitlines()[:40]
    for path in sp_model:
        ref = spm.SentencePieceProcessor(model_file=path)
        scripted_ids = ember.jit.script(_Ids(path))
        assert [scripted_ids(x) for x in lines] == [ref.encode(x) for x in lines]
        tok = T.SentencePieceTokenizer(path)
        scripted = ember.jit.script(tok)
        want = [ref.encode(x, out_type=str) for x in lines]
        assert scripted(lines) == tok(lines) == want
        assert scripted(lines[1]) == want[1]
        sp = load_sp_model(path)
        assert sp.GetPieceSize() == ref.get_piece_size() and sp.unk_id() == ref.unk_id()
        assert [sp.IdToPiece(i) for i in range(sp.GetPieceSize())] == [ref.id_to_piece(i)
                                                                        for i in range(ref.get_piece_size())]
        assert sp.PieceToId("\u2581the") == ref.piece_to_id("\u2581the")
        ids = ref.encode(lines[1])
        assert sp.DecodeIds(ids) == ref.decode(ids) == lines[1]
        assert sp.DecodePieces(want[0]) == ref.decode(want[0])


def test_sentencepiece_errors(sp_model, tmp_path):
    sp = load_sp_model(sp_model[0])
    with pytest.raises(IndexError, match="out of range"):
        sp.IdToPiece(10**6)
    with pytest.raises(IndexError, match="out of range"):
        sp.DecodeIds([-1])
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"\xff\x00 not a model")
    with pytest.raises(ValueError, match="not a SentencePiece model"):
        load_sp_model(str(bad))
    with pytest.raises(TypeError, match="str or List"):
        ember.jit.script(T.SentencePieceTokenizer(sp_model[0]))(["a", 1])


REGEX_CASES = [
    [(r"[!?.]", " "), (r"\s+", " ")],
    [(r"\'", " '  "), (r"\"", ""), (r"\.", " . "), (r"<br \/>", " "), (r",", " , "), (r"\(", " ( "), (r"\)", " ) "),
     (r"\!", " ! "), (r"\?", " ? "), (r"\;", " "), (r"\:", " "), (r"\s+", " ")],  # torchtext's basic_english
    [(r"(\w+)@(\w+)", r"\2 at \1"), (r"(?P<num>\d+)", r"<\g<num>>"), (r"x*", "-")],
    [(r"(?i)straße|ΣΊΣ", "X"), (r"[^\w\s]", ""), (r"\W+", " ")],
    [(r"[\d,.]+", " NUM "), (r"\s{2,}", " "), (r"\u00e9|\N{LATIN SMALL LETTER I WITH DIAERESIS}", "e")],
    [(r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)(l)", r"\12\101\0\012|\g<1>0\²\&"), (r"x", "\\n"), (r"\150|\0", "?")],
    [(r"(a)|b", r"[\1]"), (r"\t", r"\\t"), (r"[\]\[]", "|"), (r"o{,1}r", "R"), (r"(?m)^\s+|\s+$", "")],
]
REGEX_TEXTS = LINES + ["mail bob@example now", "Straße STRASSE ΣΊΣΥΦΟΣ σίσυφος", "١٢٣ ๑๒ 12,5 x]y[z",
                       "ab aab xxaxx abcdefghijkl", "\u3000wide\u2003space\u0085nel\x1cfs", "üñí\u0301cödé w_rd"]


def _python(patterns, text):
    for p, r in patterns:
        text = re.sub(p, r, text)
    return [t for t in text.split(" ") if t]


@pytest.mark.parametrize("patterns", REGEX_CASES)
def test_regex_tokenizer_equals_python_re(patterns):
    tok = T.RegexTokenizer(patterns)
    scripted = ember.jit.script(tok)
    for text in REGEX_TEXTS:
        want = _python(patterns, text)
        assert tok(text) == want, (patterns, text)
        assert scripted(text) == want, (patterns, text)


@pytest.mark.parametrize("pattern", [r"\w", r"\W", r"\d", r"\D", r"\s", r"\S", r"[\w\d]", r"[\s-]", r"(?i)[a-hj-zß]"])
def test_regex_classes_have_pythons_meaning_on_every_code_point(pattern):
    # (not (?i) with i: Python's re also folds i to U+0130 and U+0131, RE2 does not; text/README.md says so)
    chars = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    impl = T.RegexTokenizer([(pattern, "#")])._impl
    for start in range(0, len(chars), 1 << 16):
        chunk = chars[start:start + (1 << 16)]
        assert impl.replace_all(chunk) == re.sub(pattern, "#", chunk), (pattern, start)


def test_regex_tokenizer_refuses_what_re2_cannot_mean_as_python():
    for pattern in [r"(?<=a)b", r"(a)\1", r"a(?=b)", r"(?x) a b"]:
        with pytest.raises(ValueError, match="not supported"):
            T.RegexTokenizer([(pattern, "")])
    with pytest.raises(ValueError, match="word boundary"):
        T.RegexTokenizer([(r"\bword\b", "")])
    with pytest.raises(ValueError, match=r"\\Z"):
        T.RegexTokenizer([(r"\s+$", "")])
    with pytest.raises(re.error):
        T.RegexTokenizer([(r"(unclosed", "")])
    with pytest.raises(re.error, match="invalid group reference"):
        T.RegexTokenizer([(r"(a)", r"\2")])
    with pytest.raises(re.error, match="bad escape"):
        T.RegexTokenizer([(r"a", r"\q")])
    with pytest.raises(TypeError, match="expected str"):
        T.RegexTokenizer([("a", "b")])(["a"])
    with pytest.raises(UnicodeEncodeError):
        T.RegexTokenizer([("a", "b")])("lone \ud800 surrogate")
    assert T.RegexTokenizer([(r"\Z", " end")])("x\n") == re.sub(r"\Z", " end", "x\n").split(" ")


def _transform_cases(sp_path, gpt2_files, tmp_path):
    """(transform, inputs) for every name in embertext.transforms.__all__."""
    bert_vocab = tmp_path / "bert.txt"
    bert_vocab.write_text("[UNK]\nhello\nworld\n##s\n,\n", encoding="utf-8")
    vocab = build_vocab_from_iterator([["hello", "world", "▁hello"]], specials=["<unk>"])
    vocab.set_default_index(0)
    return {
        "SentencePieceTokenizer": (T.SentencePieceTokenizer(sp_path), ["Hello world", ["a b", "", "c"]]),
        "GPT2BPETokenizer": (T.GPT2BPETokenizer(gpt2_files[0], gpt2_files[1]), ["Hello, world", ["a b", ""]]),
        "BERTTokenizer": (T.BERTTokenizer(str(bert_vocab)), ["Hello, worlds", ["hello", ""]]),
        "RegexTokenizer": (T.RegexTokenizer([(r"\s+", " ")]), ["a  b\tc", ""]),
        "VocabTransform": (T.VocabTransform(vocab), [["hello", "x"], [["world"], []]]),
        "ToTensor": (T.ToTensor(padding_value=0), [[1, 2], [[1], [2, 3]]]),
        "LabelToIndex": (T.LabelToIndex(["a", "b"]), ["b", ["a", "b"]]),
        "Truncate": (T.Truncate(1), [[1, 2], [["a", "b"]]]),
        "AddToken": (T.AddToken("<s>"), [["a"], [["b"], []]]),
        "PadTransform": (T.PadTransform(4, 0), [ember.tensor([1, 2])]),
        "StrToIntTransform": (T.StrToIntTransform(), [["1", "2"], [["3"]]]),
        "Sequential": (T.Sequential(T.RegexTokenizer([(r"\s+", " ")]), T.VocabTransform(vocab), T.ToTensor()),
                       ["hello  world x"]),
    }


def test_every_transform_scripts(sp_model, gpt2_files, tmp_path):
    cases = _transform_cases(sp_model[0], gpt2_files, tmp_path)
    assert set(cases) == set(T.__all__), "a transform without a scripting case"
    for name, (module, inputs) in cases.items():
        scripted = ember.jit.script(module)
        for x in inputs:
            want, got = module(x), scripted(x)
            if isinstance(want, ember.Tensor):
                assert got.tolist() == want.tolist() and got.dtype == want.dtype, name
            else:
                assert got == want, (name, x)


def test_sentencepiece_and_regex_pipelines_load_in_a_fresh_process(sp_model, tmp_path):
    sp_path = sp_model[1]
    ref = spm.SentencePieceProcessor(model_file=sp_path)
    vocab = build_vocab_from_iterator([ref.encode(line, out_type=str) for line in LINES], specials=["<unk>"])
    vocab.set_default_index(0)
    pipes = {
        "sp": T.Sequential(T.SentencePieceTokenizer(sp_path), T.VocabTransform(vocab), T.Truncate(8),
                           T.ToTensor(padding_value=-1)),
        "regex": T.Sequential(T.RegexTokenizer(REGEX_CASES[1]), T.VocabTransform(vocab), T.AddToken(0),
                              T.ToTensor(padding_value=-1)),
    }
    inputs = {"sp": [LINES[0], LINES[1], "ok."], "regex": LINES[0]}  # RegexTokenizer takes one text, as torchtext's
    for name, pipe in pipes.items():
        path = str(tmp_path / f"{name}.pt")
        ember.jit.script(pipe).save(path)
        code = f"import ember, embertext; print(ember.jit.load({path!r})({inputs[name]!r}).tolist())"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.strip() == str(pipe(inputs[name]).tolist()), name
    ids = [vocab[p] for p in ref.encode(LINES[1], out_type=str)]
    assert pipes["sp"]([LINES[1]]).tolist() == [ids[:8]]
