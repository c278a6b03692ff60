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


def run_interruptible(train, args):
    """Runs train(args); on Ctrl-C says where the last finished epoch is and how to carry on. The exit code."""
    try:
        train(args)
    except KeyboardInterrupt:
        print(f"\ninterrupted; the last finished epoch is in {args.checkpoint}: carry on with --resume")
        return 130
    return 0
