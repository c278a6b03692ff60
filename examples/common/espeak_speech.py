"""Speech the machine can make: random sentences spoken by espeak-ng in chosen voices, rendered once into a
cache folder (a manifest beside the WAV files, kept while the jobs are unchanged), and loaded as mono waveforms
at a chosen sample rate (also cached). Shared by the separation and vocoder recipes."""
import hashlib
import json
import os
import random
import shutil
import subprocess

import ember
import emberaudio
from emberaudio import functional as AF
from progress import ProgressBar

ESPEAK_RATE = 22050  # espeak-ng's output rate

WORDS = """the a one two three four five six seven eight nine ten red green blue yellow black white small large old new
happy quiet loud early late dog cat bird horse fish tree river mountain city garden window door table chair book
letter music song light water fire stone road bridge market station morning evening winter summer friend teacher
doctor farmer driver singer child mother father sister brother walks runs sings reads writes opens closes finds
carries builds paints watches follows calls plays remembers forgets quickly slowly gently often never always today
tomorrow yesterday near under over behind beside through across into with without and but because while after
before again""".split()


def random_sentence(rng, min_words=5, max_words=9):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(min_words, max_words)))


def distinct_sentences(rng, count, exclude=(), min_words=5, max_words=9):
    """`count` different sentences, none of them in `exclude` (held-out text is never trained on)."""
    out, seen = [], set(exclude)
    while len(out) < count:
        s = random_sentence(rng, min_words, max_words)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def espeak_binary():
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed: `make setup` installs it (or apt-get install espeak-ng)")
    return exe


def speaking_jobs(voices_and_sentences, seed):
    """[(voice, sentence, split)] -> job dicts with a random speed (words/min) and pitch per utterance."""
    rng = random.Random(seed)
    return [dict(voice=v, text=t, split=s, speed=rng.randint(140, 190), pitch=rng.randint(30, 70))
            for v, t, s in voices_and_sentences]


def split_jobs(train_voices, test_voices, per_voice, test_per_voice, seed):
    """espeak-ng jobs: each training voice speaks `per_voice` training sentences, each held-out voice
    `test_per_voice` sentences that no training utterance uses."""
    rng = random.Random(seed)
    train_text = distinct_sentences(rng, per_voice * len(train_voices))
    test_text = distinct_sentences(rng, test_per_voice * len(test_voices), exclude=train_text)
    triples = [(v, train_text[i * per_voice + k], "train") for i, v in enumerate(train_voices)
               for k in range(per_voice)]
    triples += [(v, test_text[i * test_per_voice + k], "test") for i, v in enumerate(test_voices)
                for k in range(test_per_voice)]
    return speaking_jobs(triples, seed)


def render(folder, jobs, progress=None):
    """Writes each job as folder/NNNNN.wav unless the manifest already holds these exact jobs; returns the jobs
    with their file name under "file"."""
    tag = hashlib.sha256(json.dumps(jobs, sort_keys=True).encode()).hexdigest()[:16]
    manifest = os.path.join(folder, "manifest.json")
    if os.path.exists(manifest):
        with open(manifest, encoding="utf-8") as f:
            stored = json.load(f)
        if stored.get("tag") == tag:
            return stored["rows"]
    os.makedirs(folder, exist_ok=True)
    exe = espeak_binary()
    rows = []
    for i, job in enumerate(jobs):
        name = f"{i:05d}.wav"
        subprocess.run([exe, "-v", job["voice"], "-s", str(job["speed"]), "-p", str(job["pitch"]), "-w",
                        os.path.join(folder, name), job["text"]], check=True, capture_output=True)
        rows.append(dict(job, file=name))
        if progress is not None:
            progress.update()
    with open(manifest + ".tmp", "w", encoding="utf-8") as f:
        json.dump({"tag": tag, "rows": rows}, f)
    os.replace(manifest + ".tmp", manifest)
    return rows


def trim_silence(wave, threshold=1e-3, margin=160):
    """Drops leading and trailing samples quieter than `threshold`, keeping `margin` samples either side."""
    loud = (wave.abs() > threshold).nonzero()
    if loud.numel() == 0:
        return wave
    start = max(int(loud[0, 0]) - margin, 0)
    end = min(int(loud[-1, 0]) + margin + 1, wave.shape[0])
    return wave[start:end].clone()


def load_waves(folder, rows, rate, progress=None):
    """{file name: 1-D float32 waveform at `rate`, silence trimmed}, cached in folder/waves-RATE.pt (with the rows it
    was made from: speech rendered again under the same names is loaded again)."""
    cache = os.path.join(folder, f"waves-{rate}.pt")
    key = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]
    if os.path.exists(cache):
        stored = ember.load(cache)
        if stored.get("key") == key:
            return stored["waves"]
    out = {}
    for row in rows:
        wave, file_rate = emberaudio.load(os.path.join(folder, row["file"]))
        if file_rate != rate:
            wave = AF.resample(wave, file_rate, rate)
        out[row["file"]] = trim_silence(wave[0])
        if progress is not None:
            progress.update()
    ember.save({"key": key, "waves": out}, cache + ".tmp")
    os.replace(cache + ".tmp", cache)
    return out


def rendered_waves(folder, jobs, rate):
    """render then load_waves, with a progress bar for each: (the rows, {file name: waveform at rate})."""
    rows = render(folder, jobs, progress=ProgressBar(len(jobs), "espeak-ng"))
    return rows, load_waves(folder, rows, rate, progress=ProgressBar(len(rows), f"resample to {rate} Hz"))
