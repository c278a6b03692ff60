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


def sox_effect(tmp_path, signal, sample_rate, effect, subtype="FLOAT", output_options=()):
    """The `sox in.wav [OUTPUT_OPTIONS] out.wav EFFECT...` output, as (channels, frames) float32, and its sample
    rate. Output options such as ("-c", 2) or ("-r", 16000) keep sox from converting the effects' result back to
    the input's format."""
    src, dst = tmp_path / "in.wav", tmp_path / "out.wav"
    soundfile.write(str(src), np.ascontiguousarray(signal.T), sample_rate, subtype=subtype)
    command = ["sox", "-D", str(src)] + [str(o) for o in output_options] + [str(dst)] + [str(e) for e in effect]
    subprocess.run(command, check=True, capture_output=True)
    data, rate = soundfile.read(str(dst), dtype="float32", always_2d=True)
    return np.ascontiguousarray(data.T), rate
