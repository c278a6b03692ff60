"""Two-speaker mixtures of espeak-ng speech: the utterances (training voices speaking training sentences; other
voices speaking other sentences for the held-out set), and mixing: each source scaled to unit RMS, given a
random gain and placed at a random offset (or cropped at a random point) in a fixed-length segment."""
import numpy as np

import espeak_speech

RATE = 8000  # Conv-TasNet's usual rate (wsj0-2mix at 8 kHz)
# accents x voice variants; a mixture always pairs two different voices
TRAIN_VOICES = ["en-us", "en-gb+f2", "en-us+m3", "en-gb-scotland+f4", "en-029+m1", "en-gb-x-rp+f3", "en-us+klatt",
                "en-gb+m7", "en-us+Alicia", "en-gb+Andy"]
TEST_VOICES = ["en-gb-x-gbclan+f5", "en-us-nyc+m2", "en-gb-x-gbcwmd+f1", "en-029+Annie"]  # never trained on


def corpus_jobs(per_voice, test_per_voice, seed):
    """espeak-ng jobs: each training voice speaks `per_voice` training sentences, each test voice
    `test_per_voice` sentences that no training utterance uses."""
    return espeak_speech.split_jobs(TRAIN_VOICES, TEST_VOICES, per_voice, test_per_voice, seed)


def place(wave, length, rng):
    """A segment of `length` samples holding `wave`: cropped at a random point if longer, else at a random
    offset among zeros."""
    out = np.zeros(length, dtype=np.float32)
    if len(wave) >= length:
        start = rng.randint(0, len(wave) - length)
        out[:] = wave[start:start + length]
    else:
        start = rng.randint(0, length - len(wave))
        out[start:start + len(wave)] = wave
    return out


def mix(wave_a, wave_b, length, rng, max_gain_db=2.5):
    """(mixture (length,), sources (2, length)): each source at unit RMS times a gain of +-max_gain_db, so the
    two differ by up to 2 * max_gain_db dB (as wsj0-2mix's 0-5 dB)."""
    sources = []
    for wave in (wave_a, wave_b):
        seg = place(wave, length, rng)
        rms = float(np.sqrt(np.mean(seg**2))) + 1e-8
        sources.append(seg / rms * 10 ** (rng.uniform(-max_gain_db, max_gain_db) / 20))
    sources = np.stack(sources)
    peak = np.abs(sources.sum(0)).max() + 1e-8
    sources *= 0.9 / peak  # the mixture within [-0.9, 0.9]: a level a file could hold
    return sources.sum(0), sources


def pairs(utterances, count, rng):
    """`count` random pairs (a, b) of utterances [(voice, wave)] from two different voices."""
    out = []
    while len(out) < count:
        a, b = rng.sample(range(len(utterances)), 2)
        if utterances[a][0] != utterances[b][0]:
            out.append((utterances[a][1], utterances[b][1]))
    return out


def batch(utterances, size, length, rng):
    """A training batch: (mixtures (size, 1, length), sources (size, 2, length)) as NumPy arrays."""
    mixed = [mix(a, b, length, rng) for a, b in pairs(utterances, size, rng)]
    return np.stack([m for m, _ in mixed])[:, None], np.stack([s for _, s in mixed])
