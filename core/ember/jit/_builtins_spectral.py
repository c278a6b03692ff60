"""Script versions of ember.stft / ember.istft and the 1-D transforms of ember.fft (fft, ifft, rfft, irfft): the
eager ones are Python over the FFT kernels with checks outside the script language, so a scripted call compiles
these, the same ops in the same order (ember/_spectral.py, ember/fft/__init__.py), so results are equal."""
from __future__ import annotations

from typing import List, Optional

import ember
import ember.nn.functional as F
from ember import Tensor

from ._ops import aten


def _norm_code(norm: Optional[str], forward: bool) -> int:
    """The kernels' normalization code (0: none, 1: 1/sqrt(n), 2: 1/n), as ember.fft._args.norm_code."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "ortho":
        return 1
    if norm == "forward":
        return 2 if forward else 0
    raise ValueError(f"Invalid normalization mode: '{norm}' (expected None, \"forward\", \"backward\" or \"ortho\")")


def _promoted(x: Tensor) -> Tensor:
    if (x.dtype == ember.float16 or x.dtype == ember.bfloat16) and ember.is_autocast_enabled("cpu"):
        return x.to(ember.float32)  # the FFT ops' fp32 autocast policy, applied before the checks below
    if x.dtype == ember.float16 or x.dtype == ember.bfloat16:
        raise TypeError("fft: float16 and bfloat16 are not supported by the FFT kernels (float32/float64 and "
                        "complex64/complex128 are); convert the input with .float() first")
    if not (x.is_floating_point() or x.is_complex()):
        return x.to(ember.float32)
    return x


def _as_complex(x: Tensor) -> Tensor:
    x = _promoted(x)
    if x.is_complex():
        return x
    return x.to(ember.complex128) if x.dtype == ember.float64 else x.to(ember.complex64)


def _as_real(x: Tensor, name: str) -> Tensor:
    x = _promoted(x)
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got a complex one")
    return x


def _wrap_dim(d: int, ndim: int) -> int:
    if d < -ndim or d >= ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
    return d + ndim if d < 0 else d


def _points(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _resize(x: Tensor, d: int, n: int) -> Tensor:
    """x zero-padded or trimmed (from the end) to n along d, as ember.fft._args.resize."""
    have = x.size(d)
    if have > n:
        return x.narrow(d, 0, n)
    if have < n:
        shape = x.shape
        shape[d] = n - have
        return ember.cat([x, ember.zeros(shape, dtype=x.dtype, device=x.device)], d)
    return x


def fft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    d = _wrap_dim(dim, input.dim())
    size = _points(input.size(d) if n is None else n)
    return aten._fft_c2c(_resize(_as_complex(input), d, size), [d], _norm_code(norm, True), True)


def ifft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    d = _wrap_dim(dim, input.dim())
    size = _points(input.size(d) if n is None else n)
    return aten._fft_c2c(_resize(_as_complex(input), d, size), [d], _norm_code(norm, False), False)


def rfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    d = _wrap_dim(dim, input.dim())
    size = _points(input.size(d) if n is None else n)
    return aten._fft_r2c(_resize(_as_real(input, "rfft"), d, size), [d], _norm_code(norm, True), True)


def irfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    d = _wrap_dim(dim, input.dim())
    x = _as_complex(input)
    last = 2 * (x.size(d) - 1) if n is None else n
    _points(last)
    return aten._fft_c2r(_resize(x, d, last // 2 + 1), [d], _norm_code(norm, False), last)


def _padded_window(window: Optional[Tensor], win_length: int, n_fft: int, dtype: int) -> Tensor:
    """The window (ones when None) zero-padded on both sides to n_fft, centred as PyTorch does."""
    w = ember.ones([win_length], dtype=dtype) if window is None else window
    left = (n_fft - win_length) // 2
    if left != 0 or n_fft - win_length - left != 0:
        w = F.pad(w, [left, n_fft - win_length - left])
    return w


def stft(input: Tensor, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
         window: Optional[Tensor] = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: Optional[bool] = None, return_complex: Optional[bool] = None,
         align_to_window: Optional[bool] = None) -> Tensor:
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    window_complex = window is not None and window.is_complex()
    if return_complex is None and not (input.is_complex() or window_complex):
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if center:
        signal_dim = input.dim()
        extended: List[int] = []
        for _ in range(3 - signal_dim):
            extended.append(1)
        padded = F.pad(input.reshape(extended + input.shape), [n_fft // 2, n_fft // 2], pad_mode)
        input = padded.reshape(padded.shape[3 - signal_dim:])
    as_complex = input.is_complex() or window_complex if return_complex is None else return_complex
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if input.dim() != 1 and input.dim() != 2:
        raise RuntimeError("stft: expected a 1D or 2D tensor")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("stft: expected a tensor of floating point or complex values")
    length = input.size(-1)
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None:
        if window.dim() != 1 or window.size(0) != win:
            raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win}, but got "
                               f"window with size {window.shape}")
    complex_fft = input.is_complex() or window_complex
    one_sided = (not complex_fft) if onesided is None else onesided
    if complex_fft and one_sided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if align_to_window is not None and align_to_window and win < n_fft:
        left = (n_fft - win) // 2
        input = F.pad(input, [left, n_fft - win - left])
    dtype = input.dtype if input.is_floating_point() else ember.float32
    frames = input.unfold(-1, n_fft, hop) * _padded_window(window, win, n_fft, dtype)
    norm = "ortho" if normalized else "backward"
    spectrum = rfft(frames, norm=norm) if one_sided else fft(frames, norm=norm)
    spectrum = spectrum.transpose(-1, -2)
    return spectrum if as_complex else ember.view_as_real(spectrum)


def _overlap_add(frames: Tensor, signal_len: int, n_fft: int, hop_length: int) -> Tensor:
    """(channel, n_frames, n_fft) frames summed into (channel, signal_len) signals, as ember._spectral's."""
    if frames.is_complex():
        return ember.complex(_overlap_add_real(frames.real, signal_len, n_fft, hop_length),
                             _overlap_add_real(frames.imag, signal_len, n_fft, hop_length))
    return _overlap_add_real(frames, signal_len, n_fft, hop_length)


