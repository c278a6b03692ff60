"""What the espeak-ng speech recipes' training scripts (speech_separation, vocoder) share: their common
command-line options, the learning-rate schedule, and the epoch loop around each recipe's own loss: fresh random
batches per (seed, epoch), gradient clipping, a checkpoint after every epoch, resuming and stopping early."""
import math
import random

import ember
from checkpoint import save_checkpoint
from progress import ProgressBar


def add_corpus_options(ap, data, data_help, per_voice, test_per_voice, steps, steps_help):
    """The speech folder, how much speech, and the epochs of updates (the options every recipe opens with)."""
    ap.add_argument("--data", default=data, help=data_help)
    ap.add_argument("--per-voice", type=int, default=per_voice, help="training utterances per training voice")
    ap.add_argument("--test-per-voice", type=int, default=test_per_voice, help="utterances per held-out voice")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--steps", type=int, default=steps, help=steps_help)
    ap.add_argument("--batch-size", type=int, default=8)


def add_schedule_options(ap, warmup_help=None):
    ap.add_argument("--lr", type=float, default=2e-3, help="peak learning rate (warm-up, then cosine decay)")
    ap.add_argument("--warmup", type=int, default=20, help=warmup_help)


def add_run_options(ap, checkpoint):
    """The seed and resuming: checkpoint is the file name under DATA."""
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resume", action="store_true", help=f"continue from DATA/{checkpoint}")
    ap.add_argument("--stop-after", type=int, metavar="N", help="leave after N epochs of this invocation")


def learning_rate(peak, step, total, warmup):
    """Linear warm-up, then cosine decay to a tenth of the peak: a function of the update count alone, so a
    resumed run follows the same schedule."""
    cosine = 0.55 + 0.45 * math.cos(math.pi * min(step, total) / total)
    return peak * min(1.0, (step + 1) / warmup) * cosine


def resume(ckpt, model, optimizer):
    """Loads the model and optimizer from ckpt; returns (history, epochs already done)."""
    state = ember.load(ckpt)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    print(f"resumed after epoch {state['epoch']}")
    return state["history"], state["epoch"]


def train_epoch(model, optimizer, args, epoch, batch_loss, max_norm, shown):
    """One epoch of args.steps updates at the schedule's learning rate, each on batch_loss(rng) (rng: the epoch's
    random.Random, so each epoch's batches depend only on (seed, epoch)), with gradients clipped to max_norm. The
    progress bar shows shown(mean loss so far) (a dict); returns the summed loss."""
    model.train()
    rng = random.Random(args.seed * 1000 + epoch)
    bar = ProgressBar(args.steps, f"epoch {epoch + 1}/{args.epochs}")
    total_steps = args.epochs * args.steps
    total = 0.0
    for step in range(args.steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(args.lr, epoch * args.steps + step, total_steps, args.warmup)
        loss = batch_loss(rng)
        optimizer.zero_grad()
        loss.backward()
        ember.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        total += loss.item()
        bar.update(**shown(total / (step + 1)))
    return total


def end_epoch(ckpt, model, optimizer, history, epoch, args, run_epochs):
    """Checkpoints the finished epoch; True when --stop-after says this invocation stops here (and says so)."""
    save_checkpoint(ckpt, {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch + 1,
                           "history": history})
    if args.stop_after is not None and run_epochs >= args.stop_after and epoch + 1 < args.epochs:
        print("stopping early (--stop-after): resume with --resume")
        return True
    return False
