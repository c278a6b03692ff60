"""Text classification recipe: which language is a sentence in? Trained on the translated messages of the
programs installed here (see language_corpus.py), with torchtext tutorial's EmbeddingBag model or a small Transformer
encoder.

    python examples/text_classification/train.py                        # the EmbeddingBag model
    python examples/text_classification/train.py --model transformer
    python examples/text_classification/train.py --resume               # carry on from the checkpoint

A checkpoint is written after every epoch (model, optimizer, scheduler, vocabulary, epoch, random
states); the test accuracy of the final model is printed."""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))  # progress, checkpoint

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from checkpoint import run_interruptible, save_checkpoint  # noqa: E402
from language_corpus import LANGUAGES, load_corpus  # noqa: E402
from ember.utils.data import DataLoader  # noqa: E402
from text_classifiers import TextClassificationModel, TransformerClassifier  # noqa: E402
from progress import ProgressBar  # noqa: E402

from embertext import transforms as T  # noqa: E402
from embertext.data import get_tokenizer, ngrams_iterator  # noqa: E402
from embertext.vocab import build_vocab_from_iterator, vocab as make_vocab  # noqa: E402

MAX_LEN = 64


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=("embeddingbag", "transformer"), default="embeddingbag")
    ap.add_argument("--epochs", type=int, default=None, help="default: 6 (embeddingbag), 4 (transformer)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--max-per-language", type=int, default=6000, help="messages per language (before the split)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checkpoint", default=None, help="default: runs/text-<model>.ckpt, written after every epoch")
    ap.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    ap.add_argument("--stop-after", type=int, metavar="N", help="leave after N epochs of this invocation")
    ap.add_argument("--locale-dir", default="/usr/share/locale")
    args = ap.parse_args(argv)
    args.epochs = args.epochs or (6 if args.model == "embeddingbag" else 4)
    args.checkpoint = args.checkpoint or f"runs/text-{args.model}.ckpt"
    return args


_basic_english = get_tokenizer("basic_english")


def tokens_of(model_kind: str, text: str):
    """Lower-cased word tokens, plus their bigrams for the EmbeddingBag model."""
    words = _basic_english(text)
    return list(ngrams_iterator(words, 2)) if model_kind == "embeddingbag" else words


class Pipeline:
    """Text -> model inputs: the tokens looked up in the vocab (truncated and padded for the Transformer)."""

    def __init__(self, model_kind: str, vocab):
        self.kind, self.vocab = model_kind, vocab
        self.to_ids = T.Sequential(T.VocabTransform(vocab), T.Truncate(MAX_LEN),
                                   T.ToTensor(padding_value=vocab["<pad>"]))

    def tokens(self, text: str):
        return tokens_of(self.kind, text)

    def collate(self, batch):
        labels = ember.tensor([label for label, _ in batch])
        token_lists = [self.tokens(text) for _, text in batch]
        if self.kind == "transformer":
            return (self.to_ids(token_lists),), labels
        ids = [self.vocab(tokens) for tokens in token_lists]
        offsets = ember.tensor([0] + [len(x) for x in ids[:-1]]).cumsum(0)
        return (ember.tensor([i for x in ids for i in x]), offsets), labels


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with ember.no_grad():
        for inputs, labels in loader:
            correct += int((model(*inputs).argmax(1) == labels).sum())
            total += len(labels)
    return correct, total


def train(args):
    started = time.perf_counter()
    ember.manual_seed(args.seed)
    corpus = load_corpus(args.locale_dir, max_per_language=args.max_per_language)
    state = ember.load(args.checkpoint, weights_only=False) if args.resume else None
    if state is not None:
        vocab = make_vocab({token: 1 for token in state["vocab"]})
    else:
        vocab = build_vocab_from_iterator((tokens_of(args.model, t) for _, t in corpus["train"]), min_freq=2,
                                          specials=["<pad>", "<unk>"])
    vocab.set_default_index(vocab["<unk>"])
    pipeline = Pipeline(args.model, vocab)
    loader_rng = ember.Generator().manual_seed(args.seed + 1)
    train_loader = DataLoader(corpus["train"], batch_size=args.batch_size, shuffle=True, collate_fn=pipeline.collate,
                              generator=loader_rng)
    test_loader = DataLoader(corpus["test"], batch_size=256, collate_fn=pipeline.collate)
    valid_loader = DataLoader(corpus["valid"], batch_size=256, collate_fn=pipeline.collate)
    if args.model == "embeddingbag":
        model = TextClassificationModel(len(vocab), 64, len(LANGUAGES))
        optimizer = ember.optim.SGD(model.parameters(), lr=5.0)
        scheduler = ember.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.5)
    else:
        model = TransformerClassifier(len(vocab), len(LANGUAGES), max_len=MAX_LEN, padding_idx=vocab["<pad>"])
        optimizer = ember.optim.AdamW(model.parameters(), lr=1e-3)
        scheduler = ember.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.7)
    first_epoch = 0
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        ember.set_rng_state(state["rng"])
        loader_rng.set_state(state["loader_rng"])
        first_epoch = state["epoch"]
        print(f"resumed from {args.checkpoint} after epoch {first_epoch}")
    sizes = {k: len(v) for k, v in corpus.items()}
    print(f"{args.model}: {sizes['train']} training messages in {len(LANGUAGES)} languages, vocabulary {len(vocab)}")
    for epoch in range(first_epoch, args.epochs):
        if args.stop_after is not None and epoch - first_epoch >= args.stop_after:
            print(f"stopping after epoch {epoch} (--stop-after); resume with --resume")
            return model, None
        model.train()
        bar = ProgressBar(len(train_loader), f"epoch {epoch + 1}/{args.epochs}")
        running = 0.0
        for step, (inputs, labels) in enumerate(train_loader, 1):
            loss = F.cross_entropy(model(*inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            ember.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            running += float(loss)
            bar.update(loss=running / step)
        scheduler.step()
        correct, total = evaluate(model, valid_loader)
        print(f"  valid accuracy {100 * correct / total:.2f}%")
        save_checkpoint(args.checkpoint, {
            "epoch": epoch + 1, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(), "vocab": vocab.get_itos(), "rng": ember.get_rng_state(),
            "loader_rng": loader_rng.get_state()})
    correct, total = evaluate(model, test_loader)
    accuracy = correct / total
    print(f"test accuracy: {100 * accuracy:.2f}% ({correct}/{total}) in {time.perf_counter() - started:.1f}s; "
          f"checkpoint: {args.checkpoint}")
    return model, accuracy


def main(argv=None):
    return run_interruptible(train, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
