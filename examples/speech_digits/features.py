"""Log-mel features at 16000 / HOP frames per second (the network halves that) of each utterance with its
silent ends trimmed, normalised per channel, computed once and cached beside the corpus (one cache per frame
rate)."""
import os

import ember
import emberaudio
from emberaudio import functional as AF
from emberaudio import transforms as T

RATE = 16000
N_MELS = 40
HOP = 640  # samples: 25 frames per second


def extractor(hop=HOP):
    return T.MelSpectrogram(sample_rate=RATE, n_fft=1024, win_length=1024, hop_length=hop, n_mels=N_MELS)


def trim_silence(wave, threshold=0.02, margin=0.08):
    """`wave` (channels, samples) without the silence before and after the speech (espeak-ng ends each utterance
    with about 0.3 s of it, a fifth of the frames), keeping `margin` seconds each side: samples quieter than
    `threshold` times the peak count as silence."""
    loud = (wave.abs().amax(0) > threshold * wave.abs().max()).nonzero()
    if loud.numel() == 0:
        return wave
    keep = int(margin * RATE)
    return wave[:, max(0, int(loud[0]) - keep): int(loud[-1]) + 1 + keep]


def utterance_features(path, mel):
    wave, rate = emberaudio.load(path)
    wave = trim_silence(AF.resample(wave, rate, RATE))
    feats = (mel(wave[0]) + 1e-6).log()  # (n_mels, frames)
    return (feats - feats.mean(1, keepdim=True)) / (feats.std(1, keepdim=True) + 1e-5)


def load_or_compute(folder, rows, progress=None, hop=HOP):
    """{file name: (n_mels, frames) tensor} at a frame every `hop` samples, cached in folder/features-hopN.pt."""
    cache = os.path.join(folder, f"features-hop{hop}-trimmed.pt")
    names = [r[0] for r in rows]
    if os.path.exists(cache):
        stored = ember.load(cache)
        if sorted(stored) == sorted(names):
            return stored
    mel = extractor(hop)
    out = {}
    with ember.no_grad():
        for i, name in enumerate(names):
            out[name] = utterance_features(os.path.join(folder, name), mel)
            if progress is not None:
                progress(i + 1, len(names))
    ember.save(out, cache + ".tmp")
    os.replace(cache + ".tmp", cache)
    return out
