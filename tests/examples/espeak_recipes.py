"""What the tests of the espeak-ng speech recipes (speech_separation, vocoder) share: loading a recipe's module with
examples/common on the path, the espeak-ng skip, and the interrupted-and-resumed run that must end where an
uninterrupted one did."""
import shutil
import sys

import numpy as np
import pytest

import ember
from recipes import EXAMPLES, recipe_module

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed (make setup)")


def espeak_recipe_module(recipe, name):
    sys.path.insert(0, str(EXAMPLES / "common"))  # the recipe's shared espeak-ng, progress and checkpoint modules
    try:
        return recipe_module(recipe, name)
    finally:
        sys.path.remove(str(EXAMPLES / "common"))


def run_interrupted_and_resumed(train, tmp_path, args):
    """train.main on tmp_path/b with the speech of tmp_path/a (not rendered again): stopped after one epoch, then
    resumed; returns the resumed run's result."""
    shutil.copytree(tmp_path / "a" / "speech", tmp_path / "b" / "speech")
    assert len(train.main(["--data", str(tmp_path / "b"), "--stop-after", "1"] + args)) == 1
    return train.main(["--data", str(tmp_path / "b"), "--resume"] + args)


def assert_same_weights(tmp_path, checkpoint):
    """The model weights of tmp_path/a/checkpoint and tmp_path/b/checkpoint agree."""
    a = ember.load(tmp_path / "a" / checkpoint)["model"]
    b = ember.load(tmp_path / "b" / checkpoint)["model"]
    for key in a:
        np.testing.assert_allclose(a[key].numpy(), b[key].numpy(), rtol=1e-5, atol=1e-6, err_msg=key)
