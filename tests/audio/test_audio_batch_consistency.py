"""Batched equals per-item for every emberaudio transform: a batch of three signals through a transform gives, item
by item, what each signal alone gives (random transforms under the same seed for the batch and for each item, as
torchaudio's batch-consistency tests run them). Enumerated from emberaudio.transforms, so a new transform without
a case fails here."""
import inspect
import os
import sys

import pytest

import ember
import emberaudio.transforms as T
from ember import nn

sys.path.insert(0, os.path.dirname(__file__))
from _scripting_cases import SAMPLE_RATE, _complex_spec, _rnnt_inputs, _spec, _speech_like, _wave  # noqa: E402

BATCH = 3


def _items(batch):
    return [batch[k] for k in range(batch.shape[0])]


def _stack_outputs(outputs):
    return ember.stack(outputs) if isinstance(outputs[0], ember.Tensor) else outputs


# name -> (transform factory, batch of inputs: each a tensor with a leading batch dim, per-item rule)
# A case gives the batched call's arguments; the per-item calls take each argument's k-th item.
CASES = {
    "Spectrogram": (lambda: T.Spectrogram(n_fft=128), lambda: (_wave(BATCH, 2, 1600),)),
    "Spectrogram/complex": (lambda: T.Spectrogram(n_fft=128, power=None), lambda: (_wave(BATCH, 1600),)),
    "AmplitudeToDB": (lambda: T.AmplitudeToDB(top_db=40.0), lambda: (_spec(BATCH, 2, 65, 30),)),
    "MelScale": (lambda: T.MelScale(n_mels=16, n_stft=65), lambda: (_spec(BATCH, 65, 30),)),
    "MelSpectrogram": (lambda: T.MelSpectrogram(n_fft=128, n_mels=16), lambda: (_wave(BATCH, 2, 1600),)),
    "MFCC": (lambda: T.MFCC(n_mfcc=8, melkwargs={"n_fft": 128, "n_mels": 16}), lambda: (_wave(BATCH, 2, 1600),)),
    "Resample": (lambda: T.Resample(SAMPLE_RATE, 12000), lambda: (_wave(BATCH, 2, 1600),)),
    "MuLawEncoding": (lambda: T.MuLawEncoding(), lambda: (_wave(BATCH, 400).clamp(-1, 1),)),
    "MuLawDecoding": (lambda: T.MuLawDecoding(), lambda: (ember.randint(0, 256, (BATCH, 400)),)),
    "ComputeDeltas": (lambda: T.ComputeDeltas(), lambda: (_spec(BATCH, 2, 20, 30),)),
    "Fade": (lambda: T.Fade(100, 200, "quarter_sine"), lambda: (_wave(BATCH, 1600),)),
    "Vol": (lambda: T.Vol(0.5), lambda: (_wave(BATCH, 400),)),
    "FrequencyMasking": (lambda: T.FrequencyMasking(8), lambda: (_spec(BATCH, 2, 40, 30),)),
    "TimeMasking": (lambda: T.TimeMasking(10), lambda: (_spec(BATCH, 2, 40, 30),)),
    "GriffinLim": (lambda: T.GriffinLim(n_fft=128, n_iter=4, rand_init=False), lambda: (_spec(BATCH, 65, 20),)),
    "InverseSpectrogram": (lambda: T.InverseSpectrogram(n_fft=128, hop_length=32),
                           lambda: (ember.stack([_complex_spec(seed=k) for k in range(BATCH)]),)),
    "InverseMelScale": (lambda: T.InverseMelScale(n_stft=65, n_mels=16), lambda: (_spec(BATCH, 16, 20),)),
    "TimeStretch": (lambda: T.TimeStretch(hop_length=32, n_freq=65, fixed_rate=1.3),
                    lambda: (ember.stack([_complex_spec(seed=k) for k in range(BATCH)]),)),
    "LFCC": (lambda: T.LFCC(n_filter=32, n_lfcc=10, speckwargs={"n_fft": 128}), lambda: (_wave(BATCH, 1600),)),
    "SpectralCentroid": (lambda: T.SpectralCentroid(SAMPLE_RATE, n_fft=128), lambda: (_wave(BATCH, 1600),)),
    "SlidingWindowCmn": (lambda: T.SlidingWindowCmn(cmn_window=20, min_cmn_window=5, norm_vars=True),
                         lambda: (_spec(BATCH, 50, 13),)),
    "Vad": (lambda: T.Vad(SAMPLE_RATE), lambda: (ember.stack([_speech_like(seed=k) for k in range(BATCH)]),)),
    "Loudness": (lambda: T.Loudness(SAMPLE_RATE), lambda: (_wave(BATCH, 2, 8000),)),
    "Convolve": (lambda: T.Convolve("full"), lambda: (_wave(BATCH, 300), _wave(BATCH, 40, seed=6))),
    "FFTConvolve": (lambda: T.FFTConvolve("same"), lambda: (_wave(BATCH, 300), _wave(BATCH, 40, seed=6))),
    "AddNoise": (lambda: T.AddNoise(), lambda: (_wave(BATCH, 2, 400), _wave(BATCH, 2, 400, seed=7),
                                                ember.tensor([[10.0, 3.0], [0.0, 5.0], [20.0, -2.0]]))),
    "Preemphasis": (lambda: T.Preemphasis(), lambda: (_wave(BATCH, 400),)),
    "Deemphasis": (lambda: T.Deemphasis(), lambda: (_wave(BATCH, 400),)),
    "Speed": (lambda: T.Speed(SAMPLE_RATE, 0.9), lambda: (_wave(BATCH, 1600),)),
    "SpeedPerturbation": (lambda: T.SpeedPerturbation(SAMPLE_RATE, [0.9, 1.1]), lambda: (_wave(BATCH, 1600),)),
    "PitchShift": (lambda: T.PitchShift(SAMPLE_RATE, -2, n_fft=256), lambda: (_wave(BATCH, 1600),)),
}


