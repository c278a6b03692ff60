"""Issue 3 save/load speed: a 256 MB float32 tensor through ember.save/ember.load to a file, against
np.save/np.load of the same array (and torch.save/torch.load when importable), in MB/s."""
from __future__ import annotations

import os
import tempfile

import numpy as np

import ember

from .runner import Case, best_of, impls, torch


N = 64 * 1024 * 1024  # float32 elements: 256 MB
MB = N * 4 / 1e6


def _data(lib):
    a = np.random.default_rng(0).random(N, dtype=np.float32)
    if lib == "ember":
        return ember.from_numpy(a)
    if lib == "torch":
        return torch.from_numpy(a)
    return a


def _path(lib):
    fd, path = tempfile.mkstemp(suffix=f".{lib}.bin")
    os.close(fd)
    return path


def _fns(lib):
    if lib == "ember":
        return ember.save, ember.load
    if lib == "torch":
        return torch.save, torch.load
    return (lambda a, p: np.save(p, a)), (lambda p: np.load(p))


def _save(lib):
    x, path, (save, _) = _data(lib), _path(lib), _fns(lib)
    if lib == "numpy":
        path += ".npy"  # np.save appends it otherwise

    def measure():
        try:
            return MB / best_of(lambda: save(x, path), reps=3)
        finally:
            if os.path.exists(path):
                os.remove(path)
    return measure


def _load(lib):
    x, path, (save, load) = _data(lib), _path(lib), _fns(lib)
    if lib == "numpy":
        path += ".npy"

    def measure():
        save(x, path)
        try:
            return MB / best_of(lambda: load(path), reps=3)
        finally:
            os.remove(path)
    return measure



def cases() -> list[Case]:
    return [
        Case("save 256 MB float32 to a file", "MB/s", True, impls(_save),
             ">= 0.8x np.save (I/O bound)", lambda e, p: e >= 0.8 * p["numpy"]),
        Case("load 256 MB float32 from a file", "MB/s", True, impls(_load),
             ">= 0.8x np.load (I/O bound)", lambda e, p: e >= 0.8 * p["numpy"]),
    ]
