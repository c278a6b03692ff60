"""WaveRNN.infer is exported for scripting (as torchaudio marks it @torch.jit.export): the scripted generation
loop samples from ember's default generator exactly as eager does, so under one seed both give the same audio
and leave the generator in the same state; eager infer records no gradients."""
import numpy as np
import pytest

import ember
import ember.jit
import emberaudio.models as M


def _model():
    ember.manual_seed(0)
    return M.WaveRNN([2, 3], n_classes=16, hop_length=6, n_res_block=1, n_rnn=12, n_fc=10, kernel_size=3, n_freq=5,
                     n_hidden=6, n_output=8).eval()


def _spec(frames=4):
    return ember.rand(2, 5, frames, generator=ember.Generator().manual_seed(3))


def _infer(fn, *args):
    ember.manual_seed(11)
    out, lengths = fn(*args)
    return out, lengths, ember.rand(4)  # the next draw shows how far infer moved the generator


@pytest.mark.parametrize("with_lengths", [False, True])
def test_scripted_infer_equals_eager(with_lengths):
    model = _model()
    scripted = ember.jit.script(model)
    args = (_spec(), ember.tensor([4, 2])) if with_lengths else (_spec(),)
    out, lengths, after = _infer(model.infer, *args)
    s_out, s_lengths, s_after = _infer(scripted.infer, *args)
    assert tuple(out.shape) == (2, 1, 4 * 6) and out.dtype == ember.float32
    assert ember.equal(s_out, out)
    assert ember.equal(s_after, after)
    if with_lengths:
        assert lengths.tolist() == [24, 12] and s_lengths.tolist() == [24, 12]
    else:
        assert lengths is None and s_lengths is None
    # the output is sampled: 16 levels 2k/15 - 1, and another seed gives other audio
    levels = 2 * np.arange(16) / 15.0 - 1
    assert np.abs(out.numpy().ravel()[:, None] - levels[None, :]).min(1).max() < 1e-6
    ember.manual_seed(12)
    assert not ember.equal(scripted.infer(_spec())[0], out)


def test_eager_infer_records_no_gradients():
    out, _ = _model().infer(_spec())
    assert not out.requires_grad


@pytest.mark.parametrize("scripted", [False, True])
def test_infer_refuses_a_spectrogram_without_batch(scripted):
    model = _model()
    infer = ember.jit.script(model).infer if scripted else model.infer
    with pytest.raises(ValueError, match=r"infer expects a \(batch, n_freq, frames\) spectrogram, got a 2-D tensor"):
        infer(_spec()[0])
