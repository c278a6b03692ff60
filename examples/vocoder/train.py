"""Vocoder recipe (as torchaudio's WaveRNN pipeline): WaveRNN trained to predict each sample's 8-bit mu-law class
from the previous sample and the mel spectrogram of espeak-ng speech, then generating waveforms sample by sample.

    python examples/vocoder/train.py            # speech (once), train, vocode held-out speech, compare
    python examples/vocoder/train.py --resume   # carry on from the last epoch's checkpoint
    python examples/vocoder/train.py --eval-only  # vocode the held-out speech again with the checkpoint

Held-out figure: the log-mel distance (dB, over the loudest 60 dB of each utterance's mel) between a held-out
utterance's mel spectrogram and the mel spectrogram of the audio generated from it, beside Griffin-Lim (32
iterations on the least-squares inverse of the mel scale) on the same mel. Held-out utterances are voices never
heard in training speaking sentences never heard in training."""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import random
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "common"))  # progress bar, checkpoints, espeak-ng speech

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
import emberaudio  # noqa: E402
from emberaudio import transforms as T  # noqa: E402
from emberaudio.models import WaveRNN  # noqa: E402

import espeak_speech  # noqa: E402
import vocoder_data as vd  # noqa: E402
import recipe_training as rt  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rt.add_corpus_options(ap, "runs/vocoder", "speech, checkpoint, results and sample folder", per_voice=25,
                          test_per_voice=2, steps=120, steps_help="updates per epoch (random windows each)")
    ap.add_argument("--frames", type=int, default=5, help="mel frames per window (seq_len_factor)")
    rt.add_schedule_options(ap)
    ap.add_argument("--rnn", type=int, default=64, help="GRU width (n_rnn)")
    ap.add_argument("--fc", type=int, default=64, help="fully connected width (n_fc)")
    ap.add_argument("--res-blocks", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=32, help="MelResNet channels (n_hidden = n_output)")
    ap.add_argument("--test-seconds", type=float, default=1.5, help="held-out audio generated per utterance")
    ap.add_argument("--gl-iters", type=int, default=32, help="Griffin-Lim iterations of the baseline")
    rt.add_run_options(ap, "wavernn.ckpt")
    ap.add_argument("--eval-only", action="store_true", help="only vocode the held-out speech with DATA/wavernn.ckpt")
    return ap.parse_args(argv)


def build_model(args):
    return WaveRNN(upsample_scales=vd.UPSAMPLE_SCALES, n_classes=2**vd.N_BITS, hop_length=vd.HOP,
                   n_res_block=args.res_blocks, n_rnn=args.rnn, n_fc=args.fc, kernel_size=5, n_freq=vd.N_MELS,
                   n_hidden=args.hidden, n_output=args.hidden)


def load_features(args, data):
    jobs = vd.corpus_jobs(args.per_voice, args.test_per_voice, args.seed)
    rows, waves = espeak_speech.rendered_waves(str(data / "speech"), jobs, vd.RATE)
    feats = vd.utterance_features(waves)
    split = {"train": [], "test": []}
    for r in rows:
        split[r["split"]].append(feats[r["file"]])
    return split


def held_out_nll(model, items, args, pad):
    """Teacher-forced cross-entropy (bits per sample) on fixed windows of the held-out utterances."""
    mels, inputs, targets = vd.training_batch(items, 4 * len(items), args.frames, pad, random.Random(args.seed + 1))
    model.eval()
    with ember.no_grad():
        logits = model(inputs, mels).squeeze(1)
    return F.cross_entropy(logits.transpose(1, 2), targets).item() / math.log(2)


TOP_DB = 60  # the held-out figure compares the loudest 60 dB of each utterance's mel


