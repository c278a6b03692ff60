"""embertext under ember.jit: every transform and functional scripts and gives its eager results (the
reference is the eager module on the same input), the tokenizers and Vocab run as ember.jit C++ classes,
and a scripted tokenizer -> vocab -> truncate -> to_tensor pipeline saved to a file loads in a fresh
process that imports only ember and embertext."""
import subprocess
import sys

import pytest

import ember
from embertext import functional as F
from embertext import transforms as T
from embertext.vocab import build_vocab_from_iterator

BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "hello", "world", "the", "cat", "##s", "sat", ",", "!", "play", "##ing",
              "cafe"]
TEXTS = ["Hello world, the cats sat!", "playing", "Café  PLAYING cats", ""]


@pytest.fixture
def bert_vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(BERT_VOCAB) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def vocab():
    v = build_vocab_from_iterator([["hello", "world", "cats", "the", "##s", "sat"]], specials=["<pad>", "<unk>"])
    v.set_default_index(1)
    return v


def _equal(a, b):
    if isinstance(a, ember.Tensor):
        return isinstance(b, ember.Tensor) and a.dtype == b.dtype and a.tolist() == b.tolist()
    return a == b and type(a) is type(b)


def _check(module, *inputs):
    scripted = ember.jit.script(module)
    for x in inputs:
        want, got = module(x), scripted(x)
        assert _equal(got, want), (type(module).__name__, x, got, want)


def test_vocab_scripts_and_shares_its_table(vocab):
    scripted = ember.jit.script(vocab)
    itos = vocab.get_itos()
    assert scripted(["hello", "nope", "sat"]) == vocab(["hello", "nope", "sat"]) == [itos.index("hello"), 1,
                                                                                     itos.index("sat")]
    vocab.set_default_index(0)  # the scripted module calls the same C++ table
    assert scripted(["nope"]) == [0]
    vocab.append_token("nope")
    assert scripted(["nope"]) == [vocab["nope"]] == [8]


def test_list_transforms(vocab):
    _check(T.VocabTransform(vocab), ["hello", "x"], [["the", "cats"], []], [])
    _check(T.Truncate(2), [1, 2, 3], ["a", "b", "c"], [[1, 2, 3], [4]], [["a", "b", "c"]], [])
    _check(T.AddToken(0), [5, 6], [[1], [2, 3]], [])
    _check(T.AddToken("</s>", begin=False), ["a"], [["a"], []])
    _check(T.LabelToIndex(["neg", "pos"]), ["pos", "neg"], "pos")
    _check(T.StrToIntTransform(), ["1", "-22", " 3 "], [["4"], ["5", "6"]])


def test_tensor_transforms():
    _check(T.ToTensor(), [1, 2, 3], [[1, 2], [3, 4]], [])
    _check(T.ToTensor(padding_value=-1), [[1, 2, 3], [4]])
    _check(T.ToTensor(dtype=ember.int32), [[1], [2]])
    _check(T.PadTransform(5, 7), ember.tensor([1, 2]), ember.tensor([[1, 2, 3, 4, 5, 6]]), ember.tensor([[1.5], [2.0]]))


def test_tokenizers(bert_vocab, gpt2_files):
    for kw in ({}, {"return_tokens": True}, {"do_lower_case": False, "return_tokens": True}):
        tok = T.BERTTokenizer(bert_vocab, **kw)
        _check(tok, TEXTS[0], TEXTS)
    encoder, merges, _ = gpt2_files
    for kw in ({}, {"return_tokens": True}):
        tok = T.GPT2BPETokenizer(encoder, merges, **kw)
        _check(tok, "Hello world, the cat's 12 naps.", ["def f(x):\n    return x", "über  café"])


def test_functional_scripts():
    cases = [
        (F.truncate, [(["a", "b", "c"], 2), ([[1, 2, 3], [4]], 1), ([], 3)]),
        (F.add_token, [([1, 2], 0), (["a"], "x", False), ([[1], [2, 3]], 9)]),
        (F.str_to_int, [(["1", "22"],), ([["3"], ["4", "5"]],)]),
        (F.to_tensor, [([1, 2, 3],), ([[1, 2], [3]], 0), ([[1, 2], [3, 4]],), ([[1], [2]], None, ember.int32)]),
    ]
    for fn, calls in cases:
        scripted = ember.jit.script(fn)
        for args in calls:
            assert _equal(scripted(*args), fn(*args)), (fn.__name__, args)


def test_scripted_transforms_raise_as_eager_ones(vocab):
    bad = [(T.VocabTransform(vocab), [1, 2], TypeError), (T.Truncate(2), [1.5], TypeError),
           (T.AddToken(0), ["a"], TypeError), (T.ToTensor(), [[1, 2], [3]], ValueError),
           (T.StrToIntTransform(), ["x1"], ValueError)]
    for module, x, exc in bad:
        with pytest.raises(exc):
            module(x)
        with pytest.raises(exc):
            ember.jit.script(module)(x)
    with pytest.raises(ValueError, match="non-negative"):
        ember.jit.script(F.truncate)([1], -1)


def test_scripted_tokenizers_name_themselves_on_bad_input(bert_vocab, gpt2_files):
    encoder, merges, _ = gpt2_files
    for tok, name in ((T.BERTTokenizer(bert_vocab), "BERTTokenizer"), (T.GPT2BPETokenizer(encoder, merges),
                                                                        "GPT2BPETokenizer")):
        with pytest.raises(TypeError, match=f"^{name}: input type not supported"):
            tok([1, 2])
        with pytest.raises(TypeError, match=f"^{name}: input type not supported"):
            ember.jit.script(tok)([1, 2])


def test_pipeline_saved_and_loaded_in_a_fresh_process(tmp_path, bert_vocab, vocab):
    pipe = T.Sequential(T.BERTTokenizer(bert_vocab, return_tokens=True), T.VocabTransform(vocab), T.Truncate(4),
                        T.ToTensor(padding_value=0))
    texts = TEXTS[:3]
    want = pipe(texts)
    scripted = ember.jit.script(pipe)
    assert _equal(scripted(texts), want)
    path = str(tmp_path / "pipeline.pt")
    scripted.save(path)
    code = (f"import ember, embertext; m = ember.jit.load({path!r}); "
            f"print(m({texts!r}).tolist()); print(m({TEXTS[1]!r}).tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == str(want.tolist()) and out[1] == str(pipe(TEXTS[1]).tolist())
    missing = subprocess.run([sys.executable, "-c", f"import ember; ember.jit.load({path!r})"], capture_output=True,
                             text=True)
    assert missing.returncode != 0 and "text.BERTTokenizer" in missing.stderr


def test_gpt2_pipeline_saved_and_loaded(tmp_path, gpt2_files):
    encoder, merges, _ = gpt2_files
    tok = T.GPT2BPETokenizer(encoder, merges)
    pipe = T.Sequential(tok, T.StrToIntTransform(), T.Truncate(6), T.AddToken(0), T.ToTensor(padding_value=-1))
    texts = ["Hello world, the cat's 12 naps.", "x = 1"]
    path = str(tmp_path / "gpt2.pt")
    ember.jit.script(pipe).save(path)
    code = f"import ember, embertext; print(ember.jit.load({path!r})({texts!r}).tolist())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(pipe(texts).tolist())