def _overlap_add_real(frames: Tensor, signal_len: int, n_fft: int, hop_length: int) -> Tensor:
    folded = F.fold(frames.transpose(1, 2), output_size=[1, signal_len], kernel_size=[1, n_fft],
                    stride=[1, hop_length])
    return folded.select(1, 0).select(1, 0)


def istft(input: Tensor, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
          window: Optional[Tensor] = None, center: bool = True, normalized: bool = False,
          onesided: Optional[bool] = None, length: Optional[int] = None, return_complex: bool = False) -> Tensor:
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    real_dims = input.dim() + 1  # PyTorch counts the dims of the input seen as real pairs
    if input.numel() == 0:
        raise RuntimeError("istft: input tensor cannot be empty.")
    if real_dims != 3 and real_dims != 4:
        raise RuntimeError(f"istft: expected a tensor with 3 or 4 dimensions, but got {real_dims}")
    fft_size = input.size(-2)
    n_frames = input.size(-1)
    one_sided = fft_size != n_fft if onesided is None else onesided
    if one_sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not one_sided and n_fft != fft_size:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {fft_size}")
    if not (0 < hop and hop <= win):
        raise RuntimeError("istft: expected 0 < hop_length <= win_length")
    if not (0 < win and win <= n_fft):
        raise RuntimeError("istft: expected 0 < win_length <= n_fft")
    if window is not None:
        if window.dim() != 1 or window.size(0) != win:
            raise RuntimeError("istft: Invalid window shape. window has to be 1D and length of `win_length`")
    full_window = _padded_window(window, win, n_fft, ember.real(input).dtype)
    batched = input.dim() == 3
    frames = (input if batched else input.unsqueeze(0)).transpose(1, 2)  # (channel, n_frames, fft_size)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = ifft(frames, n_fft, norm=norm)
    else:
        if full_window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        frames = irfft(frames, n_fft, norm=norm)
    signal_len = n_fft + hop * (n_frames - 1)
    y = _overlap_add(frames * full_window, signal_len, n_fft, hop)
    envelope = _overlap_add_real((full_window * full_window).expand([1, n_frames, n_fft]), signal_len, n_fft, hop)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = -(n_fft // 2) if center else signal_len
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if bool(envelope.abs().min() < 1e-11):
        raise RuntimeError("istft: window overlap add min: 1")
    y = y / envelope
    if not batched:
        y = y.squeeze(0)
    if end > signal_len:
        y = F.pad(y, [0, end - signal_len])
    return y


def spectral_impls() -> dict:
    return {ember.stft: stft, ember.istft: istft, ember.fft.fft: fft, ember.fft.ifft: ifft, ember.fft.rfft: rfft,
            ember.fft.irfft: irfft}
