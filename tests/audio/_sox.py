"""Runs Debian's `sox` command on a float32 WAV file (the reference for SoX-compatible effects)."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import soundfile

requires_sox = pytest.mark.skipif(shutil.which("sox") is None, reason="the sox command is not installed "
                                  "(make testdeps installs Debian's sox)")


def whitenoise(sample_rate, seconds=3.0, channels=1, scale=0.9, seed=0):
    """(channels, frames) float32 uniform noise in [-scale, scale], as torchaudio's tests generate."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1.0, 1.0, (channels, int(sample_rate * seconds))) * scale).astype(np.float32)


def sox_effect(tmp_path, signal, sample_rate, effect, subtype="FLOAT"):
    """The `sox in.wav out.wav EFFECT...` output, as (channels, frames) float32, and its sample rate."""
    src, dst = tmp_path / "in.wav", tmp_path / "out.wav"
    soundfile.write(str(src), np.ascontiguousarray(signal.T), sample_rate, subtype=subtype)
    subprocess.run(["sox", "-D", str(src), str(dst)] + [str(e) for e in effect], check=True, capture_output=True)
    data, rate = soundfile.read(str(dst), dtype="float32", always_2d=True)
    return np.ascontiguousarray(data.T), rate
