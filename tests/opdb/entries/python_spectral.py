"""OpInfos of ember.stft and ember.istft (core/ember/_spectral.py): a plain NumPy framing with np.fft, and the
overlap-add inverse written out here."""
import numpy as np

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def np_stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
            normalized=False, onesided=None, return_complex=None):
    """PyTorch's STFT: pad n_fft//2 both sides, frames every hop_length, the window zero-padded to n_fft in its
    middle, one FFT per frame; (*, freq, frames), or its real/imaginary pairs when return_complex is False."""
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    window = np.ones(win_length) if window is None else np.asarray(window)
    left = (n_fft - win_length) // 2
    full = np.zeros(n_fft, dtype=window.dtype)
    full[left:left + win_length] = window
    if center:
        mode = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}[pad_mode]
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=mode)
    frames = np.stack([x[..., t * hop:t * hop + n_fft] * full for t in range(1 + (x.shape[-1] - n_fft) // hop)], -2)
    onesided = not np.iscomplexobj(frames) if onesided is None else onesided
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    spec = np.swapaxes(spec / np.sqrt(n_fft) if normalized else spec, -1, -2)
    return np.stack([spec.real, spec.imag], -1) if return_complex is False else spec


def np_istft(spec, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
             onesided=None, length=None, return_complex=False):
    """Overlap-add of each frame's inverse FFT times the window, over the summed squared window."""
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    window = np.ones(win_length) if window is None else window.numpy().astype(np.float64)
    left = (n_fft - win_length) // 2
    full = np.zeros(n_fft)
    full[left:left + win_length] = window
    onesided = spec.shape[-2] != n_fft if onesided is None else onesided
    frames = np.swapaxes(spec, -1, -2) * (np.sqrt(n_fft) if normalized else 1)
    frames = np.fft.ifft(frames, n_fft, axis=-1) if return_complex else np.fft.irfft(
        frames[..., :n_fft // 2 + 1], n_fft, axis=-1)
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    y = np.zeros(frames.shape[:-2] + (total,), dtype=frames.dtype)
    env = np.zeros(total)
    for t in range(n_frames):
        y[..., t * hop:t * hop + n_fft] += frames[..., t, :] * full
        env[t * hop:t * hop + n_fft] += full ** 2
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    y = y[..., start:min(end, total)] / env[start:min(end, total)]
    return np.concatenate([y, np.zeros(y.shape[:-1] + (end - min(end, total),))], -1) if end > total else y


def _stft_samples(dtype, rng):
    # the window goes by position (input, n_fft, hop_length, win_length, window) so it is converted like the input
    r = rng.standard_normal
    return [Sample((r(60), 16), {"return_complex": True}),
            Sample((r((2, 50)), 16, 5, 10, np.hanning(10)), {"return_complex": True}),
            Sample((r(40), 15), {"center": False, "normalized": True, "onesided": False, "return_complex": True}),
            Sample((r((2, 30)), 8, None, None, np.hanning(8)), {"pad_mode": "constant", "return_complex": False})]


def _stft_grad(rng):
    r = rng.standard_normal
    return [((r((2, 12)), 6, 2, None, np.hanning(6) + 0.1), {"return_complex": True}),
            ((r(10), 4), {"center": False, "return_complex": True, "onesided": False})]


def _istft_samples(dtype, rng):
    real = "float32" if dtype == "complex64" else "float64"
    out = []
    for x, kw in [(rng.standard_normal(60), {}), (rng.standard_normal((2, 50)), {"hop_length": 3, "win_length": 9}),
                  (rng.standard_normal(48), {"normalized": True, "length": 56}),
                  (rng.standard_normal(40) + 1j * rng.standard_normal(40), {"return_complex": True})]:
        n_fft = 16
        window = ember.hann_window(kw.get("win_length", n_fft), dtype=getattr(ember, real))
        spec = np_stft(x, n_fft, kw.get("hop_length"), kw.get("win_length"), window.numpy().astype(np.float64),
                       normalized=kw.get("normalized", False))
        out.append(Sample((spec, n_fft), {**kw, "window": window}))
    return out


def _istft_grad(rng):
    spec = np_stft(rng.standard_normal(20), 8, 2, window=np.hanning(8))
    return [((spec, 8), {"hop_length": 2, "window": ember.hann_window(8, dtype=ember.float64)})]


register(
    python_opinfo("stft", np_stft, _stft_samples, method=True, grad_samples=_stft_grad,
                  ),
    python_opinfo("istft", np_istft, _istft_samples, dtypes=("complex64", "complex128"), method=True,
                  grad_samples=_istft_grad),
)
