"""The classification recipe (as torchvision's references/classification): an embervision model (ResNet-18 by
default, from random initialization) trained to read handwritten digits scaled up to 32x32 images.

    python examples/classification/train.py              # train, then report held-out accuracy (the README's figure)
    python examples/classification/train.py --resume     # carry on from the checkpoint
    python examples/classification/train.py --test-only  # evaluate the checkpoint

SGD with momentum and Nesterov, label smoothing, a linear warmup then cosine decay of the learning rate,
and held-out accuracy (acc@1, acc@5) after every epoch. A checkpoint (model, optimizer, scheduler, epoch,
random state) is written after every epoch, so a run interrupted and resumed ends with the same weights
as one that was never interrupted."""
from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "common"))  # the recipes' progress bar and checkpoints

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
import embervision.models  # noqa: E402
from ember.utils.data import DataLoader  # noqa: E402

from digit_images import NUM_CLASSES, DigitImages, split_indices  # noqa: E402
from checkpoint import run_interruptible, save_checkpoint  # noqa: E402
from progress import ProgressBar  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="resnet18", help="an embervision.models classification builder")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--weight-decay", type=float, default=5e-4)
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--lr-warmup-epochs", type=int, default=1)
    ap.add_argument("--size", type=int, default=32, help="image side the 8x8 digits are scaled to")
    ap.add_argument("--train-images", type=int, metavar="N", help="train on only the first N training digits")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checkpoint", default="runs/classification-resnet18.ckpt", help="written after every epoch")
    ap.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    ap.add_argument("--test-only", action="store_true", help="evaluate --checkpoint's model and leave")
    ap.add_argument("--stop-after", type=int, metavar="N",
                    help="leave after N epochs of this invocation (an interruption, for trying --resume)")
    return ap.parse_args(argv)


def warmup_cosine(total_steps, warmup):
    """Learning-rate factor: linear warmup, then a cosine decay to zero at total_steps."""
    def factor(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total_steps - warmup))))
    return factor


def accuracy(logits, labels, topk=(1, 5)):
    """How many of the labels are among each row's top-k logits, for each k."""
    top = logits.topk(max(topk), dim=1).indices
    hits = top == labels.unsqueeze(1)
    return [int(hits[:, :k].any(dim=1).sum()) for k in topk]


def evaluate(model, loader):
    """Held-out loss, acc@1 and acc@5 (percent)."""
    model.eval()
    correct1 = correct5 = seen = 0
    loss = 0.0
    bar = ProgressBar(len(loader), "held-out")
    with ember.no_grad():
        for images, labels in loader:
            logits = model(images)
            loss += float(F.cross_entropy(logits, labels, reduction="sum"))
            c1, c5 = accuracy(logits, labels)
            correct1, correct5, seen = correct1 + c1, correct5 + c5, seen + len(labels)
            bar.update(acc1=100.0 * correct1 / seen)
    return {"loss": loss / seen, "acc1": 100.0 * correct1 / seen, "acc5": 100.0 * correct5 / seen}


def build(args, steps_per_epoch):
    ember.manual_seed(args.seed)
    model = embervision.models.get_model(args.model, num_classes=NUM_CLASSES)
    optimizer = ember.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, nesterov=True,
                                weight_decay=args.weight_decay)
    scheduler = ember.optim.lr_scheduler.LambdaLR(
        optimizer, warmup_cosine(args.epochs * steps_per_epoch, args.lr_warmup_epochs * steps_per_epoch))
    return model, optimizer, scheduler


def train(args):
    started = time.perf_counter()
    train_idx, test_idx = split_indices(args.seed)
    train_idx = train_idx[:args.train_images]
    train_set = DigitImages(train_idx, args.size, augment=True, seed=args.seed)
    test_loader = DataLoader(DigitImages(test_idx, args.size), batch_size=256)
    model, optimizer, scheduler = build(args, math.ceil(len(train_set) / args.batch_size))
    first_epoch = 0
    if args.resume or args.test_only:
        state = ember.load(args.checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        ember.set_rng_state(state["rng"])
        first_epoch = state["epoch"]
        print(f"loaded {args.checkpoint} (after epoch {first_epoch})")
    if not args.test_only:
        print(f"{args.model} on {len(train_set)} training digits at {args.size}x{args.size}; "
              f"held-out: {len(test_idx)} other digits")
    metrics = None
    for epoch in range(first_epoch, 0 if args.test_only else args.epochs):
        if args.stop_after is not None and epoch - first_epoch >= args.stop_after:
            print(f"stopping after epoch {epoch} (--stop-after); resume with --resume")
            return model, None
        # Epoch e's order and augmentation depend only on (seed, e): a resumed run sees the same batches.
        train_set.set_epoch(epoch)
        loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                            generator=ember.Generator().manual_seed(args.seed * 1000 + epoch))
        model.train()
        bar = ProgressBar(len(loader), f"epoch {epoch + 1:2}/{args.epochs}")
        running = correct = seen = 0
        for images, labels in loader:
            logits = model(images)
            loss = F.cross_entropy(logits, labels, label_smoothing=args.label_smoothing)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += float(loss) * len(labels)
            correct, seen = correct + accuracy(logits, labels, (1,))[0], seen + len(labels)
            bar.update(loss=running / seen, acc1=100.0 * correct / seen, lr=scheduler.get_last_lr()[0])
        save_checkpoint(args.checkpoint, {"epoch": epoch + 1, "model": model.state_dict(),
                                          "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                                          "rng": ember.get_rng_state()})
        metrics = evaluate(model, test_loader)
        print(f"epoch {epoch + 1}: held-out acc@1 {metrics['acc1']:.2f} acc@5 {metrics['acc5']:.2f} "
              f"loss {metrics['loss']:.4f}")
    if metrics is None:
        metrics = evaluate(model, test_loader)
    print(f"held-out acc@1: {metrics['acc1']:.2f}  acc@5: {metrics['acc5']:.2f}  ({len(test_idx)} digits) in "
          f"{time.perf_counter() - started:.0f}s; checkpoint: {args.checkpoint}")
    return model, metrics


def main(argv=None):
    return run_interruptible(train, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
