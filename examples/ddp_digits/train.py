"""The digits CNN trained with DistributedDataParallel on several processes, through the elastic launcher.

    python -m ember.distributed.run --nproc_per_node 2 --max_restarts 3 examples/ddp_digits/train.py
    emberrun --standalone --nproc_per_node 2 examples/ddp_digits/train.py --sync-bn --epochs 10

Each rank trains on its DistributedSampler share of scikit-learn's 8x8 digits (the digits recipe's data,
split and model); DDP averages the gradients. After every epoch rank 0 writes a checkpoint (model,
optimizer, scheduler, epoch), and a run that starts finds it and carries on from there: when a worker
dies, the launcher restarts the group, which resumes from the last finished epoch. Every random draw is
a function of (seed, epoch, rank), so a run interrupted and resumed ends with exactly the weights and
accuracy of one that never was."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "digits"))  # the digits recipe's data and model
sys.path.insert(0, str(HERE.parent / "common"))  # progress, checkpoint

import ember  # noqa: E402
import ember.distributed as dist  # noqa: E402
import ember.nn as nn  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from ember.nn.parallel import DistributedDataParallel  # noqa: E402
from ember.utils.data import DataLoader, DistributedSampler, TensorDataset, random_split  # noqa: E402

from checkpoint import save_checkpoint  # noqa: E402
from data import load_digits  # noqa: E402
from model import small_cnn  # noqa: E402
from progress import ProgressBar  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=32, help="per rank")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sync-bn", action="store_true", help="batch-norm statistics over all ranks (SyncBatchNorm)")
    ap.add_argument("--checkpoint", default="runs/ddp-digits.ckpt", help="written after every epoch, resumed from")
    ap.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint (first attempt only)")
    ap.add_argument("--results", default=None, help="rank 0 writes the final figures here (JSON)")
    return ap.parse_args(argv)


def datasets(seed: int):
    """The digits recipe's split: 80% train, 20% test, standardized by the training set."""
    x, y = load_digits()
    train_idx, test_idx = random_split(range(len(y)), [0.8, 0.2], generator=ember.Generator().manual_seed(seed))
    tr, te = (ember.tensor(part.indices, dtype=ember.int64) for part in (train_idx, test_idx))
    mean, std = x[tr].mean(), x[tr].std()
    return TensorDataset((x[tr] - mean) / std, y[tr]), TensorDataset((x[te] - mean) / std, y[te])


def evaluate(model, dataset) -> float:
    model.eval()
    with ember.no_grad():
        x, y = dataset.tensors
        return float((model(x).argmax(1) == y).float().mean())


def train(args) -> float:
    started = time.perf_counter()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    checkpoint = pathlib.Path(args.checkpoint)
    if args.fresh and restart == 0 and rank == 0 and checkpoint.exists():
        checkpoint.unlink()
    dist.barrier()  # nobody reads the checkpoint before rank 0 has decided whether it stays

    train_set, test_set = datasets(args.seed)
    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    ember.manual_seed(args.seed)
    model = small_cnn()
    if args.sync_bn:
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    ddp = DistributedDataParallel(model)
    optimizer = ember.optim.Adam(ddp.parameters(), lr=args.lr)
    scheduler = ember.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                                    steps_per_epoch=len(loader))
    first_epoch = 0
    if checkpoint.exists():
        state = ember.load(checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        first_epoch = state["epoch"]
        if rank == 0:
            print(f"resumed from {checkpoint} after epoch {first_epoch} (restart {restart})", flush=True)
    if rank == 0:
        print(f"{world} ranks, {len(train_set)} training images ({len(loader)} batches of {args.batch_size} per "
              f"rank per epoch), {len(test_set)} test images", flush=True)
    for epoch in range(first_epoch, args.epochs):
        sampler.set_epoch(epoch)
        ember.manual_seed(args.seed * 100_003 + epoch * 101 + rank)  # dropout: a function of (epoch, rank)
        ddp.train()
        bar = ProgressBar(len(loader), f"epoch {epoch + 1:2}/{args.epochs}") if rank == 0 else None
        running = 0.0
        for step, (x, y) in enumerate(loader, 1):
            loss = F.cross_entropy(ddp(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += float(loss)
            if bar is not None:
                bar.update(loss=running / step)
        if rank == 0:
            save_checkpoint(checkpoint, {"epoch": epoch + 1, "model": model.state_dict(),
                                         "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()})
        dist.barrier()  # the epoch's checkpoint is on disk before any rank goes on
    accuracy = evaluate(model, test_set)
    if rank == 0:
        elapsed = time.perf_counter() - started
        print(f"test accuracy: {100 * accuracy:.2f}% after {args.epochs} epochs on {world} ranks "
              f"({elapsed:.1f} s in this attempt, restart {restart}); checkpoint: {checkpoint}", flush=True)
        if args.results:
            pathlib.Path(args.results).write_text(json.dumps({
                "accuracy": accuracy, "epochs": args.epochs, "world_size": world, "restarts": restart,
                "params_checksum": float(sum(p.double().abs().sum() for p in model.parameters()))}))
    dist.destroy_process_group()
    return accuracy


def main(argv=None) -> int:
    train(parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
