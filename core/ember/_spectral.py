"""The short-time Fourier transform and its inverse (torch.stft / torch.istft, and their Tensor methods),
written over recorded ops (pad, unfold, the FFT kernels, fold for the overlap-add), so autograd comes
from those parts. Arguments are checked as PyTorch does, with its messages."""
from __future__ import annotations

from . import _C
from ._dtype_info import scalar_type_name
from ._warn_always import warn_once

__all__ = ["stft", "istft"]

_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known to cause spectral "
              "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
              "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")
_REAL_OUTPUT = ("stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex "
                "tensors for all inputs, and return_complex=False will raise an error.\nNote: you can still call "
                "torch.view_as_real on the complex output to recover the old return format.")


def _word(t):
    return scalar_type_name(t.dtype)


def _dims(t):
    return ", ".join(str(s) for s in t.shape)


def _opt(v):
    return "None" if v is None else str(int(v))


def _window_repr(window):
    return "None" if window is None else f"torch.{_word(window)}Tensor{{[{_dims(window)}]}}"


def _is_complex(t):
    return t is not None and t.is_complex()


def _zero_pad(t, left, right):
    """t with left and right zeros added along its last dim."""
    from .nn._functional_conv import pad
    return pad(t, [left, right])


def _padded_window(window, win_length, n_fft, like):
    """The window (ones when None) padded with zeros on both sides to n_fft, centred as PyTorch does."""
    if window is None:
        window = _C.ones(win_length, dtype=like.dtype if like.is_floating_point() else _C.get_default_dtype())
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = _zero_pad(window, left, n_fft - win_length - left)
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The STFT of a 1-D signal or a 2-D batch of signals: frames of n_fft samples every hop_length,
    times the window (win_length long, zero-padded to n_fft), Fourier-transformed. Returns (*, freq,
    frames), complex (or real with a last dim of 2 when return_complex=False)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        from .nn._functional_conv import pad
        signal_dim = input.dim()
        extended_shape = [1] * (3 - signal_dim) + list(input.shape)
        half = int(n_fft // 2)
        input = pad(input.view(extended_shape), [half, half], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    return _stft_frames(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
                        align_to_window)


def _stft_frames(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
                 align_to_window):
    if return_complex is None and not (input.is_complex() or _is_complex(window)):
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if return_complex is False:
        warn_once(_REAL_OUTPUT)
    shown_return_complex = return_complex
    if return_complex is None:
        return_complex = input.is_complex() or _is_complex(window)
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    # PyTorch names a complex input by its C++ type string, a real one by its Python type name
    shown = f"CPU{_word(input)}Type" if input.is_complex() else f"torch.{_word(input)}Tensor"
    prefix = (f"stft({shown}[{_dims(input)}], n_fft={n_fft}, hop_length={hop_length}, "
              f"win_length={win_length}, window={_window_repr(window)}, normalized={int(bool(normalized))}, "
              f"onesided={_opt(onesided)}, return_complex={_opt(shown_return_complex)}, "
              f"align_to_window={_opt(align_to_window)}) : ")
    if input.dim() not in (1, 2):
        raise RuntimeError(prefix + "expected a 1D or 2D tensor")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(prefix + "expected a tensor of floating point or complex values")
    length = input.shape[-1]
    if n_fft <= 0 or n_fft > length:
        # PyTorch's message shows win_length here (its n_fft only when win_length is left to default to it)
        raise RuntimeError(prefix + f"expected 0 < n_fft < {length}, but got n_fft={win_length}")
    if hop_length <= 0:
        raise RuntimeError(prefix + f"expected hop_length > 0, but got hop_length={hop_length}")
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(prefix + f"expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(prefix + f"expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size [{_dims(window)}]")
    if window is None:
        warn_once(_NO_WINDOW)
    complex_fft = input.is_complex() or _is_complex(window)
    onesided = not complex_fft if onesided is None else onesided
    if complex_fft and onesided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if align_to_window and win_length < n_fft:
        # frames start where their window starts: shift the signal by the window's padding instead
        left = (n_fft - win_length) // 2
        input = _zero_pad(input, left, n_fft - win_length - left)
    frames = input.unfold(-1, n_fft, hop_length) * _padded_window(window, win_length, n_fft, input)
    from . import fft
    norm = "ortho" if normalized else "backward"
    spectrum = fft.rfft(frames, norm=norm) if onesided else fft.fft(frames, norm=norm)
    spectrum = spectrum.transpose(-1, -2)
    return spectrum if return_complex else _C.view_as_real(spectrum)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of stft by overlap-add: each frame's inverse FFT times the window, summed at its hop,
    divided by the summed squared window (which must stay nonzero: the NOLA condition)."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    prefix = (f"istft(CPU{_word(input)}Type[{_dims(input)}], n_fft={n_fft}, hop_length={hop_length}, "
              f"win_length={win_length}, window={_window_repr(window)}, center={int(bool(center))}, "
              f"normalized={int(bool(normalized))}, onesided={_opt(onesided)}, length={_opt(length)}, "
              f"return_complex={int(bool(return_complex))})")
    real_dims = input.dim() + 1  # PyTorch counts the dims of the input seen as real pairs
    if input.numel() == 0:
        raise RuntimeError(prefix + " : input tensor cannot be empty.")
    if real_dims not in (3, 4):
        raise RuntimeError(prefix + f" : expected a tensor with 3 or 4 dimensions, but got {real_dims}")
    fft_size, n_frames = input.shape[-2], input.shape[-1]
    onesided = fft_size != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(prefix + " : expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError(prefix + " : expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop_length <= win_length:
        raise RuntimeError(prefix + " : expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(prefix + " : expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(prefix + " : Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = _C.empty(0, dtype=input.dtype).real.dtype
    window = _padded_window(window, win_length, n_fft, _C.empty(0, dtype=real_dtype))
    batched = input.dim() == 3
    frames = (input if batched else input.unsqueeze(0)).transpose(1, 2)  # (channel, n_frames, fft_size)
    from . import fft
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft.ifft(frames, n_fft, norm=norm)
    else:
        if window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            frames = frames[..., : n_fft // 2 + 1]
        frames = fft.irfft(frames, n_fft, norm=norm)
    signal_len = n_fft + hop_length * (n_frames - 1)
    y = _overlap_add(frames * window, signal_len, n_fft, hop_length)
    envelope = _overlap_add((window * window).expand(1, n_frames, n_fft), signal_len, n_fft, hop_length)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else signal_len)
    y, envelope = y[:, start:end], envelope[:, start:end]
    if bool((envelope.abs().min() < 1e-11).item()):
        raise RuntimeError(prefix + " window overlap add min: 1\n[ CPUBoolType{} ]")
    y = y / envelope
    if not batched:
        y = y.squeeze(0)
    if end > signal_len:
        y = _zero_pad(y, 0, end - signal_len)
    return y


def _overlap_add(frames, signal_len, n_fft, hop_length):
    """(channel, n_frames, n_fft) frames summed into (channel, signal_len) signals, frame t at t * hop_length
    (the adjoint of unfold, so its gradient is unfold)."""
    if frames.is_complex():
        return _C.complex(_overlap_add(frames.real, signal_len, n_fft, hop_length),
                          _overlap_add(frames.imag, signal_len, n_fft, hop_length))
    from .nn.functional import fold
    cols = frames.transpose(1, 2)  # (channel, n_fft, n_frames): fold's columns
    return fold(cols, output_size=(1, signal_len), kernel_size=(1, n_fft), stride=(1, hop_length))[:, 0, 0]


class SpectralMethods:
    """Tensor.stft and Tensor.istft."""
    stft = stft
    istft = istft
