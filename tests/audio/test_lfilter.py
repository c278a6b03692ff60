"""lfilter / filtfilt / biquad against SciPy's lfilter, their batching modes, gradients (gradcheck in float64
through the C++ recursion's backward) and argument errors."""
import numpy as np
import pytest
import scipy.signal

import ember
import emberaudio.functional as F
from ember.autograd import gradcheck

A = [1.0, -1.1, 0.45]
B = [0.25, 0.4, 0.1]


def noise(shape, seed=0, scale=0.9):
    return np.random.default_rng(seed).uniform(-scale, scale, shape)


@pytest.mark.parametrize("dtype,atol", [(ember.float64, 1e-12), (ember.float32, 2e-5)])
def test_lfilter_matches_scipy(dtype, atol):
    x = noise((2, 3, 1000))
    out = F.lfilter(ember.tensor(x, dtype=dtype), ember.tensor(A, dtype=dtype), ember.tensor(B, dtype=dtype),
                    clamp=False)
    assert out.dtype == dtype and tuple(out.shape) == (2, 3, 1000)
    np.testing.assert_allclose(out.numpy(), scipy.signal.lfilter(B, A, x, axis=-1), atol=atol)


def test_lfilter_unnormalised_a0_and_long_orders():
    x = noise((2, 500), seed=1)
    b, a = scipy.signal.butter(6, 0.2)
    a, b = a * 2.5, b * 2.5 * 0.7  # a[0] != 1
    out = F.lfilter(ember.tensor(x), ember.tensor(a), ember.tensor(b), clamp=False)
    np.testing.assert_allclose(out.numpy(), scipy.signal.lfilter(b, a, x), atol=1e-10)


def test_lfilter_clamps_by_default():
    x = noise((1, 400), seed=2)
    gain = ember.tensor([1.0, 0.0]), ember.tensor([4.0, 0.0])
    out = F.lfilter(ember.tensor(x), *gain)
    np.testing.assert_allclose(out.numpy(), np.clip(4 * x, -1, 1))


def test_lfilter_batching_one_filter_per_signal():
    x = noise((4, 3, 300), seed=3)
    a = np.array([[1.0, -0.5, 0.1], [1.0, 0.3, 0.0], [2.0, -1.0, 0.3]])
    b = np.array([[0.5, 0.2, 0.0], [1.0, 0.0, 0.0], [0.3, 0.3, 0.3]])
    out = F.lfilter(ember.tensor(x), ember.tensor(a), ember.tensor(b), clamp=False)
    for c in range(3):
        np.testing.assert_allclose(out.numpy()[:, c], scipy.signal.lfilter(b[c], a[c], x[:, c]), atol=1e-12)
    every = F.lfilter(ember.tensor(x[:, 0]), ember.tensor(a), ember.tensor(b), clamp=False, batching=False)
    assert tuple(every.shape) == (4, 3, 300)
    for c in range(3):
        np.testing.assert_allclose(every.numpy()[:, c], scipy.signal.lfilter(b[c], a[c], x[:, 0]), atol=1e-12)


def test_lfilter_batched_equals_per_item():
    x = ember.tensor(noise((5, 2, 256), seed=4).astype(np.float32))
    a, b = ember.tensor(A), ember.tensor(B)
    batched = F.lfilter(x, a, b)
    for i in range(5):
        assert ember.equal(batched[i], F.lfilter(x[i], a, b))


def test_lfilter_gradcheck_waveform_and_coefficients():
    x = ember.tensor(noise((2, 2, 40), seed=5, scale=0.3), requires_grad=True)
    a = ember.tensor([[1.0, -0.6, 0.2], [1.3, 0.4, 0.1]], dtype=ember.float64, requires_grad=True)
    b = ember.tensor([[0.4, 0.2, 0.1], [0.3, -0.2, 0.05]], dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda x, a, b: F.lfilter(x, a, b, clamp=False), (x, a, b))
    one_a = ember.tensor(A, dtype=ember.float64, requires_grad=True)
    one_b = ember.tensor(B, dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda x, a, b: F.lfilter(x, a, b, clamp=False), (x, one_a, one_b))
    assert gradcheck(lambda x, a, b: F.filtfilt(x, a, b, clamp=False), (x, one_a, one_b))


