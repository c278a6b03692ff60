"""Speech recognition recipe: Wav2Letter trained with CTC on digits and short commands spoken by espeak-ng.

    python examples/speech_digits/train.py            # generate the corpus once, train, report WER
    python examples/speech_digits/train.py --resume   # carry on from the last epoch's checkpoint

Held-out figures: word error rate on sentences never heard in training (voices seen in training) and on a
voice never heard at all, by greedy and beam-search CTC decoding."""
from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from emberaudio.models.decoder import ctc_decoder, ctc_greedy_decode  # noqa: E402

import corpus  # noqa: E402
import features  # noqa: E402
from small_wav2letter import SmallWav2Letter  # noqa: E402
from report import word_errors, write_figure  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="runs/speech_digits", help="corpus, feature cache and checkpoint folder")
    ap.add_argument("--per-voice", type=int, default=300, help="utterances per training voice")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate (warm-up, then cosine decay)")
    ap.add_argument("--warmup", type=int, default=50, help="warm-up updates")
    ap.add_argument("--channels", type=int, default=128, help="width of the front and stacked convolutions")
    ap.add_argument("--hidden", type=int, default=256, help="width of the wide and 1x1 convolutions")
    ap.add_argument("--hop", type=int, default=features.HOP, help="feature hop in samples at 16 kHz (640: 25 frames/s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resume", action="store_true", help="continue from DATA/wav2letter.ckpt")
    ap.add_argument("--stop-after", type=int, metavar="N", help="leave after N epochs of this invocation")
    return ap.parse_args(argv)


class Progress:
    """One line, redrawn in place on a terminal; on a log only each pass's last line."""

    def __init__(self, label, total):
        self.label, self.total, self.live = label, total, sys.stderr.isatty()
        self.start = time.perf_counter()

    def __call__(self, done, total=None, **info):
        if self.live or done >= self.total:
            bar = "#" * (30 * done // max(self.total, 1))
            extra = " ".join(f"{k} {v:.3f}" for k, v in info.items())
            lead, end = ("\r" if self.live else ""), ("\n" if done >= self.total else "")
            line = f"{self.label} [{bar:<30}] {done}/{self.total} {time.perf_counter() - self.start:5.1f}s {extra}"
            sys.stderr.write(lead + line + end)
            sys.stderr.flush()


def batches(items, batch_size, rng):
    """Length-sorted batches (little padding) in random order."""
    order = sorted(items, key=lambda it: it[0].shape[1])
    groups = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(groups)
    return groups


def collate(group):
    """(features (batch, mels, frames) zero-padded, input frames, padded token ids, token counts)."""
    frames = max(f.shape[1] for f, _ in group)
    x = ember.zeros(len(group), features.N_MELS, frames)
    for i, (f, _) in enumerate(group):
        x[i, :, : f.shape[1]] = f
    targets = [t for _, t in group]
    padded = ember.zeros(len(group), max(len(t) for t in targets), dtype=ember.int64)
    for i, t in enumerate(targets):
        padded[i, : len(t)] = ember.tensor(t)
    return x, ember.tensor([f.shape[1] for f, _ in group]), padded, ember.tensor([len(t) for t in targets])


def emissions(model, items, batch_size=32):
    """(log-probabilities (batch, frames, tokens), valid frames) per chunk of items, in order."""
    model.eval()
    out = []
    with ember.no_grad():
        for i in range(0, len(items), batch_size):
            x, frames, _, _ = collate(items[i:i + batch_size])
            out.append((model(x, frames).transpose(1, 2), model.output_frames(frames)))
    return out


def evaluate(model, items, beam):
    """(greedy WER, beam WER) over items (features, token ids)."""
    items = sorted(items, key=lambda it: it[0].shape[1])  # batches of similar lengths: little zero padding
    errors = {"greedy": 0, "beam": 0}
    words = 0
    k = 0
    for logp, lengths in emissions(model, items):
        greedy = ctc_greedy_decode(logp, lengths)
        beams = beam(logp, lengths)
        for g, b in zip(greedy, beams):
            ref = corpus.decode(items[k][1])
            errors["greedy"] += word_errors(ref, corpus.decode(g))
            errors["beam"] += word_errors(ref, corpus.decode(b[0].tokens))
            words += len(ref)
            k += 1
    return errors["greedy"] / words, errors["beam"] / words


def init_for_relu(model, logit_bias=5.0, logit_scale=0.1):
    """He initialisation of every convolution: with PyTorch's default (uniform, a=sqrt(5)) the signal shrinks
    about 2x per layer through Wav2Letter's stack of ReLU convolutions. The last convolution feeds a ReLU before
    the softmax: a class whose logit is pushed below zero gets no gradient there again, and once every word's
    logit is zero only blank can win (CTC's blank-only plateau). A large shared bias keeps every logit in the
    ReLU's linear range (the softmax ignores the shift) and small weights start the output near uniform."""
    convs = [m for m in model.modules() if isinstance(m, ember.nn.Conv1d)]
    for conv in convs:
        ember.nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
        ember.nn.init.zeros_(conv.bias)
    with ember.no_grad():
        convs[-1].weight.mul_(logit_scale)
        convs[-1].bias.fill_(logit_bias)


def learning_rate(peak, step, total, warmup):
    """Linear warm-up to `peak` over `warmup` updates, then a cosine decay to zero at `total`: a function of the
    update count alone, so a resumed run follows the same schedule."""
    return peak * min(1.0, (step + 1) / warmup) * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))


