"""The detection recipe (as torchvision's references/detection): Faster R-CNN with a ResNet-18 FPN backbone,
trained from random initialization to find and read handwritten digits placed on canvases.

    python examples/detection/train.py              # train, then report the held-out mAP (the README's figure)
    python examples/detection/train.py --resume     # carry on from the checkpoint
    python examples/detection/train.py --eval-only  # evaluate the checkpoint

Every epoch draws fresh training canvases from the training digits; the held-out canvases use digit images
never seen in training. A checkpoint (model, optimizer, scheduler, epoch, random state) is written after
every epoch, so a run interrupted and resumed ends with the same weights as one that was never interrupted."""
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
from ember.utils.data import DataLoader  # noqa: E402

from coco_eval import coco_summary  # noqa: E402
from digit_canvases import NUM_CLASSES, DigitCanvases, collate, split_digits  # noqa: E402
from digit_detector import digit_detector  # noqa: E402
from checkpoint import run_interruptible, save_checkpoint  # noqa: E402
from progress import ProgressBar  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--canvases", type=int, default=320, help="training canvases per epoch (drawn afresh)")
    ap.add_argument("--test-canvases", type=int, default=200)
    ap.add_argument("--canvas", type=int, default=96, help="canvas side in pixels")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=30, help="steps of linear learning-rate warmup")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checkpoint", default="runs/detection-frcnn.ckpt", help="written after every epoch")
    ap.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    ap.add_argument("--eval-only", action="store_true", help="evaluate --checkpoint's model and leave")
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


def evaluate(model, loader):
    """COCO-style mAP of the model's detections over a loader's canvases."""
    model.eval()
    detections, truths = [], []
    bar = ProgressBar(len(loader), "held-out")
    with ember.no_grad():
        for images, targets in loader:
            detections.extend(model(images))
            truths.extend(targets)
            bar.update()
    return coco_summary(detections, truths)


def build(args):
    ember.manual_seed(args.seed)
    model = digit_detector(NUM_CLASSES, canvas=args.canvas)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = ember.optim.AdamW(params, lr=args.lr, weight_decay=1e-4)
    steps_per_epoch = math.ceil(args.canvases / args.batch_size)
    scheduler = ember.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine(args.epochs * steps_per_epoch,
                                                                           args.warmup))
    return model, optimizer, scheduler


def train(args):
    started = time.perf_counter()
    model, optimizer, scheduler = build(args)
    train_pool, test_pool = split_digits(args.seed)
    test_set = DigitCanvases(test_pool, args.test_canvases, seed=10_000 + args.seed, canvas=args.canvas)
    test_loader = DataLoader(test_set, batch_size=16, collate_fn=collate)
    first_epoch = 0
    if args.resume or args.eval_only:
        state = ember.load(args.checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        ember.set_rng_state(state["rng"])
        first_epoch = state["epoch"]
        print(f"loaded {args.checkpoint} (after epoch {first_epoch})")
    if not args.eval_only:
        print(f"training on {args.canvases} fresh canvases per epoch from {len(train_pool)} digit images; "
              f"held-out: {len(test_set)} canvases from {len(test_pool)} other digit images")
    for epoch in range(first_epoch, 0 if args.eval_only else args.epochs):
        if args.stop_after is not None and epoch - first_epoch >= args.stop_after:
            print(f"stopping after epoch {epoch} (--stop-after); resume with --resume")
            return model, None
        # Epoch e's canvases depend only on (seed, e): a resumed run sees the same ones.
        train_set = DigitCanvases(train_pool, args.canvases, seed=args.seed * 1000 + epoch, canvas=args.canvas)
        loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, collate_fn=collate,
                            generator=ember.Generator().manual_seed(args.seed * 1000 + epoch))
        model.train()
        bar = ProgressBar(len(loader), f"epoch {epoch + 1:2}/{args.epochs}")
        running = 0.0
        for step, (images, targets) in enumerate(loader, 1):
            losses = model(images, targets)
            loss = sum(losses.values())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += float(loss)
            bar.update(loss=running / step, cls=float(losses["loss_classifier"]), lr=scheduler.get_last_lr()[0])
        save_checkpoint(args.checkpoint, {"epoch": epoch + 1, "model": model.state_dict(),
                                          "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                                          "rng": ember.get_rng_state()})
    summary = evaluate(model, test_loader)
    print(f"held-out mAP@0.5: {100 * summary['map50']:.1f}  mAP@[0.5:0.95]: {100 * summary['map']:.1f}  "
          f"({len(test_set)} canvases) in {time.perf_counter() - started:.0f}s; checkpoint: {args.checkpoint}")
    return model, summary


def main(argv=None):
    return run_interruptible(train, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
