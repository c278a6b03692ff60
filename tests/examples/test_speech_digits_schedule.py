"""The speech recipe's learning-rate schedule (warm-up then cosine, from the update count alone) against values
worked by hand, and its initialisation of its Wav2Letter: He-scaled convolutions, and a last convolution whose
logits all start inside the final ReLU's linear range (positive, nearly equal)."""
import math

import numpy as np
import pytest

import ember
from recipes import recipe_module


def test_learning_rate_warms_up_then_decays_to_zero():
    lr = recipe_module("speech_digits", "train").learning_rate
    assert lr(1e-3, 0, 100, 10) == pytest.approx(1e-4 * 0.5 * (1 + math.cos(0.0)))
    assert lr(1e-3, 9, 100, 10) == pytest.approx(1e-3 * 0.5 * (1 + math.cos(math.pi * 9 / 100)))
    assert lr(1e-3, 50, 100, 10) == pytest.approx(0.5e-3)
    assert lr(1e-3, 100, 100, 10) == pytest.approx(0.0, abs=1e-12)
    values = [lr(1e-3, s, 100, 10) for s in range(10, 100)]
    assert all(a > b for a, b in zip(values, values[1:]))


def test_initialisation_keeps_every_logit_positive():
    train = recipe_module("speech_digits", "train")
    ember.manual_seed(0)
    model = recipe_module("speech_digits", "small_wav2letter").SmallWav2Letter(26, 40)
    train.init_for_relu(model)
    convs = [m for m in model.modules() if isinstance(m, ember.nn.Conv1d)]
    first = convs[0].weight.detach().numpy()
    fan_in = first.shape[1] * first.shape[2]
    assert first.std() == pytest.approx(math.sqrt(2.0 / fan_in), rel=0.05)  # He (kaiming normal, relu gain)
    assert np.all(convs[-1].bias.detach().numpy() == 5.0)
    with ember.no_grad():
        logits = model.acoustic_model(ember.randn(2, 40, 60)).numpy()
    assert logits.min() > 0  # no class starts in the final ReLU's dead range
    assert logits.max() - logits.min() < 5.0  # and the softmax starts far from confident