def test_lfilter_gradient_matches_a_finite_difference_of_scipy():
    x = noise(64, seed=6, scale=0.3)
    a = ember.tensor(A, dtype=ember.float64, requires_grad=True)
    F.lfilter(ember.tensor(x), a, ember.tensor(B), clamp=False).sum().backward()
    eps = 1e-6
    numeric = [(scipy.signal.lfilter(B, np.add(A, np.eye(3)[k] * eps), x).sum()
                - scipy.signal.lfilter(B, np.subtract(A, np.eye(3)[k] * eps), x).sum()) / (2 * eps) for k in range(3)]
    np.testing.assert_allclose(a.grad.numpy(), numeric, rtol=1e-5)


def test_filtfilt_is_forward_then_backward_lfilter():
    x = noise((2, 600), seed=7)
    b, a = scipy.signal.butter(3, 0.15)
    forward = scipy.signal.lfilter(b, a, x)
    expected = scipy.signal.lfilter(b, a, forward[:, ::-1])[:, ::-1]
    out = F.filtfilt(ember.tensor(x), ember.tensor(a), ember.tensor(b), clamp=False)
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-12)


def test_biquad_takes_numbers_or_tensors():
    x = noise((1, 300), seed=8)
    out = F.biquad(ember.tensor(x), 0.4, 0.2, 0.9, 0.7, 0.2, 0.6)
    np.testing.assert_allclose(out.numpy(), np.clip(scipy.signal.lfilter([0.4, 0.2, 0.9], [0.7, 0.2, 0.6], x),
                                                    -1, 1), atol=1e-12)
    b0 = ember.tensor(0.4, dtype=ember.float64, requires_grad=True)
    F.biquad(ember.tensor(x) * 0.1, b0, 0.2, 0.9, 0.7, 0.2, 0.6).sum().backward()
    assert b0.grad is not None and abs(float(b0.grad)) > 0


@pytest.mark.parametrize("design,args", [
    (F.lowpass_biquad, (8000, 1000.0)), (F.highpass_biquad, (8000, 1000.0)), (F.bandpass_biquad, (8000, 1000.0)),
    (F.bandreject_biquad, (8000, 1000.0)), (F.allpass_biquad, (8000, 1000.0)), (F.band_biquad, (8000, 1000.0)),
    (F.equalizer_biquad, (8000, 1000.0, 3.0)), (F.bass_biquad, (8000, 6.0)), (F.treble_biquad, (8000, 6.0)),
    (F.deemph_biquad, (44100,)), (F.riaa_biquad, (48000,))])
def test_biquad_designs_are_stable_and_match_their_impulse_response(design, args):
    impulse = np.zeros(2048)
    impulse[0] = 0.5
    response = design(ember.tensor(impulse), *args).numpy()
    assert np.all(np.isfinite(response)) and abs(response[-1]) < 1e-6  # the poles are inside the unit circle


def test_lfilter_errors():
    x = ember.zeros(2, 100)
    with pytest.raises(ValueError, match="same size"):
        F.lfilter(x, ember.tensor([1.0, 0.5]), ember.tensor([1.0, 0.5, 0.1]))
    with pytest.raises(ValueError, match="Found 3"):
        F.lfilter(x, ember.ones(1, 1, 2), ember.ones(1, 1, 2))
    with pytest.raises(ValueError, match="number of batches"):
        F.lfilter(x, ember.ones(3, 2), ember.ones(3, 2))
    with pytest.raises(ValueError, match="must not be zero"):
        F.lfilter(x, ember.tensor([0.0, 0.5]), ember.tensor([1.0, 0.5]))
    with pytest.raises(TypeError, match="floating-point"):
        F.lfilter(ember.zeros(2, 100, dtype=ember.int64), ember.tensor([1.0, 0.5]), ember.tensor([1.0, 0.5]))
    with pytest.raises(ValueError, match="Sample rate"):
        F.riaa_biquad(x, 22050)
    with pytest.raises(ValueError, match="Sample rate"):
        F.deemph_biquad(x, 16000)
