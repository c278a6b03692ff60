"""Issue 26's text targets: BERT WordPiece and GPT-2 BPE tokenization of 10 MB of text as a batch of
documents, embertext (C++, its batch spread over ember's threads) beside Hugging Face `tokenizers`
(Rust, its batch over its own thread pool) on the same vocabulary files; and a vocab lookup of 10^6
tokens beside a Python dict comprehension. The text is the Python standard library's sources (real
prose and code), the vocabularies trained on it once per run with `tokenizers`."""

from __future__ import annotations

import glob
import os
import sysconfig
import tempfile

import ember

from .runner import Case, best_of

TARGET_BYTES = 10 * 1024 * 1024


def _documents() -> list[str]:
    docs, total = [], 0
    files = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "**", "*.py"), recursive=True))
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for block in f.read().split("\n\n"):  # paragraph-sized documents, as a dataset's rows
                if block.strip():
                    docs.append(block)
                    total += len(block.encode("utf-8"))
        if total >= TARGET_BYTES:
            break
    return docs


def _vocab_files(docs: list[str], folder: str):
    import tokenizers

    bpe = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train_from_iterator(docs[:20000], vocab_size=30000, show_progress=False)
    bpe.save_model(folder)
    wp = tokenizers.BertWordPieceTokenizer(lowercase=True)
    wp.train_from_iterator(docs[:20000], vocab_size=30000, show_progress=False)
    wp.save_model(folder)
    return bpe, wp


def cases():
    try:
        import tokenizers  # noqa: F401
    except ImportError:
        return []
    from embertext.transforms import BERTTokenizer, GPT2BPETokenizer
    from embertext.vocab import build_vocab_from_iterator

    docs = _documents()
    megabytes = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    folder = tempfile.mkdtemp(prefix="ember-bench-text-")
    hf_bpe, hf_wp = _vocab_files(docs, folder)
    threads = ember.get_num_threads()
    ours_bpe = GPT2BPETokenizer(os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt"))
    ours_wp = BERTTokenizer(os.path.join(folder, "vocab.txt"))

    def timed(fn):
        return lambda: best_of(fn, reps=3) * 1e3

    bpe_case = Case(
        f"GPT-2 BPE tokenization of {megabytes:.1f} MB ({len(docs)} documents)",
        "ms",
        False,
        {
            "ember": timed(lambda: ours_bpe._impl.encode_batch(docs, threads)),
            "hf-tokenizers": timed(lambda: [e.ids for e in hf_bpe.encode_batch(docs)]),
        },
        "at least as fast as Hugging Face tokenizers",
        lambda e, p: e <= p["hf-tokenizers"],
    )
    wp_case = Case(
        f"BERT WordPiece tokenization of {megabytes:.1f} MB ({len(docs)} documents)",
        "ms",
        False,
        {
            "ember": timed(lambda: ours_wp._impl.encode_batch(docs, threads)),
            "hf-tokenizers": timed(lambda: [e.ids for e in hf_wp.encode_batch(docs, add_special_tokens=False)]),
        },
        "at least as fast as Hugging Face tokenizers",
        lambda e, p: e <= p["hf-tokenizers"],
    )

    words = [w for d in docs[:20000] for w in d.split()]
    tokens = (words * (1_000_000 // len(words) + 1))[:1_000_000]
    vocab = build_vocab_from_iterator([words], specials=["<unk>"])
    vocab.set_default_index(0)
    stoi = vocab.get_stoi()
    lookup_case = Case(
        "vocab lookup of 10^6 tokens",
        "ms",
        False,
        {
            "ember": timed(lambda: vocab(tokens)),
            "python-dict": timed(lambda: [stoi.get(t, 0) for t in tokens]),
        },
        "faster than a Python dict comprehension",
        lambda e, p: e < p["python-dict"],
    )
    return [bpe_case, wp_case, lookup_case]
