"""The audio recipes' shared espeak-ng speech (examples/common/espeak_speech.py): held-out sentences kept apart,
silence trimming against a hand-worked case, and rendering and resampling done once (cached) and redone when the
speech changes."""
import os
import random
import shutil

import pytest

import ember
from recipes import recipe_module

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed (make setup)")


def _speech():
    return recipe_module("common", "espeak_speech")


def test_distinct_sentences_exclude_and_repeat_nothing():
    speech = _speech()
    first = speech.distinct_sentences(random.Random(0), 50)
    second = speech.distinct_sentences(random.Random(0), 50, exclude=first)
    assert len(set(first)) == 50 and not set(first) & set(second)
    assert all(5 <= len(s.split()) <= 9 and set(s.split()) <= set(speech.WORDS) for s in first)


def test_trim_silence_keeps_a_margin():
    speech = _speech()
    wave = ember.tensor([0.0, 0.0, 0.0, 0.0, 0.5, -0.2, 0.0, 0.0, 0.0])
    assert speech.trim_silence(wave, threshold=0.1, margin=1).tolist() == pytest.approx([0.0, 0.5, -0.2, 0.0])
    assert speech.trim_silence(ember.zeros(5)).tolist() == [0.0] * 5  # nothing loud: left as it is


@needs_espeak
def test_render_and_load_once(tmp_path):
    speech = _speech()
    jobs = speech.speaking_jobs([("en-us", "one two three", "train"), ("en-gb+f2", "red green blue", "test")], seed=0)
    rows = speech.render(str(tmp_path), jobs)
    assert [r["file"] for r in rows] == ["00000.wav", "00001.wav"] and rows[1]["split"] == "test"
    stamp = os.path.getmtime(tmp_path / "00000.wav")
    assert speech.render(str(tmp_path), jobs) == rows and os.path.getmtime(tmp_path / "00000.wav") == stamp
    waves = speech.load_waves(str(tmp_path), rows, 8000)
    assert set(waves) == {"00000.wav", "00001.wav"} and waves["00000.wav"].dim() == 1
    assert 0.3 * 8000 < waves["00000.wav"].shape[0] < 3 * 8000
    # other speech under the same file names: rendered and loaded again, not taken from the caches
    other = speech.speaking_jobs([("en-us", "seven", "train"), ("en-gb+f2", "red green blue", "test")], seed=0)
    rows2 = speech.render(str(tmp_path), other)
    shorter = speech.load_waves(str(tmp_path), rows2, 8000)
    assert shorter["00000.wav"].shape[0] < waves["00000.wav"].shape[0]
