"""The speech recipe's Wav2Letter (examples/speech_digits/small_wav2letter.py): its output length against the
network's own output and a hand formula, its parameter count worked by hand, torchaudio's layer layout (state-dict
names), and the padding mask: each utterance of a zero-padded batch gets exactly what it gets alone (and without
the mask it would not)."""
import numpy as np
import pytest

import ember
from emberaudio.models import Wav2Letter
from recipes import recipe_module


def _model_class():
    return recipe_module("speech_digits", "small_wav2letter").SmallWav2Letter


def test_output_frames_match_the_network_and_halve_rounding_up():
    model = _model_class()(5, 3, channels=8, hidden=12).eval()
    for frames in (1, 2, 10, 11, 37, 50):
        with ember.no_grad():
            out = model(ember.randn(1, 3, frames))
        assert out.shape == (1, 5, -(-frames // 2))
        assert model.output_frames(frames) == -(-frames // 2)
    np.testing.assert_array_equal(model.output_frames(ember.tensor([9, 10, 11])).numpy(), [5, 5, 6])


def test_parameter_count_and_layout_follow_wav2letter():
    model = _model_class()(26, 40, channels=16, hidden=24, front_kernel=7, kernel=3, layers=2, wide_kernel=5)
    assert isinstance(model, Wav2Letter)
    expected = (40 * 16 * 7 + 16) + 2 * (16 * 16 * 3 + 16) + (16 * 24 * 5 + 24) + (24 * 24 + 24) + (24 * 26 + 26)
    assert sum(p.numel() for p in model.parameters()) == expected
    convs = [k for k in model.state_dict() if k.endswith(".weight")]
    assert convs == [f"acoustic_model.{2 * i}.weight" for i in range(6)]  # conv, ReLU, conv, ReLU, ...


def test_even_kernel_is_refused():
    with pytest.raises(ValueError, match="kernel must be a positive odd number"):
        _model_class()(5, 3, kernel=4)


def test_padded_batch_equals_each_utterance_alone():
    ember.manual_seed(0)
    model = _model_class()(7, 6, channels=10, hidden=14).eval()  # default init: nonzero biases
    lengths = [23, 9, 16, 4]
    items = [ember.randn(6, n) for n in lengths]
    batch = ember.zeros(len(items), 6, max(lengths))
    for i, item in enumerate(items):
        batch[i, :, : item.shape[1]] = item
    with ember.no_grad():
        masked = model(batch, ember.tensor(lengths)).numpy()
        unmasked = model(batch).numpy()
        alone = [model(item.unsqueeze(0)).numpy()[0] for item in items]
    for i, ref in enumerate(alone):
        np.testing.assert_allclose(masked[i, :, : ref.shape[1]], ref, rtol=1e-5, atol=1e-6)
    # the mask is what makes them equal: unmasked, the short utterance's last frames see the padding's activations
    short = alone[1]
    assert np.abs(unmasked[1, :, : short.shape[1]] - short).max() > 1e-3
