"""ember.stft / ember.istft (core/ember/_spectral.py) against a plain NumPy framing + np.fft written here and
scipy.signal's STFT, with PyTorch's argument checks and messages written out."""
import re
import warnings

import numpy as np
import pytest
import scipy.signal

import ember
from ember.autograd import gradcheck, gradgradcheck


def _np_stft(x, n_fft, hop, window, center=True, pad_mode="reflect", normalized=False, onesided=True,
             align=False):
    """PyTorch's STFT in NumPy: pad n_fft//2 on both sides, frames every hop, window zero-padded to n_fft
    in its middle, FFT per frame; (*, freq, frames)."""
    win_length = len(window)
    left = (n_fft - win_length) // 2
    padded_window = np.zeros(n_fft, dtype=window.dtype)
    padded_window[left:left + win_length] = window
    if center:
        mode = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}[pad_mode]
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=mode)
    if align:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(left, n_fft - win_length - left)])
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., t * hop:t * hop + n_fft] * padded_window for t in range(n_frames)], axis=-2)
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.swapaxes(spec, -1, -2)


def _signal(*shape, seed=0, complex_=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if complex_ else x


CASES = [
    dict(n_fft=16),
    dict(n_fft=16, hop_length=5, win_length=10),
    dict(n_fft=15, center=False, normalized=True),
    dict(n_fft=16, pad_mode="constant"),
    dict(n_fft=16, pad_mode="replicate", hop_length=3),
    dict(n_fft=16, pad_mode="circular", win_length=7),
    dict(n_fft=16, center=False, win_length=8, align_to_window=True),
    dict(n_fft=16, onesided=False),
]


@pytest.mark.parametrize("kw", CASES, ids=[str(c) for c in CASES])
@pytest.mark.parametrize("shape", [(100,), (3, 64)])
def test_stft_matches_numpy_framing(kw, shape):
    x = _signal(*shape)
    n_fft = kw["n_fft"]
    hop = kw.get("hop_length", n_fft // 4)
    win = np.hanning(kw.get("win_length", n_fft) + 2)[1:-1]  # any window: the one both sides use
    want = _np_stft(x, n_fft, hop, win, kw.get("center", True), kw.get("pad_mode", "reflect"),
                    kw.get("normalized", False), kw.get("onesided", True), kw.get("align_to_window", False))
    got = ember.stft(ember.tensor(x), window=ember.tensor(win), return_complex=True, **kw)
    assert got.dtype == ember.complex128
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    as_method = ember.tensor(x).stft(window=ember.tensor(win), return_complex=True, **kw)
    np.testing.assert_allclose(as_method.numpy(), want, rtol=1e-10, atol=1e-12)


def test_stft_float32_complex_input_and_no_window():
    x = _signal(2, 50, complex_=True)
    with pytest.warns(UserWarning, match="A window was not provided"):
        ember.set_warn_always(True)  # PyTorch gives this once per process otherwise
        try:
            got = ember.stft(ember.tensor(x.astype(np.complex64)), 12, hop_length=4)
        finally:
            ember.set_warn_always(False)
    assert got.dtype == ember.complex64  # complex input: complex output without return_complex
    want = _np_stft(x, 12, 4, np.ones(12), onesided=False)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-4)


def test_stft_real_output_is_view_as_real():
    x = _signal(40)
    win = np.hanning(8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ember.stft(ember.tensor(x), 8, window=ember.tensor(win), return_complex=False)
    want = _np_stft(x, 8, 2, win)
    np.testing.assert_allclose(got.numpy(), np.stack([want.real, want.imag], -1), atol=1e-12)


def test_stft_matches_scipy():
    # scipy's STFT with boundary=None, padded=False and the window's sum as scale is torch's center=False STFT
    x = _signal(200)
    win = scipy.signal.get_window("hann", 32)
    _, _, want = scipy.signal.stft(x, nperseg=32, noverlap=24, window=win, boundary=None, padded=False,
                                   detrend=False, return_onesided=True)
    got = ember.stft(ember.tensor(x), 32, 8, window=ember.tensor(win), center=False, return_complex=True)
    np.testing.assert_allclose(got.numpy() / win.sum(), want, atol=1e-12)


@pytest.mark.parametrize("kw", [dict(), dict(hop_length=3, win_length=9), dict(center=False), dict(normalized=True),
                                dict(length=90), dict(length=120)])
def test_istft_inverts_stft(kw):
    x = _signal(2, 100)
    n_fft, length = 16, kw.pop("length", None)
    win = ember.hann_window(kw.get("win_length", n_fft), dtype=ember.float64)
    if kw.get("center") is False:
        win = win + 0.1  # nonzero at the ends: the first and last samples are covered (NOLA)
    spec = ember.stft(ember.tensor(x), n_fft, window=win, return_complex=True, **kw)
    y = ember.istft(spec, n_fft, window=win, length=length, **kw)
    hop, frames = kw.get("hop_length", 4), spec.shape[-1]
    # without length, PyTorch's output ends where the last frame does (less the centre padding)
    n_out = length if length is not None else hop * (frames - 1) + (0 if kw.get("center", True) else n_fft)
    assert tuple(y.shape) == (2, n_out)
    # the signal istft rebuilds is the (reflect-)padded one: past the end come the padding, then zeros
    rebuilt = np.pad(x, [(0, 0), (8, 8)], mode="reflect")[:, 8:] if kw.get("center", True) else x
    want = np.concatenate([rebuilt, np.zeros((2, max(0, n_out - rebuilt.shape[1])))], 1)[:, :n_out]
    np.testing.assert_allclose(y.numpy(), want, atol=1e-12)
    np.testing.assert_allclose(spec[0].istft(n_fft, window=win, length=length, **kw).numpy(), want[0], atol=1e-12)


def test_istft_matches_scipy_overlap_add():
    # scipy's istft of a centred, onesided STFT (its default boundary='zeros' is torch's center with zero padding)
    x = _signal(128)
    win = scipy.signal.get_window("hann", 32)
    _, _, spec = scipy.signal.stft(x, nperseg=32, noverlap=24, window=win, detrend=False)
    _, want = scipy.signal.istft(spec, nperseg=32, noverlap=24, window=win)
    got = ember.istft(ember.tensor(spec * win.sum()), 32, 8, window=ember.tensor(win), length=len(want))
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)


def test_istft_two_sided_and_complex_output():
    x = _signal(80, complex_=True)
    win = ember.hann_window(16, dtype=ember.float64)
    spec = ember.stft(ember.tensor(x), 16, window=win, return_complex=True)
    y = ember.istft(spec, 16, window=win, return_complex=True)
    np.testing.assert_allclose(y.numpy(), x, atol=1e-12)
    real = ember.istft(spec, 16, window=win)  # two-sided input, real output: irfft of the first half
    half = spec.numpy()[:9]
    frames = np.fft.irfft(half.T, 16) * win.numpy()
    ola = np.zeros(16 + 4 * (frames.shape[0] - 1))
    env = np.zeros_like(ola)
    for t, f in enumerate(frames):
        ola[4 * t:4 * t + 16] += f
        env[4 * t:4 * t + 16] += win.numpy() ** 2
    np.testing.assert_allclose(real.numpy(), ola[8:-8] / env[8:-8], atol=1e-12)


def test_gradients():
    x = ember.tensor(_signal(2, 24), requires_grad=True)
    win = ember.tensor(np.hanning(8) + 0.2, requires_grad=True)

    def spec(t, w):
        return ember.view_as_real(ember.stft(t, 8, hop_length=2, window=w, return_complex=True))
    assert gradcheck(spec, (x, win))
    assert gradgradcheck(spec, (x, win))
    s = ember.stft(x.detach(), 8, hop_length=2, window=win.detach(), return_complex=True).requires_grad_()
    assert gradcheck(lambda s_, w: ember.istft(s_, 8, hop_length=2, window=w), (s, win))


def test_stft_errors_as_pytorch():
    x = ember.tensor(_signal(100))
    with pytest.raises(RuntimeError, match=re.escape(
            "stft requires the return_complex parameter be given for real inputs, and will further require that "
            "return_complex=True in a future PyTorch release.")):
        ember.stft(x, 16)
    head = ("stft(torch.DoubleTensor[116], n_fft=16, hop_length={h}, win_length={w}, window={win}, normalized=0, "
            "onesided=None, return_complex=1, align_to_window=None) : ")
    with pytest.raises(RuntimeError, match=re.escape(head.format(h=0, w=16, win="None")
                                                     + "expected hop_length > 0, but got hop_length=0")):
        ember.stft(x, 16, hop_length=0, return_complex=True)
    with pytest.raises(RuntimeError, match=re.escape(head.format(h=4, w=20, win="None")
                                                     + "expected 0 < win_length <= n_fft, but got win_length=20")):
        ember.stft(x, 16, win_length=20, return_complex=True)
    with pytest.raises(RuntimeError, match=re.escape(
            head.format(h=4, w=16, win="torch.FloatTensor{[5]}")
            + "expected a 1D window tensor of size equal to win_length=16, but got window with size [5]")):
        ember.stft(x, 16, window=ember.ones(5), return_complex=True)
    with pytest.raises(RuntimeError, match=re.escape("n_fft=16, hop_length=4, win_length=16, window=None, normalized="
                                                     "0, onesided=None, return_complex=1, align_to_window=None) : "
                                                     "expected 0 < n_fft < 10, but got n_fft=16")):
        ember.stft(ember.ones(10), 16, center=False, return_complex=True)
    with pytest.raises(RuntimeError, match=re.escape(  # PyTorch shows win_length as the n_fft it got here
            "stft(CPUComplexDoubleType[8], n_fft=10, hop_length=2, win_length=6, window=None, normalized=0, "
            "onesided=None, return_complex=1, align_to_window=None) : expected 0 < n_fft < 8, but got n_fft=6")):
        ember.stft(ember.ones(8, dtype=ember.complex128), 10, win_length=6, center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="expected a 1D or 2D tensor"):
        ember.stft(ember.ones(2, 2, 30), 16, return_complex=True)
    with pytest.raises(RuntimeError, match=re.escape("stft(torch.IntTensor[116]") + ".*"
                       + "expected a tensor of floating point or complex values"):
        ember.stft(ember.ones(100, dtype=ember.int32), 16, return_complex=True)
    with pytest.raises(RuntimeError, match="Cannot have onesided output if window or input is complex"):
        ember.stft(x.to(ember.complex128), 16, onesided=True, return_complex=True)
    with pytest.raises(RuntimeError, match="stft align_to_window should only be set when center = false"):
        ember.stft(x, 16, align_to_window=True, return_complex=True)
    with pytest.raises(NotImplementedError, match="foo"):
        ember.stft(x, 16, pad_mode="foo", return_complex=True)


def test_istft_errors_as_pytorch():
    win = ember.hann_window(16, dtype=ember.float64)
    spec = ember.stft(ember.tensor(_signal(100)), 16, window=win, return_complex=True)
    with pytest.raises(RuntimeError, match=re.escape("istft requires a complex-valued input tensor matching the output "
                                                     "from stft with return_complex=True.")):
        ember.istft(spec.real, 16)
    head = ("istft(CPUComplexDoubleType[{shape}], n_fft={n}, hop_length={h}, win_length={w}, "
            "window=torch.DoubleTensor{{[16]}}, center={c}, normalized=0, onesided={o}, length=None, "
            "return_complex=0)")
    base = dict(shape="9, 26", n=16, h=4, w=16, c=1, o="None")

    def raises(msg, *args, **kw):
        return pytest.raises(RuntimeError, match=re.escape(head.format(**{**base, **kw}) + msg))
    with raises(" window overlap add min: 1", c=0):
        ember.istft(spec, 16, window=win, center=False)
    with raises(" : expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                "onesided=False, but got 9", o=0):
        ember.istft(spec, 16, window=win, onesided=False)
    with raises(" : expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
                "when onesided=True, but got 9", n=18, w=18):
        ember.istft(spec, 18, window=win)
    with raises(" : expected a tensor with 3 or 4 dimensions, but got 5", shape="1, 1, 9, 26"):
        ember.istft(spec[None, None], 16, window=win)
    with raises(" : expected 0 < hop_length <= win_length", h=20):
        ember.istft(spec, 16, hop_length=20, window=win)
    with raises(" : expected 0 < win_length <= n_fft", w=20):
        ember.istft(spec, 16, win_length=20, window=win)
    with raises(" : input tensor cannot be empty.", shape="9, 0"):
        ember.istft(spec[:, :0], 16, window=win)
    with pytest.raises(RuntimeError, match="Invalid window shape. window has to be 1D and length of `win_length`"):
        ember.istft(spec, 16, window=ember.ones(3))
    with pytest.raises(RuntimeError, match="Cannot have onesided output if window or input is complex"):
        ember.istft(spec, 16, window=win, return_complex=True)


def test_warn_always_switch():
    assert ember.is_warn_always_enabled() is False
    ember.set_warn_always(True)
    try:
        assert ember.is_warn_always_enabled() is True
    finally:
        ember.set_warn_always(False)
    with pytest.raises(RuntimeError, match="setWarnOnlyOnce expects a bool, but got int"):
        ember.set_warn_always(1)
