"""Word-level language model recipe (as PyTorch's word_language_model example): an LSTM or a Transformer
trained on the documentation shipped with the Python interpreter (see docs_corpus.py); the test perplexity is
printed beside a unigram model's, fitted on the same training text.

    python examples/language_model/train.py                     # the LSTM
    python examples/language_model/train.py --model transformer
    python examples/language_model/train.py --resume            # carry on from the checkpoint"""
from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time
from collections import Counter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))  # progress, checkpoint

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from checkpoint import run_interruptible, save_checkpoint  # noqa: E402
from docs_corpus import load_corpus  # noqa: E402
from word_models import LSTMModel, TransformerModel  # noqa: E402
from progress import ProgressBar  # noqa: E402

from embertext.data import get_tokenizer  # noqa: E402
from embertext.vocab import build_vocab_from_iterator  # noqa: E402
from embertext.vocab import vocab as make_vocab  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=("lstm", "transformer"), default="lstm")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=20)
    ap.add_argument("--bptt", type=int, default=35)
    ap.add_argument("--max-train-words", type=int, default=400_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checkpoint", default=None, help="default: runs/lm-<model>.ckpt, written after every epoch")
    ap.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    ap.add_argument("--stop-after", type=int, metavar="N", help="leave after N epochs of this invocation")
    args = ap.parse_args(argv)
    args.checkpoint = args.checkpoint or f"runs/lm-{args.model}.ckpt"
    return args


def tokens(lines):
    tokenize = get_tokenizer("basic_english")
    return [tokenize(line) + ["<eos>"] for line in lines]


def batchify(ids, bsz):
    """A (steps, bsz) tensor: the id stream cut into bsz columns."""
    steps = len(ids) // bsz
    return ember.tensor(ids[: steps * bsz]).view(bsz, steps).t().contiguous()


def unigram_perplexity(train_tokens, test_tokens, vocab):
    counts = Counter(vocab(train_tokens))
    total = sum(counts.values()) + len(vocab)
    nll = -sum(math.log((counts[i] + 1) / total) for i in vocab(test_tokens))
    return math.exp(nll / len(test_tokens))


def run_epoch(model, data, args, optimizer=None, bar=None):
    """Mean loss per token over data; trains when an optimizer is given."""
    training = optimizer is not None
    model.train(training)
    hidden = model.init_hidden(args.batch_size if training else data.size(1)) if args.model == "lstm" else None
    total, count = 0.0, 0
    with ember.set_grad_enabled(training):
        for i in range(0, data.size(0) - 1, args.bptt):
            length = min(args.bptt, data.size(0) - 1 - i)
            x, y = data[i: i + length], data[i + 1: i + 1 + length]
            if hidden is not None:
                hidden = tuple(h.detach() for h in hidden)  # truncated backpropagation through time
            output, hidden = model(x, hidden)
            loss = F.cross_entropy(output.reshape(-1, output.size(-1)), y.reshape(-1))
            if training:
                optimizer.zero_grad()
                loss.backward()
                ember.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
                optimizer.step()
                bar.update(loss=float(loss), ppl=math.exp(min(float(loss), 20)))
            total += float(loss) * y.numel()
            count += y.numel()
    return total / count


def train(args):
    started = time.perf_counter()
    ember.manual_seed(args.seed)
    corpus = {k: tokens(v) for k, v in load_corpus(args.max_train_words).items()}
    state = ember.load(args.checkpoint, weights_only=False) if args.resume else None
    if state is not None:
        vocab = make_vocab({t: 1 for t in state["vocab"]})
    else:
        vocab = build_vocab_from_iterator(corpus["train"], min_freq=3, specials=["<unk>", "<eos>"])
    vocab.set_default_index(vocab["<unk>"])
    streams = {k: [i for line in v for i in vocab(line)] for k, v in corpus.items()}
    train_data = batchify(streams["train"], args.batch_size)
    valid_data, test_data = batchify(streams["valid"], 10), batchify(streams["test"], 10)
    if args.model == "lstm":
        model = LSTMModel(len(vocab))
        optimizer = ember.optim.SGD(model.parameters(), lr=20.0)
    else:
        model = TransformerModel(len(vocab))
        optimizer = ember.optim.Adam(model.parameters(), lr=5e-4)
    first_epoch, best_valid = 0, float("inf")
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        ember.set_rng_state(state["rng"])
        first_epoch, best_valid = state["epoch"], state["best_valid"]
        print(f"resumed from {args.checkpoint} after epoch {first_epoch}")
    print(f"{args.model}: {len(streams['train'])} training tokens, vocabulary {len(vocab)}")
    batches = (train_data.size(0) - 1 + args.bptt - 1) // args.bptt
    for epoch in range(first_epoch, args.epochs):
        if args.stop_after is not None and epoch - first_epoch >= args.stop_after:
            print(f"stopping after epoch {epoch} (--stop-after); resume with --resume")
            return model, None
        bar = ProgressBar(batches, f"epoch {epoch + 1}/{args.epochs}")
        run_epoch(model, train_data, args, optimizer, bar)
        valid = run_epoch(model, valid_data, args)
        print(f"  valid perplexity {math.exp(valid):.1f}")
        if valid < best_valid:
            best_valid = valid
        elif args.model == "lstm":  # anneal when validation stops improving, as the PyTorch example does
            for group in optimizer.param_groups:
                group["lr"] /= 4.0
        save_checkpoint(args.checkpoint, {"epoch": epoch + 1, "model": model.state_dict(),
                                          "optimizer": optimizer.state_dict(), "best_valid": best_valid,
                                          "vocab": vocab.get_itos(), "rng": ember.get_rng_state()})
    test_ppl = math.exp(run_epoch(model, test_data, args))
    unigram = unigram_perplexity([t for line in corpus["train"] for t in line],
                                 [t for line in corpus["test"] for t in line], vocab)
    print(f"test perplexity: {test_ppl:.1f} (a unigram model: {unigram:.1f}) in {time.perf_counter() - started:.1f}s; "
          f"checkpoint: {args.checkpoint}")
    return model, test_ppl


def main(argv=None):
    return run_interruptible(train, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
