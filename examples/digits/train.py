"""The first recipe: a small CNN trained on handwritten digits.

    python examples/digits/train.py                  # scikit-learn's 8x8 digits (the README's main job)
    python examples/digits/train.py --mnist DIR      # MNIST's IDX files in DIR
    python examples/digits/train.py --resume         # carry on from the checkpoint

A checkpoint is written after every epoch (model, optimizer, scheduler, epoch, and every random
state the run draws from), so a run interrupted and resumed ends with the same weights as one that
was never interrupted."""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))  # progress, checkpoint

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from ember.utils.data import DataLoader, TensorDataset, random_split  # noqa: E402

from data import load_digits, load_mnist  # noqa: E402
from model import small_cnn  # noqa: E402
from checkpoint import run_interruptible, save_checkpoint  # noqa: E402
from progress import ProgressBar  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mnist", metavar="DIR", help="train on MNIST's IDX files in DIR instead of the 8x8 digits")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checkpoint", default="runs/digits-cnn.ckpt", help="written after every epoch")
    ap.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    ap.add_argument("--stop-after", type=int, metavar="N",
                    help="leave after N epochs of this invocation (an interruption, for trying --resume)")
    return ap.parse_args(argv)


def datasets(args):
    """(train, test) datasets with images standardized by the training set's mean and std."""
    if args.mnist:
        (xtr, ytr), (xte, yte) = load_mnist(args.mnist, "train"), load_mnist(args.mnist, "test")
    else:
        x, y = load_digits()
        train_idx, test_idx = random_split(range(len(y)), [0.8, 0.2],
                                           generator=ember.Generator().manual_seed(args.seed))
        tr, te = (ember.tensor(part.indices, dtype=ember.int64) for part in (train_idx, test_idx))
        xtr, ytr, xte, yte = x[tr], y[tr], x[te], y[te]
    mean, std = xtr.mean(), xtr.std()
    return TensorDataset((xtr - mean) / std, ytr), TensorDataset((xte - mean) / std, yte)


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with ember.no_grad():
        for x, y in loader:
            correct += int((model(x).argmax(1) == y).sum())
            total += len(y)
    return correct, total


def train(args):
    started = time.perf_counter()
    ember.manual_seed(args.seed)
    train_set, test_set = datasets(args)
    loader_rng = ember.Generator().manual_seed(args.seed + 1)
    # Workers are started afresh each epoch (not persistent): each epoch then draws the same things
    # from loader_rng (the workers' base seed, then the order), so a resumed run repeats them exactly.
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                              generator=loader_rng)
    test_loader = DataLoader(test_set, batch_size=256)
    model = small_cnn()
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = ember.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                                    steps_per_epoch=len(train_loader))
    first_epoch = 0
    if args.resume:
        state = ember.load(args.checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        ember.set_rng_state(state["rng"])
        loader_rng.set_state(state["loader_rng"])
        first_epoch = state["epoch"]
        print(f"resumed from {args.checkpoint} after epoch {first_epoch}")
    print(f"training on {len(train_set)} images, testing on {len(test_set)}; {args.workers} loader workers")
    for epoch in range(first_epoch, args.epochs):
        if args.stop_after is not None and epoch - first_epoch >= args.stop_after:
            print(f"stopping after epoch {epoch} (--stop-after); resume with --resume")
            return model, None
        model.train()
        bar = ProgressBar(len(train_loader), f"epoch {epoch + 1:2}/{args.epochs}")
        running = 0.0
        for step, (x, y) in enumerate(train_loader, 1):
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += float(loss)
            bar.update(loss=running / step, lr=scheduler.get_last_lr()[0])
        save_checkpoint(args.checkpoint, {
            "epoch": epoch + 1, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(), "rng": ember.get_rng_state(), "loader_rng": loader_rng.get_state()})
    correct, total = evaluate(model, test_loader)
    accuracy = correct / total
    print(f"test accuracy: {100 * accuracy:.2f}% ({correct}/{total}) in {time.perf_counter() - started:.1f}s; "
          f"checkpoint: {args.checkpoint}")
    return model, accuracy


def main(argv=None):
    return run_interruptible(train, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