def save_checkpoint(path, state):
    ember.save(state, str(path) + ".tmp")
    os.replace(str(path) + ".tmp", path)


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    data = pathlib.Path(args.data)
    rows = corpus.generate(str(data / "corpus"), per_voice=args.per_voice, seed=args.seed,
                           progress=Progress("espeak-ng", len(corpus.TRAIN_VOICES) * args.per_voice + 60))
    feats = features.load_or_compute(str(data / "corpus"), rows, progress=Progress("features", len(rows)),
                                     hop=args.hop)
    split = {s: [(feats[name], corpus.encode(text)) for name, text, _, kind in rows if kind == s]
             for s in ("train", "test", "unseen")}
    print(f"corpus: {len(split['train'])} training, {len(split['test'])} held-out-sentence and "
          f"{len(split['unseen'])} unseen-voice utterances, {len(corpus.TOKENS) - 1} words")

    ember.manual_seed(args.seed)
    model = SmallWav2Letter(len(corpus.TOKENS), features.N_MELS, channels=args.channels, hidden=args.hidden)
    init_for_relu(model)
    print(f"model: {sum(p.numel() for p in model.parameters()):,} parameters")
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)
    history, start_epoch = [], 0
    ckpt = data / "wav2letter.ckpt"
    if args.resume and ckpt.exists():
        state = ember.load(ckpt)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        history, start_epoch = state["history"], state["epoch"]
        ember.set_rng_state(state["rng"])
        print(f"resumed after epoch {start_epoch}")
    beam = ctc_decoder(None, corpus.TOKENS, beam_size=8)
    run_epochs = 0
    for epoch in range(start_epoch, args.epochs):
        model.train()
        # each epoch's batch order depends only on (seed, epoch): a resumed run sees the same batches
        groups = batches(split["train"], args.batch_size, random.Random(args.seed * 1000 + epoch))
        bar = Progress(f"epoch {epoch + 1}/{args.epochs}", len(groups))
        total = 0.0
        for step, group in enumerate(groups, 1):
            for param_group in optimizer.param_groups:
                param_group["lr"] = learning_rate(args.lr, epoch * len(groups) + step - 1, args.epochs * len(groups),
                                                  args.warmup)
            x, frames, targets, target_lengths = collate(group)
            logp = model(x, frames).permute(2, 0, 1)  # (frames, batch, tokens)
            loss = F.ctc_loss(logp, targets, model.output_frames(frames), target_lengths, blank=0, zero_infinity=True)
            optimizer.zero_grad()
            loss.backward()
            ember.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            total += loss.item()
            bar(step, loss=total / step)
        wer = evaluate(model, split["test"], beam)
        history.append({"epoch": epoch + 1, "loss": total / len(groups), "test_wer_greedy": wer[0],
                        "test_wer_beam": wer[1], "minutes": (time.perf_counter() - started) / 60})
        print(f"epoch {epoch + 1}: loss {total / len(groups):.3f}, held-out WER {100 * wer[0]:.1f}% (greedy) "
              f"{100 * wer[1]:.1f}% (beam)")
        save_checkpoint(ckpt, {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch + 1,
                               "history": history, "rng": ember.get_rng_state()})
        run_epochs += 1
        if args.stop_after is not None and run_epochs >= args.stop_after and epoch + 1 < args.epochs:
            print("stopping early (--stop-after): resume with --resume")
            return history
    unseen = evaluate(model, split["unseen"], beam)
    result = {"history": history, "unseen_voice_wer_greedy": unseen[0], "unseen_voice_wer_beam": unseen[1],
              "minutes": (time.perf_counter() - started) / 60}
    (data / "results.json").write_text(json.dumps(result, indent=1))
    write_figure(history, unseen, data / "wer.svg")
    print(f"held-out sentences WER {100 * history[-1]['test_wer_greedy']:.1f}% greedy, "
          f"{100 * history[-1]['test_wer_beam']:.1f}% beam; unseen voice WER {100 * unseen[0]:.1f}% greedy, "
          f"{100 * unseen[1]:.1f}% beam; {result['minutes']:.1f} min")
    return result


if __name__ == "__main__":
    main()