def _rnnt_batched():
    logits, targets, logit_lengths, target_lengths = _rnnt_inputs()
    return logits, targets, logit_lengths, target_lengths


# RNNTLoss's inputs are a batch by definition (logits (batch, time, target, class)): its per-item losses, with
# reduction="none", are each item's loss alone.
def test_rnnt_loss_batched_equals_per_item():
    loss = T.RNNTLoss(blank=0, reduction="none")
    logits, targets, logit_lengths, target_lengths = _rnnt_batched()
    batched = loss(logits, targets, logit_lengths, target_lengths)
    for k in range(logits.shape[0]):
        t, u = int(logit_lengths[k]), int(target_lengths[k])
        alone = loss(logits[k:k + 1, :t, :u + 1], targets[k:k + 1, :u], logit_lengths[k:k + 1],
                     target_lengths[k:k + 1])
        ember.testing.assert_close(batched[k:k + 1], alone, rtol=1e-6, atol=1e-6)


def test_every_transform_has_a_case():
    classes = {name for name in T.__all__ if inspect.isclass(getattr(T, name)) and issubclass(getattr(T, name),
                                                                                             nn.Module)}
    assert classes - {name.split("/")[0] for name in CASES} - {"RNNTLoss"} == set()


def _close(got, want):
    if want is None:
        assert got is None
        return
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            _close(g, w)
        return
    assert got.shape == want.shape and got.dtype == want.dtype
    ember.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_batched_equals_per_item(name):
    make_transform, make_inputs = CASES[name]
    transform = make_transform()
    inputs = make_inputs()
    ember.manual_seed(99)
    batched = transform(*inputs)
    for k in range(inputs[0].shape[0]):
        ember.manual_seed(99)
        alone = transform(*[x[k] for x in inputs])
        if isinstance(batched, tuple):  # Speed, SpeedPerturbation: (waveform, lengths)
            _close(alone[0], batched[0][k])
            assert batched[1] is None and alone[1] is None
        else:
            _close(alone, batched[k])