def vocode_held_out(model, items, args):
    """Generates the first test-seconds of each held-out utterance from its mel with WaveRNN and with Griffin-Lim;
    returns (figures, (reference mels, WaveRNN audio, Griffin-Lim audio, the original through 8-bit mu-law)).
    The original's own mu-law-quantised audio is the floor a perfect 8-bit WaveRNN would reach."""
    frames = min(int(args.test_seconds * vd.RATE / vd.HOP), min(m.shape[1] for m, _ in items))
    mels = ember.stack([m[:, :frames] for m, _ in items])  # (batch, n_mels, frames), normalised
    quantised = ember.stack([vd.unit_to_waveform(vd.classes_to_unit(lab[:frames * vd.HOP])) for _, lab in items])
    ember.manual_seed(args.seed)  # generation samples each class: fixed draws, repeatable figures
    model.eval()
    unit, _ = model.infer(mels)
    generated = vd.unit_to_waveform(unit[:, 0])
    inverse_mel = T.InverseMelScale(n_stft=vd.N_FFT // 2 + 1, n_mels=vd.N_MELS, sample_rate=vd.RATE, f_min=vd.F_MIN,
                                    norm="slaney", mel_scale="slaney")
    griffin_lim = T.GriffinLim(n_fft=vd.N_FFT, win_length=vd.WIN, hop_length=vd.HOP, power=1.0, n_iter=args.gl_iters)
    with ember.no_grad():
        baseline = griffin_lim(inverse_mel(vd.denormalize_db(mels)))
        mel = vd.mel_transform()
        gen_mels = vd.normalize_db(mel(generated))[..., :frames]
        gl_mels = vd.normalize_db(mel(baseline))[..., :frames]
        floor_mels = vd.normalize_db(mel(quantised))[..., :frames]
    figures = {"held_out_seconds": frames * vd.HOP / vd.RATE, "held_out_utterances": len(items)}
    for name, out in (("wavernn", gen_mels), ("griffinlim", gl_mels), ("mulaw_original", floor_mels)):
        per_item = [vd.log_mel_distance_db(mels[i], out[i], top_db=TOP_DB) for i in range(len(items))]
        figures[f"{name}_log_mel_distance_db"] = sum(per_item) / len(per_item)
        figures[f"{name}_per_utterance_db"] = per_item
        figures[f"{name}_full_range_log_mel_distance_db"] = vd.log_mel_distance_db(mels, out)
    return figures, (mels, generated, baseline, quantised)


def write_samples(folder, waves):
    """The first held-out utterance as heard (8-bit mu-law), vocoded by WaveRNN and by Griffin-Lim."""
    _, generated, baseline, quantised = waves
    folder.mkdir(parents=True, exist_ok=True)
    emberaudio.save(str(folder / "original.wav"), quantised[:1], vd.RATE)
    emberaudio.save(str(folder / "wavernn.wav"), generated[:1].clamp(-1, 1), vd.RATE)
    emberaudio.save(str(folder / "griffinlim.wav"), (baseline[:1] / max(float(baseline.abs().max()), 1.0)), vd.RATE)


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    data = pathlib.Path(args.data)
    split = load_features(args, data)
    pad = (5 - 1) // 2  # WaveRNN's kernel_size 5 eats this many mel frames each side
    train_items = [it for it in split["train"] if it[0].shape[1] > args.frames + 2 * pad]
    print(f"speech: {len(train_items)} training utterances ({len(vd.TRAIN_VOICES)} voices), {len(split['test'])} "
          f"held-out ({len(vd.TEST_VOICES)} other voices, other sentences)")

    ember.manual_seed(args.seed)
    model = build_model(args)
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)
    history, start_epoch = [], 0
    ckpt = data / "wavernn.ckpt"
    if args.eval_only and not ckpt.exists():
        raise FileNotFoundError(f"--eval-only needs a checkpoint: {ckpt} does not exist")
    if (args.resume or args.eval_only) and ckpt.exists():
        history, start_epoch = rt.resume(ckpt, model, optimizer)

    def batch_loss(rng):  # random windows
        mels, inputs, targets = vd.training_batch(train_items, args.batch_size, args.frames, pad, rng)
        logits = model(inputs, mels).squeeze(1)  # (batch, samples, classes)
        return F.cross_entropy(logits.transpose(1, 2), targets)

    run_epochs = 0
    for epoch in range(start_epoch, start_epoch if args.eval_only else args.epochs):
        total = rt.train_epoch(model, optimizer, args, epoch, batch_loss, 4.0,
                               lambda mean: {"bits": mean / math.log(2)})
        nll = held_out_nll(model, split["test"], args, pad)
        history.append({"epoch": epoch + 1, "train_bits_per_sample": total / args.steps / math.log(2),
                        "test_bits_per_sample": nll, "minutes": (time.perf_counter() - started) / 60})
        print(f"epoch {epoch + 1}: cross-entropy {total / args.steps / math.log(2):.3f} bits/sample, held-out "
              f"{nll:.3f}")
        run_epochs += 1
        if rt.end_epoch(ckpt, model, optimizer, history, epoch, args, run_epochs):
            return history
    vocode_start = time.perf_counter()
    figures, waves = vocode_held_out(model, split["test"], args)
    write_samples(data / "sample", waves)
    result = {"history": history, **figures, "generation_seconds": time.perf_counter() - vocode_start,
              "parameters": sum(p.numel() for p in model.parameters()),
              "minutes": (time.perf_counter() - started) / 60, "args": vars(args)}
    (data / "results.json").write_text(json.dumps(result, indent=1))
    print(f"held-out log-mel distance: WaveRNN {figures['wavernn_log_mel_distance_db']:.2f} dB, Griffin-Lim "
          f"{figures['griffinlim_log_mel_distance_db']:.2f} dB, the original through 8-bit mu-law "
          f"{figures['mulaw_original_log_mel_distance_db']:.2f} dB ({len(split['test'])} utterances, "
          f"{figures['held_out_seconds']:.2f} s each); {result['minutes']:.1f} min")
    return result


if __name__ == "__main__":
    main()
