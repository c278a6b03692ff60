"""The spoken corpus: digit strings and short command sentences rendered by espeak-ng in several accents and
voice variants, at random speeds and pitches, generated once into a cache folder (a manifest.tsv beside the
WAV files; kept while the corpus settings are unchanged)."""
import hashlib
import json
import os
import random
import shutil
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEMPLATES = [  # D: a digit word
    "D D D", "D D D D", "D D", "dial D D D", "call number D D", "set timer for D minutes", "turn the light on",
    "turn the light off", "open the door", "close the door", "set timer for D D minutes", "dial D D D D",
]
# accents x variants espeak-ng ships (no MBROLA voices: they need extra data)
TRAIN_VOICES = ["en-us", "en-us+f2", "en-us+m3", "en-gb", "en-gb+f4", "en-gb-scotland", "en-gb-x-rp+m1",
                "en-029", "en-us+klatt", "en-gb+m7"]
UNSEEN_VOICE = "en-gb-x-gbclan+f3"  # never trained on: a speaker-independence check
SAMPLE_RATE = 22050  # espeak-ng's output rate


def vocabulary():
    words = set(DIGITS)
    for t in TEMPLATES:
        words.update(w for w in t.split() if w != "D")
    return sorted(words)


# CTC over words: Wav2Letter's output runs at 12.5 frames/s here (what two shared cores can train in minutes),
# too slow for letters but ample for words
TOKENS = ["-"] + vocabulary()


def encode(text):
    return [TOKENS.index(w) for w in text.split()]


def decode(ids):
    return [TOKENS[i] for i in ids]


def _sentence(rng):
    return " ".join(rng.choice(DIGITS) if w == "D" else w for w in rng.choice(TEMPLATES).split())


def espeak_binary():
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed: `make setup` installs it (or apt-get install espeak-ng)")
    return exe


def _held_out_sentences(jobs, rng, fraction=8):
    """About 1/fraction of the distinct sentences with digits, never heard in training: new combinations of trained
    words. A sentence is held out only if each of its words is still spoken in training without it (holding out a
    fixed command such as "open the door" would test a word never trained on)."""
    trained = [t for voice, t in jobs if voice != UNSEEN_VOICE]
    spoken = Counter(w for t in trained for w in t.split())
    utterances = Counter(trained)
    texts = sorted(t for t in utterances if any(w in DIGITS for w in t.split()))
    rng.shuffle(texts)
    held = set()
    for text in texts:
        if len(held) >= max(1, len(texts) // fraction):
            break
        words = Counter(text.split())
        if all(spoken[w] > n * utterances[text] for w, n in words.items()):
            held.add(text)
            spoken.subtract({w: n * utterances[text] for w, n in words.items()})
    return held


def _render(command):
    subprocess.run(command, check=True, capture_output=True)


def generate(folder, per_voice=150, unseen=60, seed=0, progress=None):
    """Writes the corpus into `folder` unless a manifest with the same settings is there; returns the rows
    (path, text, voice, split) with split "train", "test" (held-out sentences of trained voices) or "unseen"."""
    settings = dict(per_voice=per_voice, unseen=unseen, seed=seed, voices=TRAIN_VOICES, unseen_voice=UNSEEN_VOICE,
                    templates=TEMPLATES)
    tag = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    manifest = os.path.join(folder, "manifest.tsv")
    if os.path.exists(manifest):
        with open(manifest, encoding="utf-8") as f:
            header, *lines = f.read().splitlines()
        if header == f"# {tag}":
            return [tuple(line.split("\t")) for line in lines]
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(seed)
    jobs = [(voice, _sentence(rng)) for voice in TRAIN_VOICES for _ in range(per_voice)]
    jobs += [(UNSEEN_VOICE, _sentence(rng)) for _ in range(unseen)]
    held_out = _held_out_sentences(jobs, rng)
    exe = espeak_binary()
    rows, commands = [], []
    for i, (voice, text) in enumerate(jobs):
        path = os.path.join(folder, f"{i:05d}.wav")
        speed, pitch = rng.randint(140, 200), rng.randint(25, 75)
        commands.append([exe, "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", path, text])
        split = "unseen" if voice == UNSEEN_VOICE else ("test" if text in held_out else "train")
        rows.append((os.path.basename(path), text, voice, split))
    # each espeak-ng process is short and mostly start-up: several at once keep the cores busy
    with ThreadPoolExecutor(max_workers=4) as pool:
        for done, _ in enumerate(pool.map(_render, commands), 1):
            if progress is not None:
                progress(done, len(jobs))
    with open(manifest + ".tmp", "w", encoding="utf-8") as f:
        f.write(f"# {tag}\n" + "".join("\t".join(r) + "\n" for r in rows))
    os.replace(manifest + ".tmp", manifest)
    return rows
