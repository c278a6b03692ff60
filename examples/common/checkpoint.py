"""Checkpoints written beside their target and renamed over it, so an interruption never leaves half a
file."""
import os
import pathlib

import ember


def save_checkpoint(path, state):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    ember.save(state, tmp)
    os.replace(tmp, path)
